import Cipherdex

extension DocumentError: CodedError {
    /// The case's name.
    var code: String { name }
}

extension AttachmentError: CodedError {
    /// The case's name.
    var code: String { name }
}

extension SearchError: CodedError {
    /// The case's name.
    var code: String { name }
}

extension SearchQueryError: CodedError {
    /// The case's name (`unterminatedQuote`, `danglingOperator`, …); the message gives the position.
    var code: String { name }
}

extension ExtractionError: CodedError {
    /// The case's name.
    var code: String { name }
}

extension ExportError: CodedError {
    /// The case's name.
    var code: String {
        switch self {
        case .destinationNotEmpty: return "destinationNotEmpty"
        case .destinationInsideStore: return "destinationInsideStore"
        case .cannotWrite: return "cannotWrite"
        }
    }
}

extension StoreAlreadyExists: CodedError {
    /// `storeExists`, as `create`'s own check says.
    var code: String { "storeExists" }
}

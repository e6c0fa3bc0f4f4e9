import Cipherdex

extension DocumentError: CodedError {
    /// The case's name.
    var code: String { name }
}

extension AttachmentError: CodedError {
    /// The case's name.
    var code: String { name }
}

/// Something that turns a document's bytes into searchable text.
///
/// Implementations never write the document to disk, and report every failure as an
/// `ExtractionError`.
public protocol TextExtractor: Sendable {
    /// Extracts the text of `data`, a document whose file name ends in `fileExtension` (without
    /// the dot, any case), opening it with `password` when it is encrypted.
    func extract(data: [UInt8], fileExtension: String, password: String?) throws -> ExtractedDocument
}

extension TextExtractor {
    /// The lower-cased extension without a leading dot.
    static func normalizedExtension(_ fileExtension: String) -> String {
        var ext = fileExtension.lowercased()
        while ext.hasPrefix(".") { ext.removeFirst() }
        return ext
    }
}

import Foundation

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

/// A `TextExtractor` for PDFs only: implementations provide `extract(data:password:)`, and get
/// the `TextExtractor` entry point (which refuses other extensions) and a `Data` overload.
public protocol PDFExtractor: TextExtractor {
    /// Extracts the PDF in `data`, opening it with `password` when it is encrypted.
    func extract(data: [UInt8], password: String?) throws -> ExtractedDocument
}

extension PDFExtractor {
    /// Extracts `data` when `fileExtension` is `pdf`; other extensions are `.unsupportedFormat`.
    public func extract(data: [UInt8], fileExtension: String, password: String?) throws -> ExtractedDocument {
        let ext = Self.normalizedExtension(fileExtension)
        guard ext == "pdf" else { throw ExtractionError.unsupportedFormat(ext) }
        return try extract(data: data, password: password)
    }

    /// Extracts the PDF in `data`.
    public func extract(data: Data, password: String?) throws -> ExtractedDocument {
        try extract(data: [UInt8](data), password: password)
    }
}

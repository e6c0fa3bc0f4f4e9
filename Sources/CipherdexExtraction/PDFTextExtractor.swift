internal import CPopplerRuntime
import Foundation

/// Extracts text from PDFs in the current process with poppler.
///
/// poppler-glib opens the document (page count, annotations, title, metadata, passwords); the
/// page text comes from poppler-cpp's reading-order text (`ReadingOrderText`, what `pdftotext`
/// prints), which opens the same bytes a second time, because glib's page text drops lines of
/// right-to-left text. When poppler-cpp cannot open the document or counts other pages, the
/// document's text is glib's, with `GlyphGapSplitter` applied; when it takes longer than
/// `readingOrderTimeLimit`, glib's too, without annotations. The PDF is loaded from memory and
/// never written to disk.
/// Poppler has no time or memory limit of its own: hostile or fuzzed files can make it loop or
/// allocate gigabytes, so untrusted input should go through `IsolatedPDFExtractor`, which runs
/// this same code in a resource-limited helper process.
public struct PDFTextExtractor: PDFExtractor {
    /// The default `wordGapRatio`, measured on the real-world corpus against `pdftotext`
    /// (BENCHMARKS.md, word agreement).
    public static let defaultWordGapRatio = 0.4

    /// Characters poppler runs together are split where their glyphs are apart by more than this
    /// fraction of the glyph height (`GlyphGapSplitter`); nil keeps poppler's text as it is.
    public var wordGapRatio: Double?

    /// Whether page text comes from poppler-cpp's reading-order text (the default); false takes
    /// glib's page text for every document, as the fallback does.
    public var readingOrderText: Bool

    /// The default `readingOrderTimeLimit`: half of the isolated extractor's default 30 s.
    public static let defaultReadingOrderTimeLimit = 15.0

    /// Seconds the reading-order text of a document may take (nil: no limit). Past it the
    /// document gets glib's page text without annotations (`readingOrderStalled`): a hostile form
    /// tree (qpdf__shared-unnamed-field.pdf) makes poppler's page display, which builds the
    /// document's form fields, and its annotations run for ever, while glib's page text does not
    /// need them. The reading-order call runs on in its thread (it cannot be interrupted); the
    /// extraction helper exits after such a document, in process it keeps running.
    public var readingOrderTimeLimit: Double?

    /// Pages whose text has fewer non-white-space characters than this and that hold an image
    /// are flagged `needsOCR` (nil: none is); the OCR itself is `PageRecognizer`'s, in the helper.
    public var ocrCandidatesBelow: Int?

    /// Creates an extractor that takes page text in reading order, or, with `readingOrderText`
    /// false, where poppler-cpp fails, or past `readingOrderTimeLimit` seconds, from glib with
    /// words split at glyph gaps of `wordGapRatio` of the glyph height.
    public init(
        wordGapRatio: Double? = PDFTextExtractor.defaultWordGapRatio, readingOrderText: Bool = true,
        readingOrderTimeLimit: Double? = PDFTextExtractor.defaultReadingOrderTimeLimit
    ) {
        self.wordGapRatio = wordGapRatio
        self.readingOrderText = readingOrderText
        self.readingOrderTimeLimit = readingOrderTimeLimit
    }

    /// Extracts the title, metadata and per-page text and annotations of the PDF in `data`.
    /// Throws `.locked` when the PDF is encrypted and `password` is missing or wrong; when poppler
    /// cannot open it, `.unsupportedFormat` if the bytes carry no PDF header and `.damaged` if
    /// they do.
    public func extract(data: [UInt8], password: String?) throws -> ExtractedDocument {
        try extractNotingStall(data: data, password: password).document
    }

    /// `extract(data:password:)`, and whether the reading-order text ran past
    /// `readingOrderTimeLimit` (its thread still running: the helper then exits after answering).
    package func extractNotingStall(data: [UInt8], password: String?) throws -> (
        document: ExtractedDocument, readingOrderStalled: Bool
    ) {
        guard !data.isEmpty else { throw ExtractionError.damaged(reason: "the file is empty") }
        let api = try PopplerLibraries.api()
        let document = try Self.openDocument(data, password: password, api)
        defer { api.g_object_unref(UnsafeMutableRawPointer(document)) }

        let pageCount = Int(api.poppler_document_get_n_pages(document))
        // Poppler gives no page for a page tree that claims more pages than the file has objects
        // (or an empty one): there is nothing to index, and "finished (0 pages)" would hide it.
        guard pageCount > 0 else {
            throw ExtractionError.damaged(reason: "poppler finds no page in it (its page tree is missing or damaged)")
        }
        // Opened only after glib accepted the document and its password: glib decides `.locked`.
        var texts: [String]?
        var stalled = false
        if readingOrderText {
            switch ReadingOrderText.pageTexts(of: data, password: password, timeLimit: readingOrderTimeLimit) {
            case .success(let found) where found.count == max(pageCount, 0): texts = found
            case .failure(.timedOut): stalled = true
            default: break
            }
        }
        var pages: [ExtractedPage] = []
        pages.reserveCapacity(max(pageCount, 0))
        for index in 0..<max(pageCount, 0) {
            guard let page = api.poppler_document_get_page(document, Int32(index)) else {
                pages.append(ExtractedPage(index: index, text: texts?[index] ?? ""))
                continue
            }
            defer { api.g_object_unref(UnsafeMutableRawPointer(page)) }
            let text = texts?[index] ?? pageText(page, api)
            let needsOCR = ocrCandidatesBelow.map { Self.qualifiesForOCR(page, text: text, below: $0, api) } ?? false
            // Annotations build the same form fields that stalled the reading-order text.
            pages.append(
                ExtractedPage(
                    index: index, text: text, annotations: stalled ? [] : Self.annotations(of: page, api),
                    needsOCR: needsOCR))
        }
        let title = Self.takeString(api.poppler_document_get_title(document), api).flatMap(Self.nonBlank)
        return (ExtractedDocument(title: title, metadata: Self.metadata(of: document, api), pages: pages), stalled)
    }

    /// The page's text, with spaces where glyphs poppler runs together stand apart.
    private func pageText(_ page: OpaquePointer, _ api: cdx_poppler_api) -> String {
        guard let raw = api.poppler_page_get_text(page) else { return "" }
        defer { api.g_free(raw) }
        if let ratio = wordGapRatio {
            var boxes: UnsafeMutablePointer<cdx_PopplerRectangle>?
            var count: cdx_guint = 0
            if api.poppler_page_get_text_layout(page, &boxes, &count) != 0, let boxes {
                defer { api.g_free(boxes) }
                let splitter = GlyphGapSplitter(ratio: ratio)
                if let split = splitter.split(
                    raw, length: strlen(raw), boxes: UnsafeBufferPointer(start: boxes, count: Int(count)))
                {
                    return split
                }
            }
        }
        return String(cString: raw)
    }

    /// Whether `%PDF-` occurs in the first KiB, where poppler looks for it.
    /// Whether the PDF names the public-key security handler (`/Adobe.PubSec`, the encryption
    /// dictionary's `/Filter`: never in an encrypted or compressed object, so its name is in the
    /// file as written). Asked only of a document poppler refused as encrypted.
    static func isPublicKeyEncrypted(_ data: [UInt8]) -> Bool {
        let name = Array("/Adobe.PubSec".utf8)
        guard data.count >= name.count else { return false }
        return data.withUnsafeBufferPointer { bytes in
            for start in 0...(bytes.count - name.count) where bytes[start] == name[0] {
                if UnsafeBufferPointer(rebasing: bytes[start..<(start + name.count)]).elementsEqual(name) {
                    let after = start + name.count
                    // The whole name: not `/Adobe.PubSecX`.
                    if after == bytes.count || !(bytes[after].isASCIILetterOrDigit || bytes[after] == UInt8(ascii: "."))
                    {
                        return true
                    }
                }
            }
            return false
        }
    }

    static func hasPDFHeader(_ data: [UInt8]) -> Bool {
        let marker: [UInt8] = Array("%PDF-".utf8)
        let window = data.prefix(1024 + marker.count)
        guard window.count >= marker.count else { return false }
        for start in window.startIndex...(window.endIndex - marker.count)
        where window[start] == marker[0] && Array(window[start..<start + marker.count]) == marker {
            return true
        }
        return false
    }

    /// Loads the document from a GBytes copy of `data`, mapping a GError to `ExtractionError`.
    ///
    /// Without a password this is `poppler_document_new_from_bytes`. With one, poppler 22.12's
    /// `new_from_bytes` (and `new_from_data`) crash on a wrong password: their retry with the
    /// password re-encoded reuses a stream the first attempt freed (SIGSEGV in `PDFDoc::PDFDoc`,
    /// seen with the corpus's AES and RC4 files). So a password goes through
    /// `poppler_document_new_from_stream` over a `GMemoryInputStream` on the same GBytes, which
    /// behaves correctly and is still memory-only.
    static func openDocument(_ data: [UInt8], password: String?, _ api: cdx_poppler_api) throws -> OpaquePointer {
        let bytes = data.withUnsafeBytes { api.g_bytes_new($0.baseAddress, cdx_gsize($0.count)) }
        defer { api.g_bytes_unref(bytes) }
        var error: UnsafeMutablePointer<cdx_GError>?
        let document: OpaquePointer?
        if let password {
            let stream = api.g_memory_input_stream_new_from_bytes(bytes)
            defer { if let stream { api.g_object_unref(UnsafeMutableRawPointer(stream)) } }
            document = api.poppler_document_new_from_stream(stream, cdx_goffset(data.count), password, nil, &error)
        } else {
            document = api.poppler_document_new_from_bytes(bytes, nil, &error)
        }
        if let document { return document }
        defer { if let error { api.g_error_free(error) } }
        guard let error else { throw ExtractionError.damaged(reason: "poppler could not open the document") }
        if error.pointee.domain == api.poppler_error_quark(), error.pointee.code == CDX_POPPLER_ERROR_ENCRYPTED {
            // Encrypted for certificate holders: no password opens it, so it is not `locked`
            // (which asks for one) but a format this library cannot read.
            if Self.isPublicKeyEncrypted(data) {
                throw ExtractionError.unsupportedFormat(
                    "encrypted for certificate holders (public-key security, /Adobe.PubSec): no password opens it")
            }
            throw ExtractionError.locked
        }
        // Poppler opens some files without a header, so the header only decides how a failure
        // is reported.
        guard hasPDFHeader(data) else { throw ExtractionError.unsupportedFormat("not a PDF (no %PDF- header)") }
        let message = error.pointee.message.map { String(cString: $0) } ?? "unknown error"
        throw ExtractionError.damaged(reason: message)
    }

    /// Whether `page`, whose text layer is `text`, has fewer than `minimum` characters that are
    /// not white space and holds at least one image.
    static func qualifiesForOCR(_ page: OpaquePointer, text: String, below minimum: Int, _ api: cdx_poppler_api) -> Bool
    {
        var count = 0
        for scalar in text.unicodeScalars where !scalar.properties.isWhitespace {
            count += 1
            if count >= minimum { return false }
        }
        guard let images = api.poppler_page_get_image_mapping(page) else { return false }
        api.poppler_page_free_image_mapping(images)
        return true
    }

    /// The non-empty text of each annotation on `page` (pop-ups are skipped: they repeat their
    /// parent's text).
    private static func annotations(of page: OpaquePointer, _ api: cdx_poppler_api) -> [String] {
        guard let mapping = api.poppler_page_get_annot_mapping(page) else { return [] }
        defer { api.poppler_page_free_annot_mapping(mapping) }
        var result: [String] = []
        var node: UnsafeMutablePointer<cdx_GList>? = mapping
        while let current = node {
            defer { node = current.pointee.next }
            guard let raw = current.pointee.data else { continue }
            let entry = raw.assumingMemoryBound(to: cdx_PopplerAnnotMapping.self)
            guard let annot = entry.pointee.annot else { continue }
            if api.poppler_annot_get_annot_type(annot) == CDX_POPPLER_ANNOT_POPUP { continue }
            if let text = takeString(api.poppler_annot_get_contents(annot), api).flatMap(nonBlank) {
                result.append(text)
            }
        }
        return result
    }

    /// The descriptive metadata of `document`, without empty values.
    private static func metadata(of document: OpaquePointer, _ api: cdx_poppler_api) -> [String: String] {
        var result: [String: String] = [:]
        let fields: [(String, @convention(c) (OpaquePointer?) -> UnsafeMutablePointer<CChar>?)] = [
            ("author", api.poppler_document_get_author),
            ("subject", api.poppler_document_get_subject),
            ("keywords", api.poppler_document_get_keywords),
            ("creator", api.poppler_document_get_creator),
            ("producer", api.poppler_document_get_producer),
            ("pdfVersion", api.poppler_document_get_pdf_version_string),
        ]
        for (key, getter) in fields {
            if let value = takeString(getter(document), api).flatMap(nonBlank) { result[key] = value }
        }
        if let date = isoDate(api.poppler_document_get_creation_date_time(document), api) {
            result["creationDate"] = date
        }
        if let date = isoDate(api.poppler_document_get_modification_date_time(document), api) {
            result["modificationDate"] = date
        }
        return result
    }

    /// Formats and frees a GDateTime.
    private static func isoDate(_ dateTime: OpaquePointer?, _ api: cdx_poppler_api) -> String? {
        guard let dateTime else { return nil }
        defer { api.g_date_time_unref(dateTime) }
        return takeString(api.g_date_time_format_iso8601(dateTime), api)
    }

    /// Copies and frees a string that glib allocated (invalid UTF-8 is repaired).
    private static func takeString(_ pointer: UnsafeMutablePointer<CChar>?, _ api: cdx_poppler_api) -> String? {
        guard let pointer else { return nil }
        defer { api.g_free(pointer) }
        return String(cString: pointer)
    }

    /// `text` trimmed, or nil when nothing is left.
    private static func nonBlank(_ text: String) -> String? {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? nil : trimmed
    }
}

extension UInt8 {
    /// Whether the byte is an ASCII letter or digit.
    fileprivate var isASCIILetterOrDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}

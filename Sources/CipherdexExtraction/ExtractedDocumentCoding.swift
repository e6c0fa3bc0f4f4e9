/// The binary form of an `ExtractedDocument` in the helper's answer
/// (`HelperProtocol.Tag.binaryResult`).
///
/// Page text is most of what a helper sends, and JSON cost about 10 µs a page of 1.3 KB to write
/// in the helper and read in the parent (escaping and unescaping every character); this form cut
/// indexing's CPU time by 2.5–4.5% (BENCHMARKS.md, "A binary answer from the PDF helper, page
/// text at level 4"). Here a string is its length and its UTF-8 bytes, checked once when read.
///
/// All integers are `UInt32`, big-endian (as the frame headers):
///
///     document := flags (1 byte: bit 0, a title follows) [title: string]
///                 metadataCount { key: string, value: string } (keys strictly ascending, as
///                 Swift orders strings)
///                 pageCount { page }
///     page     := index, flags (1 byte: bit 0 isOCR, bit 1 needsOCR), text: string,
///                 annotationCount { annotation: string }
///     string   := length, UTF-8 bytes
///
/// Reading refuses anything else: unknown flag bits, a count or length past the bytes left,
/// invalid UTF-8, metadata keys out of order or repeated, bytes after the last page.
package enum ExtractedDocumentCoding {
    /// Why a payload is not a document in this form.
    package struct Malformed: Error, Equatable, Sendable {
        /// What was wrong.
        package var reason: String

        /// Creates an error.
        package init(_ reason: String) { self.reason = reason }
    }

    /// The encoded document, or nil when a page index does not fit 32 bits (the caller then
    /// sends it as JSON).
    package static func encode(_ document: ExtractedDocument) -> [UInt8]? {
        var output: [UInt8] = []
        output.reserveCapacity(encodedLength(document))
        return append(document, to: &output) ? output : nil
    }

    /// The number of bytes `encode(document)` gives (when it gives any).
    package static func encodedLength(_ document: ExtractedDocument) -> Int {
        var length = 9 + (document.title.map { 4 + $0.utf8.count } ?? 0)
        for (key, value) in document.metadata { length += 8 + key.utf8.count + value.utf8.count }
        for page in document.pages {
            length += 13 + page.text.utf8.count
            for annotation in page.annotations { length += 4 + annotation.utf8.count }
        }
        return length
    }

    /// Appends the encoded document to `output`, or returns false, `output` unchanged, when a page
    /// index does not fit 32 bits. The caller reserves room (`encodedLength`) so that a helper's
    /// answer is one buffer.
    package static func append(_ document: ExtractedDocument, to output: inout [UInt8]) -> Bool {
        guard document.pages.allSatisfy({ UInt32(exactly: $0.index) != nil }) else { return false }
        output.append(document.title == nil ? 0 : 1)
        if let title = document.title { appendString(title, to: &output) }
        appendInteger(UInt32(document.metadata.count), to: &output)
        for key in document.metadata.keys.sorted() {
            appendString(key, to: &output)
            appendString(document.metadata[key]!, to: &output)
        }
        appendInteger(UInt32(document.pages.count), to: &output)
        for page in document.pages {
            appendInteger(UInt32(page.index), to: &output)
            output.append((page.isOCR ? 1 : 0) | (page.needsOCR ? 2 : 0))
            appendString(page.text, to: &output)
            appendInteger(UInt32(page.annotations.count), to: &output)
            for annotation in page.annotations { appendString(annotation, to: &output) }
        }
        return true
    }

    /// The document in `payload`; `Malformed` when it is not exactly one in this form.
    package static func decode(_ payload: ArraySlice<UInt8>) throws(Malformed) -> ExtractedDocument {
        var reader = Reader(bytes: payload)
        let flags = try reader.byte()
        guard flags & ~1 == 0 else { throw Malformed("unknown document flags \(flags)") }
        let title = flags & 1 == 0 ? nil : try reader.string()
        let metadataCount = try reader.count(minimumElementLength: 8)
        var metadata: [String: String] = [:]
        metadata.reserveCapacity(metadataCount)
        var previousKey: String?
        for _ in 0..<metadataCount {
            let key = try reader.string()
            // Strictly ascending, as written: a repeated key (or one equal to another as Swift
            // compares strings, which a dictionary would merge) is refused with the rest.
            guard previousKey.map({ $0 < key }) ?? true else { throw Malformed("metadata keys out of order") }
            previousKey = key
            metadata[key] = try reader.string()
        }
        let pageCount = try reader.count(minimumElementLength: 13)
        var pages: [ExtractedPage] = []
        pages.reserveCapacity(pageCount)
        for _ in 0..<pageCount {
            let index = Int(try reader.integer())
            let pageFlags = try reader.byte()
            guard pageFlags & ~3 == 0 else { throw Malformed("unknown page flags \(pageFlags)") }
            let text = try reader.string()
            let annotationCount = try reader.count(minimumElementLength: 4)
            var annotations: [String] = []
            annotations.reserveCapacity(annotationCount)
            for _ in 0..<annotationCount { annotations.append(try reader.string()) }
            pages.append(
                ExtractedPage(
                    index: index, text: text, annotations: annotations, isOCR: pageFlags & 1 != 0,
                    needsOCR: pageFlags & 2 != 0))
        }
        guard reader.isAtEnd else { throw Malformed("bytes after the last page") }
        return ExtractedDocument(title: title, metadata: metadata, pages: pages)
    }

    private static func appendInteger(_ value: UInt32, to output: inout [UInt8]) {
        output.append(UInt8(value >> 24))
        output.append(UInt8((value >> 16) & 0xFF))
        output.append(UInt8((value >> 8) & 0xFF))
        output.append(UInt8(value & 0xFF))
    }

    private static func appendString(_ string: String, to output: inout [UInt8]) {
        var string = string
        string.withUTF8 { bytes in
            appendInteger(UInt32(bytes.count), to: &output)
            output.append(contentsOf: bytes)
        }
    }

    /// Reads the payload front to back, every read bounded by the bytes left.
    private struct Reader {
        let bytes: ArraySlice<UInt8>
        var position: Int

        init(bytes: ArraySlice<UInt8>) {
            self.bytes = bytes
            position = bytes.startIndex
        }

        var isAtEnd: Bool { position == bytes.endIndex }
        var remaining: Int { bytes.endIndex - position }

        mutating func byte() throws(Malformed) -> UInt8 {
            guard remaining >= 1 else { throw Malformed("truncated") }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func integer() throws(Malformed) -> UInt32 {
            guard remaining >= 4 else { throw Malformed("truncated") }
            defer { position += 4 }
            return bytes[position..<(position + 4)].reduce(0) { $0 << 8 | UInt32($1) }
        }

        /// A count of elements that each take at least `minimumElementLength` bytes: one that
        /// could not fit in the bytes left is refused before anything is reserved for it.
        mutating func count(minimumElementLength: Int) throws(Malformed) -> Int {
            let count = Int(try integer())
            guard count <= remaining / minimumElementLength else { throw Malformed("count past the end") }
            return count
        }

        mutating func string() throws(Malformed) -> String {
            let length = Int(try integer())
            guard length <= remaining else { throw Malformed("string past the end") }
            defer { position += length }
            guard let string = String(validating: bytes[position..<(position + length)], as: UTF8.self) else {
                throw Malformed("invalid UTF-8")
            }
            return string
        }
    }
}

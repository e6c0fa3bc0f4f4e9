/// Extracts plain text (`.txt`) and Markdown (`.md`) files.
///
/// Text is decoded as UTF-8 (a byte-order mark is dropped; UTF-16 with a byte-order mark is
/// recognised); bytes that are not valid UTF-8 are decoded as Windows-1252, so no input fails.
/// Form feeds split the text into pages; without one the document is a single page. A Markdown
/// document's first `# ` heading becomes its title.
public struct PlainTextExtractor: TextExtractor {
    /// The file extensions this extractor reads.
    public static let supportedExtensions: Set<String> = ["txt", "text", "md", "markdown"]

    /// Creates an extractor; it holds no state.
    public init() {}

    /// Extracts `data`; `password` is ignored (plain text is never encrypted).
    public func extract(data: [UInt8], fileExtension: String, password: String?) throws -> ExtractedDocument {
        let ext = Self.normalizedExtension(fileExtension)
        guard Self.supportedExtensions.contains(ext) else { throw ExtractionError.unsupportedFormat(ext) }
        let text = Self.decode(data)
        let pages = text.split(separator: "\u{0C}", omittingEmptySubsequences: false).enumerated().map {
            ExtractedPage(index: $0.offset, text: String($0.element))
        }
        let title = (ext == "md" || ext == "markdown") ? Self.markdownTitle(text) : nil
        return ExtractedDocument(title: title, metadata: [:], pages: pages)
    }

    /// Decodes `data` as UTF-8, UTF-16 (with a byte-order mark) or, failing those, Windows-1252.
    static func decode(_ data: [UInt8]) -> String {
        if data.starts(with: [0xEF, 0xBB, 0xBF]) {
            return decode(Array(data.dropFirst(3)))
        }
        if data.count >= 2, (data[0] == 0xFF && data[1] == 0xFE) || (data[0] == 0xFE && data[1] == 0xFF) {
            return decodeUTF16(data.dropFirst(2), bigEndian: data[0] == 0xFE)
        }
        if let text = String(validating: data, as: UTF8.self) { return text }
        return decodeWindows1252(data)
    }

    /// Decodes UTF-16 code units, replacing unpaired surrogates.
    private static func decodeUTF16(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> String {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var index = bytes.startIndex
        while index + 1 < bytes.endIndex {
            let first = UInt16(bytes[index]), second = UInt16(bytes[index + 1])
            units.append(bigEndian ? first << 8 | second : second << 8 | first)
            index += 2
        }
        return String(decoding: units, as: UTF16.self)
    }

    /// The characters Windows-1252 puts at 0x80...0x9F (0 where the code page has none).
    private static let windows1252High: [UInt32] = [
        0x20AC, 0, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021, 0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0, 0x017D, 0,
        0, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014, 0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0, 0x017E, 0x0178,
    ]

    /// Decodes each byte as a Windows-1252 character (Latin-1 where the code page has a hole).
    private static func decodeWindows1252(_ data: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        for byte in data {
            var value = UInt32(byte)
            if (0x80...0x9F).contains(byte), windows1252High[Int(byte - 0x80)] != 0 {
                value = windows1252High[Int(byte - 0x80)]
            }
            scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
        }
        return String(scalars)
    }

    /// The text of the first level-one ATX heading (`# Title`), if any.
    private static func markdownTitle(_ text: String) -> String? {
        for line in text.split(whereSeparator: \.isNewline) where line.hasPrefix("# ") {
            var title = line.dropFirst(2)
            while let first = title.first, first == " " || first == "\t" { title.removeFirst() }
            while let last = title.last, last == " " || last == "\t" || last == "#" { title.removeLast() }
            return title.isEmpty ? nil : String(title)
        }
        return nil
    }
}

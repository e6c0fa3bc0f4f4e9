internal import CPopplerRuntime

/// Puts a space between two characters of a page's text that poppler runs together although
/// their glyphs stand apart on the page (`ContinentAsia` in adjacent table cells or form fields,
/// where `pdftotext` prints `Continent Asia`).
///
/// `poppler_page_get_text_layout` gives one rectangle per character of `poppler_page_get_text`,
/// in the same order. Between two consecutive characters that are not whitespace, that sit on
/// the same line (their boxes overlap vertically by half the smaller height) and whose boxes
/// are apart horizontally by more than `ratio` of the taller box's height, a space is inserted.
/// The gap is measured in the direction the text runs (right to left for Arabic and Hebrew:
/// when the second box starts left of the first, the gap is from its right edge to the first's
/// left edge). Vertical text (boxes stacked, no vertical overlap) and overlapping glyphs are
/// left alone, and no space goes before a combining mark.
struct GlyphGapSplitter {
    /// The gap, as a fraction of the glyph height, from which characters are split.
    var ratio: Double

    /// The text with spaces inserted at clear gaps; `text` itself when the layout does not
    /// have one rectangle per character or nothing needs splitting.
    func split(_ text: UnsafePointer<CChar>, length: Int, boxes: UnsafeBufferPointer<cdx_PopplerRectangle>) -> String? {
        let bytes = UnsafeRawPointer(text).assumingMemoryBound(to: UInt8.self)
        // Character starts: one box per UTF-8 character (lead bytes, not continuation bytes).
        var characters = 0
        for offset in 0..<length where bytes[offset] & 0xC0 != 0x80 { characters += 1 }
        guard characters == boxes.count, characters > 1 else { return nil }
        var output: [UInt8] = []
        var copied = 0
        var character = 0
        var offset = 0
        var previousStart = -1
        while offset < length {
            let start = offset
            offset += 1
            while offset < length && bytes[offset] & 0xC0 == 0x80 { offset += 1 }
            defer {
                previousStart = start
                character += 1
            }
            guard previousStart >= 0, !Self.isSpace(bytes[start]), !Self.isSpace(bytes[previousStart]) else { continue }
            let first = boxes[character - 1]
            let second = boxes[character]
            guard Self.apart(first, second, ratio: ratio), !Self.isMark(bytes + start, offset - start) else { continue }
            if output.isEmpty { output.reserveCapacity(length + length / 16) }
            output.append(contentsOf: UnsafeBufferPointer(start: bytes + copied, count: start - copied))
            output.append(0x20)
            copied = start
        }
        guard !output.isEmpty else { return nil }
        output.append(contentsOf: UnsafeBufferPointer(start: bytes + copied, count: length - copied))
        return String(decoding: output, as: UTF8.self)
    }

    /// Whether two boxes are on one line with a horizontal gap over `ratio` of their height.
    static func apart(_ first: cdx_PopplerRectangle, _ second: cdx_PopplerRectangle, ratio: Double) -> Bool {
        let firstHeight = first.y2 - first.y1
        let secondHeight = second.y2 - second.y1
        guard firstHeight > 0, secondHeight > 0, first.x2 > first.x1, second.x2 > second.x1 else { return false }
        let overlap = min(first.y2, second.y2) - max(first.y1, second.y1)
        guard overlap > 0.5 * min(firstHeight, secondHeight) else { return false }
        let gap = second.x1 >= first.x1 ? second.x1 - first.x2 : first.x1 - second.x2
        return gap > ratio * max(firstHeight, secondHeight)
    }

    /// ASCII whitespace (poppler separates words and lines with these).
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0x0C
    }

    /// Whether the UTF-8 character at `bytes` is a combining mark.
    static func isMark(_ bytes: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        guard count > 1 else { return false }
        var scalar: Unicode.Scalar?
        var iterator = UnsafeBufferPointer(start: bytes, count: count).makeIterator()
        var decoder = UTF8()
        if case .scalarValue(let value) = decoder.decode(&iterator) { scalar = value }
        guard let scalar else { return false }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .spacingMark, .enclosingMark: return true
        default: return false
        }
    }
}

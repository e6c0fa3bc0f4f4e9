/// Cuts a preview out of a page's original text around FTS match offsets (UTF-8 byte ranges),
/// and reports where the matches are in UTF-16 offsets, in the preview and in the page.
struct PreviewBuilder {
    /// What a preview shows.
    struct Preview {
        let text: String
        let matchRanges: [[Int]]
        let pageMatchRanges: [[Int]]
    }

    let body: String
    let byteRanges: [Range<Int>]

    /// A preview of `length` characters starting `before` characters ahead of the first match;
    /// line breaks, tabs and form feeds become spaces (the UTF-16 offsets stay the same). `allowASCII: false` forces
    /// the general path (for the test comparing both).
    func preview(before: Int, length: Int, allowASCII: Bool = true) -> Preview {
        if allowASCII, let preview = asciiPreview(before: before, length: length) { return preview }
        let utf8Count = body.utf8.count
        let ranges = Set(byteRanges.filter { $0.lowerBound >= 0 && $0.upperBound <= utf8Count }).sorted(
            by: Self.inOrder)
        let indexRanges: [Range<String.Index>] = ranges.map { range in
            let lower = body.utf8.index(body.utf8.startIndex, offsetBy: range.lowerBound)
            let upper = body.utf8.index(body.utf8.startIndex, offsetBy: range.upperBound)
            return lower..<upper
        }
        let pageRanges = indexRanges.map { [utf16Offset($0.lowerBound), utf16Offset($0.upperBound)] }
        let anchor = indexRanges.first?.lowerBound ?? body.startIndex
        let start = body.index(anchor, offsetBy: -max(0, before), limitedBy: body.startIndex) ?? body.startIndex
        let end = body.index(start, offsetBy: max(0, length), limitedBy: body.endIndex) ?? body.endIndex
        let startOffset = utf16Offset(start)
        let endOffset = utf16Offset(end)
        var text = String(body[start..<end])
        // Line breaks, tabs and form feeds are single ASCII bytes (never part of a longer UTF-8 sequence), so
        // swapping bytes keeps every other scalar and every UTF-16 offset; a byte map is much
        // cheaper than rebuilding the string scalar by scalar.
        if text.utf8.contains(where: Self.isBlankControl) {
            text = String(decoding: text.utf8.map { Self.isBlankControl($0) ? 0x20 : $0 }, as: UTF8.self)
        }
        let inPreview = pageRanges.compactMap { range -> [Int]? in
            guard range[0] >= startOffset, range[0] < endOffset else { return nil }
            return [range[0] - startOffset, min(range[1], endOffset) - startOffset]
        }
        let shown = pageRanges.filter { $0[0] >= startOffset && $0[0] < endOffset }
        return Preview(text: text, matchRanges: inPreview, pageMatchRanges: shown)
    }

    /// The same preview where the page is ASCII up to just past the preview, its anchor and its
    /// matches, with no carriage return from just before the preview on: there every character is one byte and one
    /// UTF-16 unit (a CR LF pair would be one character of two bytes, and a non-ASCII byte right
    /// after the preview could be a combining mark extending its last character), so plain byte
    /// arithmetic replaces walking `String` indices. Only that part of the page is read. Nil for
    /// any other page.
    private func asciiPreview(before: Int, length: Int) -> Preview? {
        var body = body
        return body.withUTF8 { bytes -> Preview? in
            let ranges = Set(byteRanges.filter { $0.lowerBound >= 0 && $0.upperBound <= bytes.count })
                .sorted(by: Self.inOrder)
            let anchor = ranges.first?.lowerBound ?? 0
            let start = max(0, anchor - max(0, before))
            let end = min(bytes.count, start + max(0, length))
            let shown = ranges.filter { $0.lowerBound >= start && $0.lowerBound < end }
            // Everything the character and UTF-16 counts depend on (the anchor may lie past the
            // preview's end when `before` exceeds `length`), and one byte beyond.
            let reach = min(bytes.count, max(end, anchor, shown.map(\.upperBound).max() ?? 0) + 1)
            guard Self.isASCII(UnsafeBufferPointer(rebasing: bytes[0..<reach])) else { return nil }
            guard !bytes[max(0, start - 1)..<reach].contains(0x0D) else { return nil }
            let text = String(decoding: bytes[start..<end].map { Self.isBlankControl($0) ? 0x20 : $0 }, as: UTF8.self)
            return Preview(
                text: text,
                matchRanges: shown.map { [$0.lowerBound - start, min($0.upperBound, end) - start] },
                pageMatchRanges: shown.map { [$0.lowerBound, $0.upperBound] })
        }
    }

    /// Whether every byte is below 0x80, eight bytes at a time.
    private static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        var index = 0
        var any: UInt64 = 0
        while index + 8 <= bytes.count {
            any |= UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            index += 8
        }
        while index < bytes.count {
            any |= UInt64(base[index])
            index += 1
        }
        return any & 0x8080_8080_8080_8080 == 0
    }

    /// Line feed, carriage return, tab, vertical tab and form feed (the page break ending a PDF
    /// page's text): shown as spaces.
    private static func isBlankControl(_ byte: UInt8) -> Bool { (0x09...0x0D).contains(byte) }

    /// Ranges by start, then end (a total order, so the result never depends on `Set` order).
    private static func inOrder(_ lhs: Range<Int>, _ rhs: Range<Int>) -> Bool {
        lhs.lowerBound != rhs.lowerBound ? lhs.lowerBound < rhs.lowerBound : lhs.upperBound < rhs.upperBound
    }

    private func utf16Offset(_ index: String.Index) -> Int {
        body.utf16.distance(from: body.utf16.startIndex, to: index)
    }
}

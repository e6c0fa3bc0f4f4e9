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
    /// line breaks become spaces (the UTF-16 offsets stay the same).
    func preview(before: Int, length: Int) -> Preview {
        let utf8Count = body.utf8.count
        let ranges = Set(byteRanges.filter { $0.lowerBound >= 0 && $0.upperBound <= utf8Count }).sorted { $0.lowerBound < $1.lowerBound }
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
        // Line breaks and tabs are single ASCII bytes (never part of a longer UTF-8 sequence), so
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

    private static func isBlankControl(_ byte: UInt8) -> Bool { byte == 0x0A || byte == 0x0D || byte == 0x09 }

    private func utf16Offset(_ index: String.Index) -> Int {
        body.utf16.distance(from: body.utf16.startIndex, to: index)
    }
}

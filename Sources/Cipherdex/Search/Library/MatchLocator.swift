/// What FTS4 `offsets()` reports for a compiled MATCH expression, computed in Swift from a page's
/// text: the byte ranges of the tokens that make up each occurrence of each of its phrases.
///
/// `offsets()` re-runs the full-text query for the rows and re-tokenises every page through the
/// SQLite tokenizer interface; this tokenises the page once with `TokenScanner` directly. The
/// expression must be a `CompiledSearchQuery.match`: double-quoted strings joined by spaces (AND)
/// and `OR`. Each quoted string is cut exactly as FTS cuts it (our tokenizer; a token directly
/// followed by `*` is a prefix), and a phrase matches where its tokens are at consecutive
/// positions, each equal to (or, for a prefix, beginning with the bytes of) its query token.
///
/// For a page that matches the expression (and only those are asked about), the result equals
/// `offsets()`'s: one range per (phrase token, occurrence), ordered by position and then by the
/// token's index in the expression, duplicates included (`SearchLibraryMatchLocatorTests`
/// compares both on many queries and pages).
///
/// Like `offsets()`, which stops tokenising after the last match the index lists, it can stop
/// early: given each phrase's number of occurrences in the page (matchinfo `x`'s "hits in this
/// row", read from the same position lists `offsets()` walks), it stops once it has found them all.
struct MatchLocator {
    /// One query token.
    private struct Term: Equatable {
        /// Its folded (and stemmed) UTF-8.
        var text: [UInt8]
        /// Whether it matches every token it begins.
        var prefix: Bool
    }

    /// Whether the index stems English words.
    private let stemming: Bool
    /// The distinct query tokens.
    private var terms: [Term] = []
    /// The phrases in expression order, as indices into `terms`.
    private var phrases: [[Int]] = []
    /// Each phrase's first token's index among all phrase tokens of the expression.
    private var phraseFirstToken: [Int] = []
    /// Scratch, reused from page to page: each token's byte range, by position.
    private var tokenRanges: [Range<Int>] = []
    /// Scratch: the positions where each of `terms` matches.
    private var termPositions: [[Int]] = []
    /// Scratch: (position, index of the phrase token in the expression) of every match.
    private var hits: [(position: Int, token: Int)] = []
    /// Scratch: occurrences found of each phrase.
    private var found: [Int] = []

    /// Whether every phrase is one ASCII word (and no stemming): then an ASCII page is matched by
    /// a byte-level scan that cuts words exactly as `TokenScanner` does for ASCII text.
    private var asciiOnly = false
    /// Which folded bytes begin a query token (words starting otherwise are skipped unread).
    private var termStarts: [Bool] = []

    /// The number of phrases (matchinfo's `p`).
    var phraseCount: Int { phrases.count }

    /// A locator for `match` (a compiled MATCH expression) over an index that stems or not.
    init(match: String, stemming: Bool, allowASCIIScan: Bool = true) {
        self.stemming = stemming
        var expression = match
        expression.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                guard bytes[index] == UInt8(ascii: "\"") else {
                    index += 1  // spaces and `OR` between phrases
                    continue
                }
                var close = index + 1
                while close < bytes.count && bytes[close] != UInt8(ascii: "\"") { close += 1 }
                addPhrase(UnsafeBufferPointer(rebasing: bytes[(index + 1)..<close]))
                index = close + 1
            }
        }
        termPositions = Array(repeating: [], count: terms.count)
        asciiOnly = allowASCIIScan && !stemming && phrases.allSatisfy { $0.count == 1 }
            && terms.allSatisfy { $0.text.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) } }
        termStarts = [Bool](repeating: false, count: 256)
        for term in terms where !term.text.isEmpty { termStarts[Int(term.text[0])] = true }
        var first = 0
        for phrase in phrases {
            phraseFirstToken.append(first)
            first += phrase.count
        }
    }

    /// Tokenises a quoted string as FTS's query parser does.
    private mutating func addPhrase(_ phrase: UnsafeBufferPointer<UInt8>) {
        var scanner = TokenScanner(phrase, stemming: stemming)
        var indices: [Int] = []
        while let token = scanner.next() {
            let upper = token.range.upperBound
            let term = Term(text: Array(scanner.text), prefix: upper < phrase.count && phrase[upper] == UInt8(ascii: "*"))
            if let known = terms.firstIndex(of: term) {
                indices.append(known)
            } else {
                indices.append(terms.count)
                terms.append(term)
            }
        }
        if !indices.isEmpty { phrases.append(indices) }
    }

    /// The byte ranges `offsets()` lists for a page whose UTF-8 text is `body`. With
    /// `occurrences` (each phrase's number of occurrences in the page, in expression order), the
    /// scan stops once they are all found; without, or when the count of phrases differs, it
    /// reads the whole page. With `windowBytes`, it also stops at the first token that starts
    /// more than `windowBytes` bytes after the first match (a preview shows no more than that).
    mutating func byteRanges(
        in body: UnsafeBufferPointer<UInt8>, occurrences: [Int]? = nil, windowBytes: Int? = nil
    ) -> [Range<Int>] {
        if asciiOnly, let ranges = asciiByteRanges(in: body, occurrences: occurrences, windowBytes: windowBytes) {
            return ranges
        }
        tokenRanges.removeAll(keepingCapacity: true)
        for index in termPositions.indices { termPositions[index].removeAll(keepingCapacity: true) }
        hits.removeAll(keepingCapacity: true)
        found.removeAll(keepingCapacity: true)
        found.append(contentsOf: repeatElement(0, count: phrases.count))
        let expected = occurrences?.count == phrases.count ? occurrences : nil
        // Occurrences still to find (up to the expected number per phrase).
        var remaining = expected.map { $0.reduce(0) { $0 + max($1, 0) } } ?? Int.max
        var scanner = TokenScanner(body, stemming: stemming)
        var windowEnd = Int.max
        while remaining > 0, let token = scanner.next() {
            if token.range.lowerBound > windowEnd { break }
            let position = token.position
            tokenRanges.append(token.range)
            let text = scanner.text
            var matchedAny = false
            for index in terms.indices where Self.matches(terms[index], text) {
                termPositions[index].append(position)
                matchedAny = true
            }
            guard matchedAny else { continue }
            // Phrases whose last token matches here: an occurrence ends here when every earlier
            // token matched at the positions before.
            for (number, phrase) in phrases.enumerated() {
                let last = phrase.count - 1
                guard position >= last, termPositions[phrase[last]].last == position else { continue }
                let start = position - last
                guard (0..<last).allSatisfy({ Self.contains(termPositions[phrase[$0]], start + $0) }) else { continue }
                for offset in 0...last { hits.append((start + offset, phraseFirstToken[number] + offset)) }
                if let windowBytes { windowEnd = min(windowEnd, tokenRanges[start].lowerBound + windowBytes) }
                found[number] += 1
                if let expected, found[number] <= expected[number] { remaining -= 1 }
            }
        }
        hits.sort { $0.position != $1.position ? $0.position < $1.position : $0.token < $1.token }
        return hits.map { tokenRanges[$0.position] }
    }

    /// `byteRanges` for one-word ASCII phrases over a page, or nil as soon as the page turns out
    /// not to be plain ASCII (the general scan then runs). Words are cut as `TokenScanner` cuts
    /// ASCII: runs of letters and digits, lower-cased, an apostrophe followed by a letter or digit
    /// joining (and dropped), at most `maximumTokenBytes` bytes of text kept. Words are compared
    /// in place; only a word with a joining apostrophe is copied out first.
    private mutating func asciiByteRanges(
        in body: UnsafeBufferPointer<UInt8>, occurrences: [Int]?, windowBytes: Int?
    ) -> [Range<Int>]? {
        found.removeAll(keepingCapacity: true)
        found.append(contentsOf: repeatElement(0, count: phrases.count))
        let expected = occurrences?.count == phrases.count ? occurrences : nil
        var remaining = expected.map { $0.reduce(0) { $0 + max($1, 0) } } ?? Int.max
        var matches: [(position: Int, phrase: Int, range: Range<Int>)] = []
        var windowEnd = Int.max
        var position = 0
        var index = 0
        let count = body.count
        let limit = SearchTokenizer.maximumTokenBytes
        let fold = Self.asciiFold
        let scratch = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: limit)
        defer { scratch.deallocate() }
        while remaining > 0 && index < count {
            let lead = body[index]
            if lead >= 0x80 { return nil }
            guard fold[Int(lead)] != 0 else {
                index += 1
                continue
            }
            let start = index
            if start > windowEnd { break }
            var end = index
            var joined = false
            while index < count {
                let byte = body[index]
                if byte >= 0x80 { return nil }
                if fold[Int(byte)] != 0 {
                    index += 1
                    end = index
                    continue
                }
                guard byte == 0x27, index + 1 < count else { break }
                let next = body[index + 1]
                if next >= 0x80 { return nil }
                guard fold[Int(next)] != 0 else { break }
                joined = true
                index += 1
            }
            index = end
            guard termStarts[Int(fold[Int(lead)])] else {
                position += 1
                continue
            }
            // The word's folded text: in place, or copied without its apostrophes.
            var textStart = start
            var textCount = min(end - start, limit)
            var source = body
            if joined {
                textCount = 0
                for offset in start..<end where body[offset] != 0x27 && textCount < limit {
                    scratch[textCount] = body[offset]
                    textCount += 1
                }
                textStart = 0
                source = UnsafeBufferPointer(scratch)
            }
            for (termIndex, term) in terms.enumerated() {
                let termCount = term.text.count
                guard term.prefix ? textCount >= termCount : textCount == termCount else { continue }
                var equal = true
                for offset in 0..<termCount where fold[Int(source[textStart + offset])] != term.text[offset] {
                    equal = false
                    break
                }
                guard equal else { continue }
                for (number, phrase) in phrases.enumerated() where phrase[0] == termIndex {
                    matches.append((position, number, start..<end))
                    found[number] += 1
                    if let expected, found[number] <= expected[number] { remaining -= 1 }
                    if let windowBytes { windowEnd = min(windowEnd, start + windowBytes) }
                }
            }
            position += 1
        }
        matches.sort { $0.position != $1.position ? $0.position < $1.position : $0.phrase < $1.phrase }
        return matches.map(\.range)
    }

    /// ASCII letters and digits lower-cased; 0 for every other byte.
    private static let asciiFold: [UInt8] = (0..<256).map { byte in
        switch byte {
        case 0x30...0x39, 0x61...0x7A: return UInt8(byte)
        case 0x41...0x5A: return UInt8(byte) | 0x20
        default: return 0
        }
    }

    /// Whether a page token's text matches a query token.
    @inline(__always)
    private static func matches(_ term: Term, _ text: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = term.text.count
        guard term.prefix ? text.count >= count : text.count == count else { return false }
        return term.text.withUnsafeBufferPointer { query in
            var index = 0
            while index < count {
                if query[index] != text[index] { return false }
                index += 1
            }
            return true
        }
    }

    /// Whether the ascending `positions` contain `position`.
    private static func contains(_ positions: [Int], _ position: Int) -> Bool {
        var low = 0, high = positions.count
        while low < high {
            let middle = (low + high) / 2
            if positions[middle] < position { low = middle + 1 } else { high = middle }
        }
        return low < positions.count && positions[low] == position
    }
}

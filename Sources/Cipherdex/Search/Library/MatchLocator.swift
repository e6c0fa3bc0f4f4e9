import Foundation

/// What FTS4 `offsets()` reports for a compiled MATCH expression, computed in Swift from a page's
/// text: the byte ranges of the tokens that make up each occurrence of each of its phrases.
///
/// `offsets()` re-runs the full-text query for the rows and re-tokenises every page through the
/// SQLite tokenizer interface; this tokenises the page once with `TokenScanner` directly. The
/// expression must be a `CompiledSearchQuery.match`: double-quoted strings joined by spaces (AND)
/// and `OR`. Each quoted string is cut exactly as FTS cuts it (our tokenizer; a token directly
/// followed by `*` is a prefix), and a phrase matches where its tokens are at consecutive
/// positions, each equal to (or, for a prefix, beginning with the bytes of) its query token. A
/// token directly preceded by `*` (which only `TopHits` reads, not FTS4: `TermPattern`) matches
/// the page tokens that end with it, or with a `*` after it too those that hold it, as the terms
/// `TopHits` reads for it: for an FTS4 run of such a query, the terms spelled out
/// (`PatternExpansion`) are the page tokens this finds.
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
        /// Whether it matches every token it ends (or, with `prefix`, every token that holds it).
        var suffix = false

        /// Which tokens it matches.
        var pattern: TermPattern.Kind { suffix ? (prefix ? .infix : .suffix) : (prefix ? .prefix : .term) }
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
    /// Each distinct first byte of a query token repeated in all eight bytes of a word, for the
    /// eight-bytes-at-a-time candidate test.
    private var firstBytePatterns: [UInt64] = []

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
        asciiOnly =
            allowASCIIScan && !stemming && phrases.allSatisfy { $0.count == 1 } && terms.allSatisfy { !$0.suffix }
            && terms.allSatisfy { $0.text.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) } }
        termStarts = [Bool](repeating: false, count: 256)
        for term in terms where !term.text.isEmpty { termStarts[Int(term.text[0])] = true }
        firstBytePatterns = (0..<256).filter { termStarts[$0] }.map { UInt64($0) &* 0x0101_0101_0101_0101 }
        var first = 0
        for phrase in phrases {
            phraseFirstToken.append(first)
            first += phrase.count
        }
    }

    /// Tokenises a quoted string as FTS's query parser does.
    private mutating func addPhrase(_ phrase: UnsafeBufferPointer<UInt8>) {
        var scanner = TokenScanner(phrase, stemming: stemming, joinsLineEndHyphens: false)
        var indices: [Int] = []
        while let token = scanner.next() {
            let upper = token.range.upperBound
            let lower = token.range.lowerBound
            let term = Term(
                text: Array(scanner.text), prefix: upper < phrase.count && phrase[upper] == UInt8(ascii: "*"),
                suffix: lower > 0 && phrase[lower - 1] == UInt8(ascii: "*"))
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
    /// reads the whole page. With `windowCharacters`, it may also stop at the first token that
    /// starts more than `windowCharacters` characters (grapheme clusters) after the first match:
    /// a preview shows no more than that. Matches nearer than that are always all listed.
    mutating func byteRanges(
        in body: UnsafeBufferPointer<UInt8>, occurrences: [Int]? = nil, windowCharacters: Int? = nil
    ) -> [Range<Int>] {
        if asciiOnly,
            let ranges = asciiByteRanges(in: body, occurrences: occurrences, windowCharacters: windowCharacters)
        {
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
        // Where the first match starts, and a guess in bytes of where the window ends.
        var firstMatch = Int.max
        var windowEnd = Int.max
        while remaining > 0, let token = scanner.next() {
            if let windowCharacters, token.range.lowerBound > windowEnd {
                // Past the guess; stop only if it is past the window in characters too.
                let between = UnsafeBufferPointer(rebasing: body[firstMatch..<token.range.lowerBound])
                if Self.characterCount(between) > windowCharacters { break }
                windowEnd = token.range.lowerBound + windowCharacters * Self.windowBytesPerCharacter
            }
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
                if let windowCharacters, tokenRanges[start].lowerBound < firstMatch {
                    firstMatch = tokenRanges[start].lowerBound
                    windowEnd = min(windowEnd, firstMatch + windowCharacters * Self.windowBytesPerCharacter)
                }
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
    /// joining (and dropped), at most `maximumTokenBytes` bytes of text kept.
    ///
    /// Only words that begin with the first letter of a query token can match, so the page is
    /// read eight bytes at a time: one test finds any non-ASCII byte, and a SWAR zero-byte test
    /// per distinct first letter finds the candidate bytes (case-folded with `| 0x20`; false
    /// candidates are dropped when checked). A candidate is a word start when the byte before
    /// it is no letter or digit and no joining apostrophe; its word is then cut and compared in
    /// place (a word with a joining apostrophe is copied out first). Every phrase is one word, so
    /// ordering matches by their byte offset is ordering them by token position.
    private mutating func asciiByteRanges(
        in body: UnsafeBufferPointer<UInt8>, occurrences: [Int]?, windowCharacters: Int?
    ) -> [Range<Int>]? {
        // A word hyphenated at a line end is one token, which only the general scan cuts.
        if Self.holdsLineEndHyphen(body) { return nil }
        found.removeAll(keepingCapacity: true)
        found.append(contentsOf: repeatElement(0, count: phrases.count))
        let expected = occurrences?.count == phrases.count ? occurrences : nil
        var remaining = expected.map { $0.reduce(0) { $0 + max($1, 0) } } ?? Int.max
        var matches: [(start: Int, phrase: Int, range: Range<Int>)] = []
        var windowEnd = Int.max
        let count = body.count
        guard count > 0, remaining > 0, let base = body.baseAddress else { return [] }
        let limit = SearchTokenizer.maximumTokenBytes
        let patterns = firstBytePatterns
        let isFirst = termStarts
        // For a word with joining apostrophes, copied out without them (allocated when needed).
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let ones: UInt64 = 0x0101_0101_0101_0101
        return Self.asciiFold.withUnsafeBufferPointer { fold -> [Range<Int>]? in
            /// Whether `byte` is a letter or digit (the caller has checked it is ASCII).
            @inline(__always) func isWord(_ byte: UInt8) -> Bool { fold[Int(byte)] != 0 }
            var scan = 0
            /// Candidates before this offset lie inside a word already cut.
            var wordEnd = 0
            scanning: while scan < count {
                var mask: UInt64 = 0
                let blockBytes = min(8, count - scan)
                if blockBytes == 8 {
                    let word = UnsafeRawPointer(base + scan).loadUnaligned(as: UInt64.self)
                    if word & highBits != 0 { return nil }
                    let folded = word | 0x2020_2020_2020_2020
                    for pattern in patterns {
                        let difference = folded ^ pattern
                        mask |= (difference &- ones) & ~difference & highBits
                    }
                } else {
                    for offset in 0..<blockBytes {
                        let byte = base[scan + offset]
                        if byte >= 0x80 { return nil }
                        if isFirst[Int(byte | 0x20)] { mask |= UInt64(0x80) << UInt64(8 * offset) }
                    }
                }
                var next = scan + blockBytes
                while mask != 0 {
                    let start = scan + mask.trailingZeroBitCount / 8
                    mask &= mask &- 1
                    guard start >= wordEnd, isWord(base[start]) else { continue }
                    if start > 0 && isWord(base[start - 1]) { continue }
                    if start > windowEnd { break scanning }
                    // Cut the word: letters and digits.
                    var index = start + 1
                    while index < count {
                        let byte = base[index]
                        if byte >= 0x80 { return nil }
                        guard isWord(byte) else { break }
                        index += 1
                    }
                    let end = index
                    wordEnd = end
                    next = max(next, end)
                    guard isFirst[Int(fold[Int(base[start])])] else { continue }
                    let text = UnsafeBufferPointer(start: base + start, count: min(end - start, limit))
                    for (termIndex, term) in terms.enumerated() {
                        let termCount = term.text.count
                        guard term.prefix ? text.count >= termCount : text.count == termCount else { continue }
                        var equal = true
                        for offset in 0..<termCount where fold[Int(text[offset])] != term.text[offset] {
                            equal = false
                            break
                        }
                        guard equal else { continue }
                        for (number, phrase) in phrases.enumerated() where phrase[0] == termIndex {
                            matches.append((start, number, start..<end))
                            found[number] += 1
                            if let expected, found[number] <= expected[number] { remaining -= 1 }
                            // ASCII characters are one byte, or two for CR LF.
                            if let windowCharacters { windowEnd = min(windowEnd, start + 2 * windowCharacters) }
                        }
                    }
                    if remaining <= 0 { break scanning }
                }
                scan = next
            }
            matches.sort { $0.start != $1.start ? $0.start < $1.start : $0.phrase < $1.phrase }
            return matches.map(\.range)
        }
    }

    /// Whether `body` holds a hyphen-minus directly followed by a line break (LF or CR), as
    /// every word hyphenated at a line end does (`TokenScanner`, revision 6).
    private static func holdsLineEndHyphen(_ body: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = body.baseAddress else { return false }
        var index = 0
        while index + 1 < body.count {
            guard let found = memchr(base + index, 0x2D, body.count - 1 - index) else { return false }
            let at = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
            if base[at + 1] == 0x0A || base[at + 1] == 0x0D { return true }
            index = at + 1
        }
        return false
    }

    /// The general scan's first guess of a window's size in bytes per character; a page whose
    /// characters are longer (clusters of combining marks) is measured before the scan stops.
    private static let windowBytesPerCharacter = 8

    /// The number of characters (grapheme clusters) in a run of UTF-8 that starts on a scalar.
    private static func characterCount(_ bytes: UnsafeBufferPointer<UInt8>) -> Int {
        String(decoding: bytes, as: UTF8.self).count
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
        if term.suffix {
            return term.text.withUnsafeBufferPointer { TermPattern.matches(text, kind: term.pattern, token: $0) }
        }
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
        var low = 0
        var high = positions.count
        while low < high {
            let middle = (low + high) / 2
            if positions[middle] < position { low = middle + 1 } else { high = middle }
        }
        return low < positions.count && positions[low] == position
    }
}

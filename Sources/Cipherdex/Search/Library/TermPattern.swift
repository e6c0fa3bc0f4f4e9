/// The index terms one query token stands for: the token itself, the terms it begins (`inv*`),
/// the terms it ends (`*ology`) or the terms that hold it (`*olog*`).
///
/// A compiled MATCH piece writes them as FTS4 writes a prefix: `"inv*"`, and with a `*` before
/// the token for the other two, `"*ology"` and `"*olog*"` (which FTS4 cannot read: `TopHits`
/// reads them itself, `PatternExpansion` spells them out for FTS4). A one-character run of a
/// bigram script is compiled as `"*装*"` alone and `"*装 java"` before other text
/// (`SearchQuery.compiled(stemming:readingPatterns:)`): a run of two characters or more is
/// indexed as its pairs (`请安装` → `请安`, `安装`), so every token of `装` holds it — the
/// character alone (a run of one), the pairs it starts and the pairs it ends — and a character
/// that other text follows must end its run: alone, or ending a pair.
///
/// Ends-with and inner patterns are not looked up but scanned for: every term of the vocabulary
/// is compared (`FTS4Postings.forEachDoclist`), from `lowestTerm` on.
struct TermPattern: Equatable, Sendable {
    /// How the token's bytes stand in a term it stands for.
    enum Kind: Equatable, Sendable {
        /// The term is the token.
        case term
        /// The term begins with the token.
        case prefix
        /// The term ends with the token (or is the token).
        case suffix
        /// The term holds the token anywhere (or is the token).
        case infix
    }

    /// The token as the tokenizer writes it into the index (folded UTF-8).
    let bytes: [UInt8]
    /// Which terms it stands for.
    let kind: Kind
    /// The lowest term a scan must read: U+0E00 when the token begins with a character of a
    /// bigram script (from U+0E01 on; such a character is only ever in a token of those scripts,
    /// a character alone or a pair, and every one of them sorts from U+0E00 on), else the start
    /// of the vocabulary. So on an index of Latin text a one-character CJK query reads almost
    /// nothing, and on one of CJK text only that part of the vocabulary.
    let lowestTerm: [UInt8]
    /// Whether the token begins with a Han character or Hangul syllable (`singleFoldBlocks`):
    /// only then may a scan skip leaves inside the bigram scripts' part (`mayHoldMatch`).
    private let skipsLeaves: Bool

    /// A pattern of `kind`.
    init(bytes: [UInt8], kind: Kind) {
        self.bytes = bytes
        self.kind = kind
        let first = String(decoding: bytes, as: UTF8.self).unicodeScalars.first?.value
        lowestTerm = first.map(ScalarClass.isCJK) == true ? Self.bigramScriptsStart : []
        skipsLeaves = first.map { value in Self.singleFoldBlocks.contains { $0.contains(value) } } == true
    }

    /// The token itself, or with `prefix` every term it begins.
    init(bytes: [UInt8], prefix: Bool) {
        self.init(bytes: bytes, kind: prefix ? .prefix : .term)
    }

    /// True when the token stands for every term it begins.
    var prefix: Bool { kind == .prefix }

    /// True when the terms are found by reading the vocabulary rather than by seeking to them.
    var scans: Bool { kind == .suffix || kind == .infix }

    /// Whether `term` (an index term's bytes) is one the token stands for.
    func matches(_ term: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.withUnsafeBufferPointer { Self.matches(term, kind: kind, token: $0) }
    }

    /// Whether `term` is one that `token` stands for as a pattern of `kind`.
    static func matches(_ term: UnsafeBufferPointer<UInt8>, kind: Kind, token: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = token.count
        guard term.count >= count else { return false }
        switch kind {
        case .term: return term.count == count && equal(term, from: 0, token)
        case .prefix: return equal(term, from: 0, token)
        case .suffix: return equal(term, from: term.count - count, token)
        case .infix:
            guard let first = token.first else { return true }
            var start = 0
            while start <= term.count - count {
                if term[start] == first && equal(term, from: start, token) { return true }
                start += 1
            }
            return false
        }
    }

    /// `matches` of an array.
    func matches(_ term: [UInt8]) -> Bool {
        term.withUnsafeBufferPointer { matches($0) }
    }

    /// Whether `term[start...]` begins with `token`.
    @inline(__always)
    private static func equal(_ term: UnsafeBufferPointer<UInt8>, from start: Int, _ token: UnsafeBufferPointer<UInt8>)
        -> Bool
    {
        var index = 0
        while index < token.count {
            if term[start + index] != token[index] { return false }
            index += 1
        }
        return true
    }

    /// Whether a leaf whose terms are all at or above `low` and below `high` (nil: no bound) may
    /// hold a term a scan for this pattern wants: false when every such term is below
    /// `lowestTerm`, and for a Han character or Hangul syllable `C` when the bounds rule out every
    /// term that begins with `C` (it alone, or with marks, or a pair it starts) and every pair
    /// `P C` (`P` one character) or `P M C` (`M` marks attached to `P`: voicing marks, variation
    /// selectors). Such a `C` is never inside a character's fold, only ever its start (kana and
    /// Thai may be: `ゟ` folds to `より`, so `九ゟ` is indexed `九より`, which holds `り`).
    ///
    /// When `low` and `high` share their first scalar `P`, so does every term between them. If
    /// `P` is Han or a Hangul syllable too (no character folds to it and more), a term's next
    /// scalar after `P` is a mark or begins its second character, so a wanted term begins with
    /// `P C` or has a mark second. That is ruled out when no term between the bounds
    /// begins with `P C` and either the bounds share a second scalar that is no mark, or their
    /// second scalars lie in one block where every scalar is a character (`markFreeBlocks`).
    /// Anything else may hold one. So a common first character's leaves are read only where
    /// `P C` is (`TermPatternTests` checks the rule against vocabularies cut as FTS4 cuts them).
    func mayHoldMatch(from low: [UInt8], below high: [UInt8]?) -> Bool {
        guard let high else { return true }
        guard lowestTerm.lexicographicallyPrecedes(high) else { return false }
        guard skipsLeaves else { return true }
        /// Whether a term between the bounds may begin with `prefix`.
        func mayBegin(with prefix: [UInt8]) -> Bool {
            low.starts(with: prefix)
                || (!prefix.lexicographicallyPrecedes(low) && prefix.lexicographicallyPrecedes(high))
        }
        if mayBegin(with: bytes) { return true }
        let shared = Self.sharedScalars(low, high)
        guard let first = shared.first, Self.singleFoldBlocks.contains(where: { $0.contains(first.value) }) else {
            return true
        }
        let firstBytes = Array(String(first).utf8)
        if mayBegin(with: firstBytes + bytes) { return true }
        if shared.count >= 2 { return !ScalarClass.isCJK(shared[1].value) }
        // Every term has `first` first: a mark second only if the seconds' span allows one.
        guard let lowest = Self.scalarBound(low[firstBytes.count...], padding: 0x80),
            let highest = Self.scalarBound(high[firstBytes.count...], padding: 0xBF)
        else { return true }
        return !Self.markFreeBlocks.contains { $0.contains(lowest) && $0.contains(highest) }
    }

    /// The whole scalars `a` and `b` begin with alike.
    static func sharedScalars(_ a: [UInt8], _ b: [UInt8]) -> [Unicode.Scalar] {
        var common = 0
        while common < a.count && common < b.count && a[common] == b[common] { common += 1 }
        var scalars: [Unicode.Scalar] = []
        var index = 0
        while index < common {
            let length = sequenceLength(a[index])
            guard length > 0, index + length <= common,
                let scalar = String(validating: a[index..<(index + length)], as: UTF8.self)?.unicodeScalars.first
            else { break }
            scalars.append(scalar)
            index += length
        }
        return scalars
    }

    /// The value of the first scalar of `bytes`, its missing bytes taken as `padding` (0x80 for
    /// the least scalar it may begin, 0xBF for the greatest); nil when `bytes` is empty or does
    /// not begin with a lead byte.
    static func scalarBound(_ bytes: ArraySlice<UInt8>, padding: UInt8) -> UInt32? {
        guard let lead = bytes.first else { return nil }
        let length = sequenceLength(lead)
        guard length > 0 else { return nil }
        if length == 1 { return UInt32(lead) }
        var value = UInt32(lead) & (0x7F >> UInt32(length))
        for offset in 1..<length {
            let index = bytes.startIndex + offset
            let byte = index < bytes.endIndex ? bytes[index] : padding
            value = value << 6 | UInt32(byte & 0x3F)
        }
        return value
    }

    /// The length of the UTF-8 sequence `lead` begins, 0 for a byte that begins none.
    private static func sequenceLength(_ lead: UInt8) -> Int {
        switch lead {
        case 0x00...0x7F: 1
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: 0
        }
    }

    /// Han and Hangul syllable blocks: no character of a bigram script folds to several scalars
    /// one of which is in them (kana and Thai may: `ゟ` folds to `より`, `ำ` to U+0E4D U+0E32;
    /// `TermPatternTests` checks every one).
    static let singleFoldBlocks: [ClosedRange<UInt32>] = [
        0x3400...0x4DBF, 0x4E00...0x9FFF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0x20000...0x2FA1F, 0x30000...0x323AF,
    ]

    /// Blocks in which every scalar is a character of a bigram script (`ScalarClass.isCJK`), so
    /// none is a mark (`TermPatternTests` checks every one).
    static let markFreeBlocks: [ClosedRange<UInt32>] = singleFoldBlocks + [0x3041...0x3096, 0x30A1...0x30FA]

    /// U+0E00 in UTF-8: no character of a bigram script sorts below it.
    static let bigramScriptsStart: [UInt8] = [0xE0, 0xB8, 0x80]
}

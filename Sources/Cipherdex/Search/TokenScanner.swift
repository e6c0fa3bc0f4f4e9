/// The segmentation engine behind `SearchTokenizer`: walks UTF-8 bytes once and produces tokens on
/// demand, so the FTS module can stream a large document without materialising every token.
///
/// The buffer must stay valid while the scanner is used (SQLite guarantees that for an FTS cursor;
/// `SearchTokenizer.tokens(in:)` scans inside `withUTF8`).
///
/// The hot path allocates nothing: the current token's folded text lives in `text`, a buffer the
/// scanner owns and reuses (valid until the next call of `next()`); ASCII letters and digits are
/// lower-cased straight into it; non-ASCII folds come from `Folding`'s cache; a CJK run's folded
/// characters go into another reused buffer and its bigrams are produced one by one; stemming
/// works in place. Output is byte-for-byte that of the previous implementation (kept as
/// `ReferenceTokenizer` in the tests, which compare both). Not copyable: it owns its buffer.
struct TokenScanner: ~Copyable {
    /// A token's place in the input; its folded text is `TokenScanner.text`.
    struct RawToken: Equatable {
        /// Byte range in the input.
        var range: Range<Int>
        /// Ordinal position.
        var position: Int
        /// Word, CJK bigram or CJK unigram.
        var kind: SearchToken.Kind
    }

    /// One CJK character (with any marks attached) of the run being bigrammed.
    private struct CJKUnit {
        /// Byte range in the input.
        var range: Range<Int>
        /// Its folded UTF-8 in `cjkText`.
        var text: Range<Int>
    }

    /// The input.
    private let input: UnsafeBufferPointer<UInt8>
    /// Whether ASCII words are Porter-stemmed.
    private let stemming: Bool
    /// The next byte to look at.
    private var offset = 0
    /// The next token's position.
    private var position = 0
    /// The current token's folded UTF-8 (`textCount` bytes of `capacity`).
    private var storage: UnsafeMutablePointer<UInt8>
    /// Bytes of `storage` in use.
    private var textCount = 0
    /// Bytes allocated at `storage`.
    private var capacity: Int
    /// The characters of the last CJK run.
    private var cjkUnits: [CJKUnit] = []
    /// The folded UTF-8 of the last CJK run's characters, one after another.
    private var cjkText: [UInt8] = []
    /// The next bigram of the last CJK run to return (its first character's index in `cjkUnits`).
    private var cjkNext = 0
    /// A CJK character and its marks, when it has marks.
    private var cjkScalars: [Unicode.Scalar] = []
    /// Whether a word goes on across a hyphen at a line end (revision 6; `hyphenBreakResumption`).
    private let joinsLineEndHyphens: Bool

    /// A scanner over `input`. Without `joinsLineEndHyphens` (a query's text), a hyphen before a
    /// line break separates words as any hyphen does.
    init(_ input: UnsafeBufferPointer<UInt8>, stemming: Bool, joinsLineEndHyphens: Bool = true) {
        self.input = input
        self.stemming = stemming
        self.joinsLineEndHyphens = joinsLineEndHyphens
        capacity = SearchTokenizer.maximumTokenBytes * 2 + 16
        storage = .allocate(capacity: capacity)
    }

    deinit { storage.deallocate() }

    /// The folded UTF-8 text of the token `next()` returned last, valid until the next call of
    /// `next()` (or the end of the scanner).
    var text: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: storage, count: textCount) }

    /// Appends `bytes` to the current token's text.
    private mutating func append<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        let needed = textCount + bytes.count
        if needed > capacity {
            let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: needed * 2)
            grown.update(from: storage, count: textCount)
            storage.deallocate()
            storage = grown
            capacity = needed * 2
        }
        var index = textCount
        for byte in bytes {
            storage[index] = byte
            index += 1
        }
        textCount = needed
    }

    /// The next token (its text in `text`), or nil at the end of the input.
    mutating func next() -> RawToken? {
        if cjkNext + 1 < cjkUnits.count { return nextBigram() }
        let inputCount = input.count
        while offset < inputCount {
            let lead = input[offset]
            if lead < 0x80 {
                // ASCII: a letter or digit starts a word; anything else separates.
                if Self.asciiFolded(lead) != 0 {
                    if let token = scanWord() { return token }
                } else {
                    offset += 1
                }
                continue
            }
            let (scalar, length) = decode(at: offset)
            switch scalar.map(ScalarClass.of) ?? .separator {
            case .letter:
                if let token = scanWord() { return token }
            case .cjk:
                return scanCJKRun()
            case .separator, .mark, .ignorable:
                offset += length
            }
        }
        return nil
    }

    /// The lower-cased ASCII letter or digit `byte`, or 0 when it is neither.
    @inline(__always)
    private static func asciiFolded(_ byte: UInt8) -> UInt8 {
        switch byte {
        case 0x30...0x39, 0x61...0x7A: return byte
        case 0x41...0x5A: return byte | 0x20
        default: return 0
        }
    }

    /// Scans the word starting at `offset`; nil when it folds to nothing.
    private mutating func scanWord() -> RawToken? {
        let start = offset
        var end = offset
        let inputCount = input.count
        let limit = SearchTokenizer.maximumTokenBytes
        textCount = 0
        var truncated = false
        var index = offset
        while index < inputCount {
            let byte = input[index]
            if byte < 0x80 {
                let folded = Self.asciiFolded(byte)
                if folded != 0 {
                    if !truncated {
                        // limit < capacity, so the byte always fits.
                        if textCount + 1 > limit {
                            truncated = true
                        } else {
                            storage[textCount] = folded
                            textCount += 1
                        }
                    }
                    index += 1
                    end = index
                    continue
                }
                // A hyphen at a line end before the rest of the word: the word goes on (revision 6).
                if byte == UInt8(ascii: "-"), joinsLineEndHyphens, let resume = hyphenBreakResumption(after: index) {
                    index = resume
                    continue
                }
                break
            }
            let step = scanNonASCII(at: index, truncated: &truncated)
            if step > 0 {
                index += step
                end = index
            } else if step < 0 {
                index -= step
            } else {
                break
            }
        }
        offset = end
        guard textCount > 0 else { return nil }
        if stemming, text.allSatisfy({ $0 >= 0x61 && $0 <= 0x7A }) {
            textCount = PorterStemmer.stem(
                UnsafeMutableBufferPointer(start: storage, count: capacity), count: textCount)
        }
        defer { position += 1 }
        return RawToken(range: start..<end, position: position, kind: .word)
    }

    /// Where a word goes on after the hyphen-minus at `hyphen` (revision 6): when one line break
    /// (LF, CR LF or CR) directly follows it, then any spaces and tabs, then a letter or digit of
    /// a script that separates words, that letter's offset; nil otherwise. PDF text keeps the
    /// hyphen a reader sees at a line end (`log-⏎likelihood`, `com-⏎puter`), which poppler's text
    /// used to drop, joining the parts: the word is cut as it was then, one token at one position
    /// (`loglikelihood`, `computer`), its byte range covering both parts. `log-likelihood` finds it
    /// too: a hyphenated query term also looks for each of its hyphens taken out
    /// (`SearchQuery.compiled`).
    private func hyphenBreakResumption(after hyphen: Int) -> Int? {
        let count = input.count
        var index = hyphen + 1
        guard index < count, input[index] == 0x0A || input[index] == 0x0D else { return nil }
        if input[index] == 0x0D, index + 1 < count, input[index + 1] == 0x0A { index += 1 }
        index += 1
        while index < count, input[index] == 0x20 || input[index] == 0x09 { index += 1 }
        guard index < count else { return nil }
        if input[index] < 0x80 { return Self.asciiFolded(input[index]) != 0 ? index : nil }
        let (scalar, _) = decode(at: index)
        return scalar.map(ScalarClass.of) == .letter ? index : nil
    }

    /// One non-ASCII scalar inside a word: a letter or mark is folded onto the text (unless
    /// `truncated`) and its length returned; a format character is skipped (minus its length:
    /// the word goes on, but does not end on it); anything else ends the word (0). Kept out of
    /// line so `scanWord`'s ASCII loop stays small.
    @inline(never)
    private mutating func scanNonASCII(at index: Int, truncated: inout Bool) -> Int {
        let (scalar, length) = decode(at: index)
        guard let scalar else { return 0 }
        let kind = ScalarClass.of(scalar)
        if kind == .ignorable {
            // A soft hyphen at a line end: the word goes on after the line break (revision 4).
            if scalar.value == 0xAD,
                let resume = ScalarClass.softHyphenResumption(
                    after: index + length, count: input.count, decode: { decode(at: $0) })
            {
                return -(resume - index)
            }
            if ScalarClass.closesDirection(scalar.value),
                ScalarClass.directionalBoundary(at: index, count: input.count, decode: { decode(at: $0) })
            {
                return 0
            }
            return -length
        }
        guard kind == .letter || kind == .mark else { return 0 }
        if !truncated {
            let folded = Folding.fold(scalar)
            if textCount + folded.count > SearchTokenizer.maximumTokenBytes {
                truncated = true
            } else {
                append(folded)
            }
        }
        return length
    }

    /// Scans the CJK run starting at `offset` and returns its first token: a unigram for a run of
    /// one character, else its first bigram (the others follow from `nextBigram()`). Format
    /// characters inside the run are skipped, and in scripts written without spaces the run goes
    /// on across white space (extraction puts spaces and line breaks between their characters;
    /// the zero-width space marks word breaks: `ScalarClass.isRunSpace`). A decomposed Thai or
    /// Lao AM is one character, as the composed one is (`ScalarClass.composedAM`); decomposed
    /// Hangul (a leading consonant, then its conjoining vowel and final) is one character, the
    /// syllable its NFKC composes (`ScalarClass.isHangulTrailing`, revision 7).
    private mutating func scanCJKRun() -> RawToken {
        cjkUnits.removeAll(keepingCapacity: true)
        cjkText.removeAll(keepingCapacity: true)
        let inputCount = input.count
        var index = offset
        /// The end of the last character of the run.
        var runEnd = offset
        run: while index < inputCount {
            let (scalar, length) = decode(at: index)
            guard let scalar else { break }
            switch ScalarClass.of(scalar) {
            case .cjk:
                break
            case .ignorable:
                if ScalarClass.closesDirection(scalar.value),
                    ScalarClass.directionalBoundary(at: index, count: inputCount, decode: { decode(at: $0) })
                {
                    break run
                }
                index += length
                continue run
            default:
                guard ScalarClass.isRunSpace(scalar.value), let last = cjkUnits.last,
                    ScalarClass.joinsAcrossSpace(decode(at: last.range.lowerBound).0?.value ?? 0),
                    let resume = runResumption(after: index), ScalarClass.joinsAcrossSpace(resume.value)
                else { break run }
                index = resume.index
                continue run
            }
            let start = index
            index += length
            var character = scalar
            // NIKHAHIT + AA is the AM vowel, one character (revision 5).
            if ScalarClass.isNikhahit(scalar.value), index < inputCount {
                let (next, nextLength) = decode(at: index)
                if let next, let composed = ScalarClass.composedAM(scalar.value, next.value) {
                    character = composed
                    index += nextLength
                }
            }
            cjkScalars.removeAll(keepingCapacity: true)
            // Marks belong to the character; so do conjoining Hangul vowels and finals after a
            // leading consonant or a syllable (decomposed Hangul, revision 7).
            let takesJamo = ScalarClass.isHangulBase(character.value)
            while index < inputCount {
                let (mark, markLength) = decode(at: index)
                guard let mark,
                    ScalarClass.of(mark) == .mark || (takesJamo && ScalarClass.isHangulTrailing(mark.value))
                else { break }
                if cjkScalars.isEmpty { cjkScalars.append(character) }
                cjkScalars.append(mark)
                index += markLength
            }
            let textStart = cjkText.count
            if cjkScalars.isEmpty {
                Folding.appendFoldCJK(of: character, to: &cjkText)
            } else {
                Folding.appendFoldCJK(of: cjkScalars, to: &cjkText)
            }
            cjkUnits.append(CJKUnit(range: start..<index, text: textStart..<cjkText.count))
            runEnd = index
        }
        index = runEnd
        offset = index
        cjkNext = 0
        if cjkUnits.count == 1 {
            let unit = cjkUnits[0]
            textCount = 0
            append(cjkText[unit.text])
            cjkNext = 1
            defer { position += 1 }
            return RawToken(range: unit.range, position: position, kind: .cjkUnigram)
        }
        return nextBigram()
    }

    /// Where a bigram run resumes after the white space at `index`: the offset and value of the
    /// first bigram-script character past the white space (and format characters), or nil when
    /// something else comes first.
    private func runResumption(after index: Int) -> (index: Int, value: UInt32)? {
        var index = index
        while index < input.count {
            let (scalar, length) = decode(at: index)
            guard let scalar else { return nil }
            if ScalarClass.isRunSpace(scalar.value) || ScalarClass.of(scalar) == .ignorable {
                index += length
                continue
            }
            return ScalarClass.of(scalar) == .cjk ? (index, scalar.value) : nil
        }
        return nil
    }

    /// The next bigram of the current CJK run (there must be one).
    private mutating func nextBigram() -> RawToken {
        let first = cjkUnits[cjkNext]
        let second = cjkUnits[cjkNext + 1]
        cjkNext += 1
        textCount = 0
        append(cjkText[first.text])
        append(cjkText[second.text])
        defer { position += 1 }
        return RawToken(range: first.range.lowerBound..<second.range.upperBound, position: position, kind: .cjkBigram)
    }

    /// Decodes the scalar at `index`: nil (and a length of 1) for an invalid or truncated
    /// sequence, which then separates tokens.
    @inline(__always)
    private func decode(at index: Int) -> (Unicode.Scalar?, Int) {
        let lead = input[index]
        if lead < 0x80 { return (Unicode.Scalar(lead), 1) }
        let length: Int
        let minimum: UInt32
        var value: UInt32
        switch lead {
        case 0xC2...0xDF: (length, minimum, value) = (2, 0x80, UInt32(lead & 0x1F))
        case 0xE0...0xEF: (length, minimum, value) = (3, 0x800, UInt32(lead & 0x0F))
        case 0xF0...0xF4: (length, minimum, value) = (4, 0x10000, UInt32(lead & 0x07))
        default: return (nil, 1)
        }
        guard index + length <= input.count else { return (nil, 1) }
        for next in (index + 1)..<(index + length) {
            let byte = input[next]
            guard byte & 0xC0 == 0x80 else { return (nil, 1) }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return (nil, 1) }
        return (scalar, length)
    }
}

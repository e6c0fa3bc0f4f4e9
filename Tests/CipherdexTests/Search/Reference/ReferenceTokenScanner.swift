// A verbatim copy of the tokenizer before the fast path (commit dd3d0af), kept as the
// reference the equivalence tests compare the production tokenizer with. Do not optimise.

@testable import Cipherdex
@testable import CipherdexStore

/// The segmentation engine behind `SearchTokenizer`: walks UTF-8 bytes once and produces tokens on
/// demand, so the FTS module can stream a large document without materialising every token.
///
/// The buffer must stay valid while the scanner is used (SQLite guarantees that for an FTS cursor;
/// `SearchTokenizer.tokens(in:)` scans inside `withUTF8`).
struct ReferenceTokenScanner {
    /// A token before conversion to `SearchToken`: its folded text as UTF-8 bytes.
    struct RawToken {
        /// Folded UTF-8 text.
        var text: [UInt8]
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
        /// Folded UTF-8 text.
        var text: [UInt8]
        /// The character's scalar value.
        var first: UInt32
    }

    /// The input.
    private let input: UnsafeBufferPointer<UInt8>
    /// Whether ASCII words are Porter-stemmed.
    private let stemming: Bool
    /// The next byte to look at.
    private var offset = 0
    /// The next token's position.
    private var position = 0
    /// Tokens of the last CJK run not yet returned.
    private var pending: [RawToken] = []
    /// The next index into `pending`.
    private var pendingIndex = 0

    /// A scanner over `input`.
    init(_ input: UnsafeBufferPointer<UInt8>, stemming: Bool) {
        self.input = input
        self.stemming = stemming
    }

    /// The next token, or nil at the end of the input.
    mutating func next() -> RawToken? {
        while true {
            if pendingIndex < pending.count {
                defer { pendingIndex += 1 }
                return pending[pendingIndex]
            }
            guard offset < input.count else { return nil }
            let (scalar, length) = decode(at: offset)
            switch scalar.map(ReferenceScalarClass.of) ?? .separator {
            case .letter:
                if let token = scanWord() { return token }
            case .cjk:
                scanCJKRun()
            case .separator, .mark, .ignorable:
                offset += length
            }
        }
    }

    /// The letter after the white space at `index` when that white space holds a line break.
    private func softHyphenResumption(after index: Int) -> Int? {
        var index = index
        var sawBreak = false
        while index < input.count {
            let (scalar, length) = decode(at: index)
            guard let scalar else { return nil }
            if ["\n", "\r", "\u{0B}", "\u{0C}", "\u{85}", "\u{2028}", "\u{2029}"].contains(scalar) {
                sawBreak = true
            } else if !(scalar == " " || scalar == "\t" || scalar == "\u{A0}") {
                return sawBreak && ReferenceScalarClass.of(scalar) == .letter ? index : nil
            }
            index += length
        }
        return nil
    }

    /// Revision 6: the letter after the line break at `index` (LF, CR LF or CR, then spaces or
    /// tabs), or nil.
    private func lineEndHyphenResumption(after index: Int) -> Int? {
        var index = index
        if input[index...].starts(with: [0x0D, 0x0A]) {
            index += 2
        } else if index < input.count, input[index] == 0x0A || input[index] == 0x0D {
            index += 1
        } else {
            return nil
        }
        while index < input.count, input[index] == 0x20 || input[index] == 0x09 { index += 1 }
        guard index < input.count, let scalar = decode(at: index).0 else { return nil }
        return ReferenceScalarClass.of(scalar) == .letter ? index : nil
    }

    /// Scans the word starting at `offset`; nil when it folds to nothing.
    private mutating func scanWord() -> RawToken? {
        let start = offset
        var end = offset
        var text: [UInt8] = []
        var truncated = false
        var index = offset
        while index < input.count {
            let (scalar, length) = decode(at: index)
            guard let scalar else { break }
            let kind = ReferenceScalarClass.of(scalar)
            // Revision 6: a hyphen, one line break, spaces or tabs, a letter: one word.
            if scalar == "-", let resume = lineEndHyphenResumption(after: index + length) {
                index = resume
                continue
            }
            if kind == .ignorable {
                // A soft hyphen, white space with a line break, a letter: one word.
                if scalar.value == 0xAD, let resume = softHyphenResumption(after: index + length) {
                    index = resume
                    continue
                }
                // The end of one bidi run and the start of the next separate words.
                if ReferenceScalarClass.directionalBoundary(at: index, count: input.count, decode: { decode(at: $0) }) {
                    break
                }
                // Format characters are invisible: skipped, the word goes on.
                index += length
                continue
            }
            guard kind == .letter || kind == .mark else { break }
            if !truncated {
                let folded = ReferenceFolding.fold(scalar)
                if text.count + folded.count > SearchTokenizer.maximumTokenBytes {
                    truncated = true
                } else {
                    text.append(contentsOf: folded)
                }
            }
            index += length
            end = index
        }
        offset = end
        guard !text.isEmpty else { return nil }
        if stemming, text.allSatisfy({ $0 >= 0x61 && $0 <= 0x7A }) {
            text = ReferencePorterStemmer.stem(text)
        }
        defer { position += 1 }
        return RawToken(text: text, range: start..<end, position: position, kind: .word)
    }

    /// Scans the CJK run starting at `offset` into `pending` (bigrams, or one unigram).
    private mutating func scanCJKRun() {
        var units: [CJKUnit] = []
        var index = offset
        var runEnd = offset
        while index < input.count {
            let (scalar, length) = decode(at: index)
            guard let scalar else { break }
            let kind = ReferenceScalarClass.of(scalar)
            // Revision 6: a hyphen, one line break, spaces or tabs, a letter: one word.
            if scalar == "-", let resume = lineEndHyphenResumption(after: index + length) {
                index = resume
                continue
            }
            if kind == .ignorable {
                if ReferenceScalarClass.directionalBoundary(at: index, count: input.count, decode: { decode(at: $0) }) {
                    break
                }
                index += length
                continue
            }
            if kind != .cjk {
                // White space inside a run of a script written without spaces: look past it.
                guard ReferenceScalarClass.isRunSpace(scalar.value), let last = units.last?.first,
                    ReferenceScalarClass.joinsAcrossSpace(last)
                else { break }
                var look = index
                var resumed = false
                while look < input.count {
                    let (next, nextLength) = decode(at: look)
                    guard let next else { break }
                    if ReferenceScalarClass.isRunSpace(next.value) || ReferenceScalarClass.of(next) == .ignorable {
                        look += nextLength
                        continue
                    }
                    resumed = ReferenceScalarClass.of(next) == .cjk && ReferenceScalarClass.joinsAcrossSpace(next.value)
                    break
                }
                guard resumed else { break }
                index = look
                continue
            }
            let start = index
            var scalars = [scalar]
            index += length
            // Revision 5: NIKHAHIT + AA (Thai, Lao) is the AM vowel.
            if index < input.count, let next = decode(at: index).0 {
                let pair = (scalar.value, next.value)
                let am: Unicode.Scalar? =
                    pair == (0x0E4D, 0x0E32) ? "\u{0E33}" : pair == (0x0ECD, 0x0EB2) ? "\u{0EB3}" : nil
                if let am {
                    scalars = [am]
                    index += decode(at: index).1
                }
            }
            // Revision 7: conjoining Hangul vowels and finals belong to a leading consonant or
            // syllable before them, as marks do.
            let base = scalars[0].value
            let takesJamo =
                (0x1100...0x115F).contains(base) || (0xA960...0xA97F).contains(base)
                || (0xAC00...0xD7A3).contains(base)
            while index < input.count {
                let (mark, markLength) = decode(at: index)
                guard let mark else { break }
                let jamo = (0x1160...0x11FF).contains(mark.value) || (0xD7B0...0xD7FF).contains(mark.value)
                guard ReferenceScalarClass.of(mark) == .mark || (takesJamo && jamo) else { break }
                scalars.append(mark)
                index += markLength
            }
            units.append(CJKUnit(range: start..<index, text: ReferenceFolding.foldCJK(scalars), first: scalar.value))
            runEnd = index
        }
        offset = runEnd
        pending.removeAll(keepingCapacity: true)
        pendingIndex = 0
        if units.count == 1 {
            pending.append(RawToken(text: units[0].text, range: units[0].range, position: position, kind: .cjkUnigram))
            position += 1
            return
        }
        for pair in 0..<max(units.count - 1, 0) {
            let first = units[pair]
            let second = units[pair + 1]
            pending.append(
                RawToken(
                    text: first.text + second.text, range: first.range.lowerBound..<second.range.upperBound,
                    position: position, kind: .cjkBigram))
            position += 1
        }
    }

    /// Decodes the scalar at `index`: nil (and a length of 1) for an invalid or truncated
    /// sequence, which then separates tokens.
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

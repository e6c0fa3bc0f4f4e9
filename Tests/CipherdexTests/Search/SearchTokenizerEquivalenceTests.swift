import CipherdexPDFWriter
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// The fast tokenizer (`TokenScanner`) against the implementation it replaced (`ReferenceTokenizer`,
/// a verbatim copy in `Reference/`): the same token bytes, byte ranges, positions and kinds, with
/// and without stemming, on a large seeded random corpus of mixed scripts and on invalid UTF-8.
final class SearchTokenizerEquivalenceTests: XCTestCase {
    /// One token as raw bytes, so no String normalisation or repair can hide a difference.
    struct Observed: Equatable, CustomStringConvertible {
        var text: [UInt8]
        var range: Range<Int>
        var position: Int
        var kind: SearchToken.Kind

        var description: String { "\(String(decoding: text, as: UTF8.self)) \(range) #\(position) \(kind)" }
    }

    /// A small deterministic generator (SplitMix64), so every run checks the same corpus.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func fast(_ bytes: [UInt8], stemming: Bool) -> [Observed] {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = TokenScanner(buffer, stemming: stemming)
            var tokens: [Observed] = []
            while let token = scanner.next() {
                tokens.append(Observed(text: Array(scanner.text), range: token.range, position: token.position, kind: token.kind))
            }
            return tokens
        }
    }

    static func reference(_ bytes: [UInt8], stemming: Bool) -> [Observed] {
        bytes.withUnsafeBufferPointer { buffer in
            var scanner = ReferenceTokenScanner(buffer, stemming: stemming)
            var tokens: [Observed] = []
            while let token = scanner.next() {
                tokens.append(Observed(text: token.text, range: token.range, position: token.position, kind: token.kind))
            }
            return tokens
        }
    }

    /// Fragments of every kind of text the tokenizer treats specially.
    static let fragments: [String] = [
        // ASCII words, digits, punctuation, apostrophes (ASCII, U+2019, U+02BC) in every place.
        "Hello", "WORLD", "running", "Connections", "happiness", "generalizations", "oscillators", "abc123", "3.14",
        "2024", "e-mail_x", "don't", "rock’n’roll", "l'été", "'quoted'", "it'", "'s", "x''y", "a'1", "ʼokina", "o'",
        "’", "'", "ponies", "caresses", "agreed", "hopping", "sky", "rational", "ize", "is", "a", "i", "ies", "sses",
        "eed", "bled", "ing", "electrical", "relational", "vietnamization", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "zZ9",
        // Latin with diacritics, precomposed and decomposed, letters without a decomposition.
        "Crème", "Brûlée", "ÉCOLE", "Straße", "STRASSE", "Øresund", "Æther", "naïve", "Łódź", "e\u{301}cole",
        "cafe\u{301}", "ẞ", "œuvre", "đ", "ð", "þorn", "ı", "İstanbul", "ſ", "ŀl", "ĸ", "ħ", "ŧ", "ƀ", "ɨ", "ɉ",
        "Ǆ", "ǅ", "ǆ", "Ⅻ", "ⅷ", "²", "½", "①", "n\u{303}", "a\u{308}\u{301}", "\u{301}", "\u{20DD}", "A\u{20DD}",
        // Ligatures and full-width forms.
        "ﬁnance", "ﬀ", "ﬂ", "ﬃ", "ﬄ", "ﬅ", "ﬆ", "ĳ", "ＡＢＣ１２３", "ａｂｃ", "Ｘ’ｙ",
        // Greek, Cyrillic, Arabic, Hebrew, Indic, Thai, Armenian, Georgian.
        "ΣΟΦΊΑ", "σοφία", "ς", "ΐ", "Привет", "МИР", "ёлка", "Ѐ", "مُحَمَّد", "ـ", "ٰ", "שָׁלוֹם", "נמ",
        "नमस्ते", "दुनिया", "ಕನ್ನಡ", "ภาษาไทย", "ที่นี่", "ພາສາລາວ", "ភាសាខ្មែរ", "မြန်မာ", "Հայերեն", "ქართული",
        "آرگومان\u{200C}ها", "\u{200C}", "\u{200E}", "\u{202B}", "\u{2066}", "\u{2060}", "知っ\nてい", "環境 が",
        // CJK: Han, kana, half-width kana and voicing marks, Hangul, Jamo, Bopomofo, extensions.
        "東京タワーは日本の電波塔です", "東京", "猫", "犬", "中文搜索引擎", "私は猫が好きです", "iPhone用のケース2台",
        "ｶﾞｷﾞ", "ｶ", "ﾞ", "か\u{3099}", "\u{3099}", "は\u{309A}\u{301}", "々", "〆", "〇", "ー", "ゟ", "ヿ",
        "한국어", "문서", "검색", "ᄀᄁ", "ㄱㄴ", "ㄅㄆ", "𠀋𠀌", "丽", "豈", "﨑", "𛀁", "㐀", "鿿", "ﾠ", "ￜ",
        "ꥠ", "ힰ", "漢\u{20DD}", "字\u{FE0F}",
        // Emoji and other symbols (separators), variation selectors, ZWJ sequences, flags.
        "🎉", "👍🏽", "👨‍👩‍👧", "🇫🇷", "❤️", "©", "™", "€", "—", "…", "«", "»", "\u{200B}", "\u{200D}", "\u{FEFF}",
        "\u{00AD}", "\u{0000}", "\t", "\r\n", "\n", "desoxy\u{00AD}\ncortico", "co\u{00AD} \u{2029}", "x\u{00AD}\u{00AD}\n",
        // Separators.
        " ", " ", "  ", ",", ".", "-", "_", "*", "\"", "(", ")", ":", ";", "/", "\u{3000}", "、", "。", "！",
    ]

    /// A random string of `count` pieces: fragments, random scalars, long words.
    static func randomText(_ rng: inout SplitMix, count: Int) -> String {
        var text = ""
        for _ in 0..<count {
            switch rng.next() % 20 {
            case 0..<11:
                text += fragments.randomElement(using: &rng)!
            case 11..<13:
                text += " "
            case 13:
                // A random scalar from a random block (BMP or astral).
                let ranges: [ClosedRange<UInt32>] = [
                    0x20...0x7E, 0xA0...0x24F, 0x250...0x36F, 0x370...0x52F, 0x590...0x6FF, 0x900...0xDFF, 0x1100...0x11FF,
                    0x1AB0...0x1DFF, 0x1E00...0x1FFF, 0x2000...0x2BFF, 0x3000...0x30FF, 0x3100...0x31FF, 0x3400...0x4DBF,
                    0x4E00...0x9FFF, 0xA960...0xA97F, 0xAC00...0xD7FF, 0xF900...0xFAFF, 0xFB00...0xFFFD,
                    0x10000...0x1FFFF, 0x1F300...0x1FAFF, 0x20000...0x323AF, 0xE0000...0xE01EF,
                ]
                let range = ranges.randomElement(using: &rng)!
                if let scalar = Unicode.Scalar(UInt32.random(in: range, using: &rng)) { text.unicodeScalars.append(scalar) }
            case 14:
                // Words near and over the 128-byte limit, with multi-byte letters at the boundary.
                let unit = ["ab", "é", "ß", "ﬃ", "東", "Ａ", "e\u{301}", "z"].randomElement(using: &rng)!
                text += String(repeating: unit, count: Int.random(in: 20...140, using: &rng))
            case 15:
                text += String(repeating: "a", count: Int.random(in: 120...135, using: &rng)) + ["é", "ﬃ", "ß", "'s", "’t", "1"].randomElement(using: &rng)!
            case 16:
                text += SampleCorpus.vocabulary.randomElement(using: &rng)!
            case 17:
                text += SampleCorpus.vocabulary.randomElement(using: &rng)!.uppercased()
            case 18:
                text.unicodeScalars.append(Unicode.Scalar(UInt32.random(in: 0x300...0x36F, using: &rng))!)
            default:
                text += ["'", "’", "ʼ", "-", "."].randomElement(using: &rng)!
            }
        }
        return text
    }

    /// Random bytes: valid text broken by invalid sequences (overlong, surrogates, out of range,
    /// truncated, stray continuation bytes, 0xC0/0xC1/0xF5-0xFF) and pure noise.
    static func randomBytes(_ rng: inout SplitMix) -> [UInt8] {
        let invalid: [[UInt8]] = [
            [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF],
            [0xF0, 0x80, 0x80, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xFE], [0x80], [0xBF],
            [0xC3], [0xE6, 0x9D], [0xF0, 0x9F, 0x8E], [0xE3, 0x81], [0xCC], [0x27], [0xE2, 0x80],
        ]
        var bytes: [UInt8] = []
        let pieces = Int.random(in: 0...40, using: &rng)
        for _ in 0..<pieces {
            switch rng.next() % 4 {
            case 0: bytes += invalid.randomElement(using: &rng)!
            case 1: bytes += (0..<Int.random(in: 1...8, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) }
            default: bytes += Array(randomText(&rng, count: Int.random(in: 1...4, using: &rng)).utf8)
            }
        }
        // Sometimes cut in the middle of a sequence at the very end.
        if !bytes.isEmpty && rng.next() % 3 == 0 { bytes.removeLast(Int.random(in: 0...min(3, bytes.count), using: &rng)) }
        return bytes
    }

    private func assertSame(_ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line) -> Int {
        var total = 0
        for stemming in [false, true] {
            let fast = Self.fast(bytes, stemming: stemming)
            let reference = Self.reference(bytes, stemming: stemming)
            if fast != reference {
                let firstDifference = zip(fast, reference).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(fast.count, reference.count)
                XCTFail(
                    "stemming \(stemming), \(fast.count) vs \(reference.count) tokens, first difference at token \(firstDifference): "
                        + "\(fast.dropFirst(firstDifference).first.map(\.description) ?? "none") vs "
                        + "\(reference.dropFirst(firstDifference).first.map(\.description) ?? "none"); input \(bytes)",
                    file: file, line: line)
            }
            total += reference.count
        }
        return total
    }

    /// Each fragment alone, and each pair of fragments side by side (every boundary between two
    /// kinds of text).
    func testFragmentsAndPairs() {
        var tokens = 0
        for first in Self.fragments {
            tokens += assertSame(Array(first.utf8))
            for second in Self.fragments {
                tokens += assertSame(Array((first + second).utf8))
            }
        }
        XCTAssertGreaterThan(tokens, 50_000)
    }

    /// 4,000 random mixed-script texts of up to 400 pieces.
    func testRandomMixedScriptCorpus() {
        var rng = SplitMix(state: 0xC1F4_E2D3)
        var tokens = 0
        for round in 0..<4000 {
            let text = Self.randomText(&rng, count: Int.random(in: 0...(round % 10 == 0 ? 400 : 60), using: &rng))
            tokens += assertSame(Array(text.utf8))
        }
        XCTAssertGreaterThan(tokens, 200_000)
    }

    /// 4,000 random byte strings with invalid and truncated UTF-8.
    func testInvalidUTF8() {
        var rng = SplitMix(state: 0x5EED_0BAD)
        for _ in 0..<4000 { _ = assertSame(Self.randomBytes(&rng)) }
        // Edge input: empty, one byte of each value, and a sequence cut at every length.
        _ = assertSame([])
        for byte in UInt8.min...UInt8.max { _ = assertSame([byte]); _ = assertSame([0x61, byte, 0x62]) }
        let sample = Array("aé東𠀋ﬃ’b".utf8)
        for length in 0...sample.count { _ = assertSame(Array(sample.prefix(length))); _ = assertSame(Array(sample.suffix(length))) }
    }

    /// The benchmark's generated English corpus, page by page (the ASCII fast path's main case).
    func testSampleCorpusPages() {
        let corpus = SampleCorpus(documentCount: 10, pagesPerDocument: 10)
        var tokens = 0
        for document in corpus.documents {
            for page in document.pages { tokens += assertSame(Array(page.utf8)) }
        }
        XCTAssertGreaterThan(tokens, 20_000)
    }

    /// The public API agrees too (texts as strings, ranges, positions, kinds).
    func testPublicTokensMatchReference() {
        var rng = SplitMix(state: 42)
        for _ in 0..<500 {
            let text = Self.randomText(&rng, count: 40)
            for stemming in [false, true] {
                let fast = SearchTokenizer.tokens(in: text, stemming: stemming)
                let reference = ReferenceTokenizer.tokens(in: text, stemming: stemming)
                XCTAssertEqual(fast.map { Array($0.text.utf8) }, reference.map { Array($0.text.utf8) }, text)
                XCTAssertEqual(fast, reference, text)
            }
        }
    }

    /// The in-place Porter stemmer against the reference on the corpus vocabulary and random words.
    func testStemmerMatchesReference() {
        var rng = SplitMix(state: 7)
        var words = SampleCorpus.vocabulary
        let letters = Array("abcdefghijklmnopqrstuvwxyz".utf8)
        let suffixes = ["ational", "tional", "enci", "anci", "izer", "bli", "alli", "entli", "eli", "ousli", "ization", "ation",
                        "ator", "alism", "iveness", "fulness", "ousness", "aliti", "iviti", "biliti", "logi", "icate", "ative",
                        "alize", "iciti", "ical", "ful", "ness", "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement",
                        "ment", "ent", "ion", "sion", "tion", "ou", "ism", "ate", "iti", "ous", "ive", "ize", "e", "ll", "sses",
                        "ies", "ss", "s", "eed", "ed", "ing", "at", "bl", "iz", "y"]
        for _ in 0..<20_000 {
            var word = String(decoding: (0..<Int.random(in: 0...8, using: &rng)).map { _ in letters.randomElement(using: &rng)! }, as: UTF8.self)
            for _ in 0..<Int.random(in: 0...3, using: &rng) { word += suffixes.randomElement(using: &rng)! }
            words.append(word)
        }
        for word in words {
            XCTAssertEqual(PorterStemmer.stem(Array(word.utf8)), ReferencePorterStemmer.stem(Array(word.utf8)), word)
            // In place in a buffer of exactly the word's size (no replacement lengthens a word).
            var inPlace = Array(word.utf8)
            let count = inPlace.withUnsafeMutableBufferPointer { PorterStemmer.stem($0, count: $0.count) }
            XCTAssertEqual(Array(inPlace.prefix(count)), ReferencePorterStemmer.stem(Array(word.utf8)), word)
        }
    }
}

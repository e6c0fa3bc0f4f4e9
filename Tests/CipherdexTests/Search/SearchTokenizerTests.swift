import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Segmentation, folding, CJK bigrams, stemming and exact byte offsets of `SearchTokenizer`.
final class SearchTokenizerTests: XCTestCase {
    /// Each token's byte range must cover exactly the original word it came from.
    private func assertOffsetsCover(
        _ text: String, _ expected: [String], file: StaticString = #filePath, line: UInt = #line
    ) {
        let utf8 = Array(text.utf8)
        let tokens = SearchTokenizer.tokens(in: text)
        let covered = tokens.map { String(decoding: utf8[$0.byteRange], as: UTF8.self) }
        XCTAssertEqual(covered, expected, file: file, line: line)
        XCTAssertEqual(tokens.map(\.position), Array(0..<tokens.count), file: file, line: line)
    }

    /// Words, numbers, punctuation and apostrophes (which separate, as a reader sees them:
    /// `mother’s` is the word `mother` and an `s`, so an exact search for `mothers` misses it and
    /// `Bukhalā` finds `al-Bukhalā’i`).
    func testLatinWords() {
        XCTAssertEqual(
            SearchTestSupport.texts("Hello, World! It's 2024 — e-mail_x 3.14"),
            ["hello", "world", "it", "s", "2024", "e", "mail", "x", "3", "14"])
        assertOffsetsCover("Hello, World! It's 2024", ["Hello", "World", "It", "s", "2024"])
        XCTAssertEqual(
            SearchTestSupport.texts("'quoted' rock’n’roll l'été"), ["quoted", "rock", "n", "roll", "l", "ete"])
        XCTAssertEqual(SearchTestSupport.texts("al-Bukhalā’i mother’s"), ["al", "bukhala", "i", "mother", "s"])
        XCTAssertEqual(SearchTestSupport.texts(""), [])
        XCTAssertEqual(SearchTestSupport.texts("  ...  !!! 🎉 "), [])
    }

    /// Case folding and diacritic removal, precomposed and decomposed.
    func testFoldingAndDiacritics() {
        XCTAssertEqual(
            SearchTestSupport.texts("Crème Brûlée ÉCOLE Straße STRASSE Øresund Æther naïve Łódź"),
            ["creme", "brulee", "ecole", "strasse", "strasse", "oresund", "aether", "naive", "lodz"])
        XCTAssertEqual(SearchTestSupport.texts("e\u{301}cole cafe\u{301}"), ["ecole", "cafe"])
        XCTAssertEqual(
            SearchTestSupport.texts("ﬁnance ＡＢＣ１２３ İstanbul ΣΟΦΊΑ σοφία"),
            ["finance", "abc123", "istanbul", "σοφια", "σοφια"])
        XCTAssertEqual(SearchTestSupport.texts("Привет МИР ёлка"), ["привет", "мир", "елка"])
        XCTAssertEqual(SearchTestSupport.texts("مُحَمَّد"), ["محمد"])
        // Indic vowel signs are not diacritics.
        XCTAssertEqual(SearchTestSupport.texts("नमस्ते दुनिया"), ["नमस्ते", "दुनिया"])
        assertOffsetsCover("Crème e\u{301}cole Straße", ["Crème", "e\u{301}cole", "Straße"])
    }

    /// Japanese: Han, Hiragana and Katakana runs become overlapping bigrams.
    func testJapanese() {
        let text = "東京タワーは日本の電波塔です。"
        XCTAssertEqual(
            SearchTestSupport.texts(text),
            ["東京", "京タ", "タワ", "ワー", "ーは", "は日", "日本", "本の", "の電", "電波", "波塔", "塔で", "です"])
        let tokens = SearchTokenizer.tokens(in: text)
        XCTAssertTrue(tokens.allSatisfy { $0.kind == .cjkBigram })
        XCTAssertEqual(tokens[0].byteRange, 0..<6)
        XCTAssertEqual(tokens[1].byteRange, 3..<9)
        assertOffsetsCover("東京、大阪", ["東京", "大阪"])
        // Half-width kana are widened; a decomposed voicing mark composes. (Compared as bytes:
        // Swift strings take `カ\u{3099}` for `ガ`, so this passed while the tokens were not
        // composed; revision 7.)
        XCTAssertEqual(SearchTokenizer.tokens(in: "ｶﾞｷﾞ").map { Array($0.text.utf8) }, [Array("ガギ".utf8)])
        XCTAssertEqual(SearchTokenizer.tokens(in: "か\u{3099}").map { Array($0.text.utf8) }, [Array("が".utf8)])
        XCTAssertEqual(SearchTestSupport.texts("私は猫が好きです"), ["私は", "は猫", "猫が", "が好", "好き", "きで", "です"])
    }

    /// Chinese and Korean, lone characters and mixed scripts.
    func testChineseKoreanAndMixed() {
        XCTAssertEqual(SearchTestSupport.texts("中文搜索引擎"), ["中文", "文搜", "搜索", "索引", "引擎"])
        XCTAssertEqual(SearchTestSupport.texts("한국어 문서 검색"), ["한국", "국어", "문서", "검색"])
        let lone = SearchTokenizer.tokens(in: "猫 and 犬")
        XCTAssertEqual(lone.map(\.text), ["猫", "and", "犬"])
        XCTAssertEqual(lone.map(\.kind), [.cjkUnigram, .word, .cjkUnigram])
        XCTAssertEqual(SearchTestSupport.texts("iPhone用のケース2台"), ["iphone", "用の", "のケ", "ケー", "ース", "2", "台"])
        assertOffsetsCover("iPhone用の", ["iPhone", "用の"])
        XCTAssertEqual(SearchTestSupport.texts("𠀋𠀌 丽"), ["𠀋𠀌", "𠀌丽"])
    }

    /// Extraction puts spaces and line breaks between Chinese and Japanese characters: a run
    /// goes on across white space (and format characters), so words mixing Han and kana are
    /// found whatever the layout; Hangul, written with spaces between words, does not.
    func testBigramRunsContinueAcrossWhiteSpaceInScriptsWithoutSpaces() {
        XCTAssertEqual(SearchTestSupport.texts("知っ\nてい"), ["知っ", "って", "てい"])
        XCTAssertEqual(SearchTestSupport.texts("や 環境\r\n が"), ["や環", "環境", "境が"])
        XCTAssertEqual(SearchTestSupport.texts("中\u{3000}文"), ["中文"])
        XCTAssertEqual(SearchTestSupport.texts("한국어 문서"), ["한국", "국어", "문서"])
        XCTAssertEqual(SearchTestSupport.texts("中文 and 日本"), ["中文", "and", "日本"])
        XCTAssertEqual(SearchTestSupport.texts("中文。 日本"), ["中文", "日本"])
        assertOffsetsCover("知っ\nてい ok", ["知っ", "っ\nて", "てい", "ok"])
    }

    /// Thai, Lao, Khmer and Myanmar put no spaces between words: they are cut into bigrams of
    /// code points (vowel signs and tone marks included), so any substring of two or more
    /// characters is found.
    func testScriptsWithoutSpacesAreBigrammed() {
        XCTAssertEqual(SearchTestSupport.texts("ภาษาไทย"), ["ภา", "าษ", "ษา", "าไ", "ไท", "ทย"])
        XCTAssertEqual(SearchTestSupport.texts("ພາສາລາວ").count, 6)
        XCTAssertEqual(SearchTestSupport.texts("ភាសាខ្មែរ").count, "ភាសាខ្មែរ".unicodeScalars.count - 1)
        XCTAssertEqual(SearchTestSupport.texts("မြန်မာ").count, "မြန်မာ".unicodeScalars.count - 1)
        XCTAssertEqual(SearchTestSupport.texts("ที่ นี่"), ["ที", "ี่", "่น", "นี", "ี่"])
    }

    /// Format characters (ZWNJ, ZWJ, soft hyphen, bidi marks, word joiner, BOM) are invisible:
    /// ignored in words and runs alike, so `آرگومان‌ها` is one word with or without its ZWNJ.
    func testFormatCharactersAreIgnored() {
        XCTAssertEqual(SearchTestSupport.texts("آرگومان\u{200C}ها"), SearchTestSupport.texts("آرگومانها"))
        XCTAssertEqual(SearchTestSupport.texts("co\u{00AD}operate"), ["cooperate"])
        XCTAssertEqual(SearchTestSupport.texts("\u{200F}שלום\u{200E} \u{FEFF}word\u{2060}s"), ["שלום", "words"])
        // The zero-width space is a word break.
        XCTAssertEqual(SearchTestSupport.texts("one\u{200B}two"), ["one", "two"])
        XCTAssertEqual(SearchTestSupport.texts("中\u{200D}文"), ["中文"])
        XCTAssertEqual(SearchTestSupport.texts("\u{200C}\u{200D}"), [])
        assertOffsetsCover("co\u{00AD}op x", ["co\u{00AD}op", "x"])
    }

    /// Tokenizer revision 4: a word hyphenated at a line end with a soft hyphen is one word, its
    /// byte range covering both halves; a soft hyphen before a space on the line, or before a
    /// line break and no letter, still ends the word.
    func testSoftHyphenAtALineEndJoinsTheWord() {
        XCTAssertEqual(
            SearchTestSupport.texts("tumeur (desoxy\u{00AD}\ncorticostérone) ;"), ["tumeur", "desoxycorticosterone"])
        XCTAssertEqual(SearchTestSupport.texts("desoxy\u{00AD} \r\n  cortico"), ["desoxycortico"])
        XCTAssertEqual(SearchTestSupport.texts("co\u{00AD}\u{2028}operate"), ["cooperate"])
        XCTAssertEqual(SearchTestSupport.texts("co\u{00AD} operate"), ["co", "operate"])
        XCTAssertEqual(SearchTestSupport.texts("co\u{00AD}\n(operate"), ["co", "operate"])
        XCTAssertEqual(SearchTestSupport.texts("co\u{00AD}\n中文"), ["co", "中文"])
        XCTAssertEqual(SearchTestSupport.texts("co\u{00AD}\n"), ["co"])
        // A plain hyphen at a line end joins the word too (revision 6).
        XCTAssertEqual(SearchTestSupport.texts("co-\noperate"), ["cooperate"])
        assertOffsetsCover("x desoxy\u{00AD}\ncortico y", ["x", "desoxy\u{00AD}\ncortico", "y"])
    }

    /// Tokenizer revision 3: the end of one bidi embedding or isolate directly followed by the
    /// start of another separates (glib wraps each right-to-left word in its own isolate);
    /// a start or an end alone is ignored like any format character, so the words poppler's
    /// reading-order text splits into directional runs stay whole, as pdftotext's reader sees them.
    func testBidiRunBoundaries() {
        XCTAssertEqual(SearchTestSupport.texts("\u{202B}לחיוב\u{202C}\u{202B}פעולות\u{202C}"), ["לחיוב", "פעולות"])
        XCTAssertEqual(SearchTestSupport.texts("\u{2068}לחיוב\u{2069}\u{2068}פעולות\u{2069}"), ["לחיוב", "פעולות"])
        XCTAssertEqual(SearchTestSupport.texts("a\u{202C}\u{2069}\u{202A}b"), ["a", "b"])
        // pdfjs__issue11656.pdf: `סעיף 15ב(4) לחוק` as poppler-cpp and pdftotext give it.
        XCTAssertEqual(
            SearchTestSupport.texts("סעיף \u{202A}(15\u{202C}ב)(\u{202A} )4\u{202C}לחוק"), ["סעיף", "15ב", "4לחוק"])
        XCTAssertEqual(SearchTestSupport.texts("\u{202A} habibi\u{202C}يبيب"), ["habibiيبيب"])
        XCTAssertEqual(SearchTestSupport.texts("\u{2067}x\u{2069}y \u{202E}z"), ["xy", "z"])
        // Runs of bigram scripts: the same.
        XCTAssertEqual(SearchTestSupport.texts("中\u{202C}文"), ["中文"])
        XCTAssertEqual(SearchTestSupport.texts("中\u{2069}\u{2068}文"), ["中", "文"])
        assertOffsetsCover("\u{202A}15\u{202C}ב x", ["15\u{202C}ב", "x"])
    }

    /// Tokenizer revision 3: the Arabic tatweel (U+0640, kashida) only stretches the line between
    /// letters, so it is dropped like a haraka; Arabic presentation forms and the lam-alef
    /// ligature fold to the letters (NFKD).
    func testArabicTatweelAndPresentationForms() {
        XCTAssertEqual(SearchTestSupport.texts("كتـــاب"), SearchTestSupport.texts("كتاب"))
        XCTAssertEqual(SearchTestSupport.texts("ـ كتاب ـــ"), ["كتاب"])
        XCTAssertEqual(SearchTestSupport.texts("\u{FEFB}"), ["لا"])
        XCTAssertEqual(SearchTestSupport.texts("\u{FEDF}\u{FEE4}\u{FE8E}"), ["لما"])
        assertOffsetsCover("كتـــاب x", ["كتـــاب", "x"])
    }

    /// Tokenizer revision 3: Kangxi radicals, to which some CJK fonts map ideographs' glyphs, are
    /// the ideographs a reader sees (NFKC) and bigrammed with them.
    func testKangxiRadicalsAreTheirIdeographs() {
        XCTAssertEqual(SearchTestSupport.texts("\u{2F47}本語"), SearchTestSupport.texts("日本語"))
        XCTAssertEqual(SearchTestSupport.texts("\u{2F47}"), ["日"])
        assertOffsetsCover("\u{2F47}本 x", ["\u{2F47}本", "x"])
    }

    /// English Porter stemming, only when asked for.
    func testStemming() {
        XCTAssertEqual(
            SearchTestSupport.texts("Running runs connections connected happiness", stemming: true),
            ["run", "run", "connect", "connect", "happi"])
        XCTAssertEqual(SearchTestSupport.texts("Running", stemming: false), ["running"])
        XCTAssertEqual(SearchTestSupport.texts("Crème running 東京", stemming: true), ["creme", "run", "東京"])
    }

    /// The vectors from Porter's paper.
    func testPorterVectors() {
        let vectors = [
            "caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat", "feed": "feed",
            "agreed": "agre", "plastered": "plaster", "motoring": "motor", "sing": "sing", "conflated": "conflat",
            "troubled": "troubl", "sized": "size", "hopping": "hop", "tanned": "tan", "falling": "fall",
            "hissing": "hiss",
            "fizzed": "fizz", "failing": "fail", "filing": "file", "happy": "happi", "sky": "sky",
            "relational": "relat",
            "conditional": "condit", "rational": "ration", "valenci": "valenc", "digitizer": "digit",
            "conformabli": "conform", "radicalli": "radic", "differentli": "differ", "vileli": "vile",
            "analogousli": "analog", "vietnamization": "vietnam", "predication": "predic", "operator": "oper",
            "feudalism": "feudal", "decisiveness": "decis", "hopefulness": "hope", "callousness": "callous",
            "formaliti": "formal", "sensitiviti": "sensit", "sensibiliti": "sensibl", "triplicate": "triplic",
            "formative": "form", "formalize": "formal", "electriciti": "electr", "electrical": "electr",
            "hopeful": "hope", "goodness": "good", "revival": "reviv", "allowance": "allow", "inference": "infer",
            "airliner": "airlin", "gyroscopic": "gyroscop", "adjustable": "adjust", "defensible": "defens",
            "irritant": "irrit", "replacement": "replac", "adjustment": "adjust", "dependent": "depend",
            "adoption": "adopt", "homologou": "homolog", "communism": "commun", "activate": "activ",
            "angulariti": "angular", "homologous": "homolog", "effective": "effect", "bowdlerize": "bowdler",
            "probate": "probat", "rate": "rate", "cease": "ceas", "controll": "control", "roll": "roll",
            "generalizations": "gener", "oscillators": "oscil", "is": "is", "a": "a",
        ]
        for (word, stem) in vectors {
            XCTAssertEqual(PorterStemmer.stem(word), stem, word)
        }
    }

    /// Over-long words are truncated but their byte range covers the whole word.
    func testLongTokensAreTruncated() {
        let word = String(repeating: "ab", count: 200)
        let tokens = SearchTokenizer.tokens(in: "x \(word) y")
        XCTAssertEqual(tokens.count, 3)
        XCTAssertEqual(tokens[1].text.utf8.count, SearchTokenizer.maximumTokenBytes)
        XCTAssertEqual(tokens[1].byteRange, 2..<402)
        XCTAssertEqual(tokens[2].text, "y")
    }

    /// Re-tokenising a token's own source text gives the same token (the query compiler relies
    /// on it), for every token of a mixed-script text.
    func testTokensAreStableUnderRetokenisation() {
        let text = "Crème brûlée, don't STOP; 東京タワー 한국어 ｶﾞｷﾞ ﬁnance iPhone用 Straße running"
        let utf8 = Array(text.utf8)
        for stemming in [false, true] {
            for token in SearchTokenizer.tokens(in: text, stemming: stemming) {
                let source = String(decoding: utf8[token.byteRange], as: UTF8.self)
                XCTAssertEqual(SearchTokenizer.tokens(in: source, stemming: stemming).map(\.text), [token.text], source)
            }
        }
    }
}

import XCTest

@testable import Cipherdex

/// Segmentation, folding, CJK bigrams, stemming and exact byte offsets of `SearchTokenizer`.
final class SearchTokenizerTests: XCTestCase {
    /// Each token's byte range must cover exactly the original word it came from.
    private func assertOffsetsCover(_ text: String, _ expected: [String], file: StaticString = #filePath, line: UInt = #line) {
        let utf8 = Array(text.utf8)
        let tokens = SearchTokenizer.tokens(in: text)
        let covered = tokens.map { String(decoding: utf8[$0.byteRange], as: UTF8.self) }
        XCTAssertEqual(covered, expected, file: file, line: line)
        XCTAssertEqual(tokens.map(\.position), Array(0..<tokens.count), file: file, line: line)
    }

    /// Words, numbers, punctuation and apostrophes.
    func testLatinWords() {
        XCTAssertEqual(SearchTestSupport.texts("Hello, World! It's 2024 — e-mail_x 3.14"), ["hello", "world", "its", "2024", "e", "mail", "x", "3", "14"])
        assertOffsetsCover("Hello, World! It's 2024", ["Hello", "World", "It's", "2024"])
        XCTAssertEqual(SearchTestSupport.texts("'quoted' rock’n’roll l'été"), ["quoted", "rocknroll", "lete"])
        XCTAssertEqual(SearchTestSupport.texts(""), [])
        XCTAssertEqual(SearchTestSupport.texts("  ...  !!! 🎉 "), [])
    }

    /// Case folding and diacritic removal, precomposed and decomposed.
    func testFoldingAndDiacritics() {
        XCTAssertEqual(SearchTestSupport.texts("Crème Brûlée ÉCOLE Straße STRASSE Øresund Æther naïve Łódź"),
                       ["creme", "brulee", "ecole", "strasse", "strasse", "oresund", "aether", "naive", "lodz"])
        XCTAssertEqual(SearchTestSupport.texts("e\u{301}cole cafe\u{301}"), ["ecole", "cafe"])
        XCTAssertEqual(SearchTestSupport.texts("ﬁnance ＡＢＣ１２３ İstanbul ΣΟΦΊΑ σοφία"), ["finance", "abc123", "istanbul", "σοφια", "σοφια"])
        XCTAssertEqual(SearchTestSupport.texts("Привет МИР ёлка"), ["привет", "мир", "елка"])
        XCTAssertEqual(SearchTestSupport.texts("مُحَمَّد"), ["محمد"])
        // Indic vowel signs are not diacritics.
        XCTAssertEqual(SearchTestSupport.texts("नमस्ते दुनिया"), ["नमस्ते", "दुनिया"])
        assertOffsetsCover("Crème e\u{301}cole Straße", ["Crème", "e\u{301}cole", "Straße"])
    }

    /// Japanese: Han, Hiragana and Katakana runs become overlapping bigrams.
    func testJapanese() {
        let text = "東京タワーは日本の電波塔です。"
        XCTAssertEqual(SearchTestSupport.texts(text),
                       ["東京", "京タ", "タワ", "ワー", "ーは", "は日", "日本", "本の", "の電", "電波", "波塔", "塔で", "です"])
        let tokens = SearchTokenizer.tokens(in: text)
        XCTAssertTrue(tokens.allSatisfy { $0.kind == .cjkBigram })
        XCTAssertEqual(tokens[0].byteRange, 0..<6)
        XCTAssertEqual(tokens[1].byteRange, 3..<9)
        assertOffsetsCover("東京、大阪", ["東京", "大阪"])
        // Half-width kana are widened; a decomposed voicing mark composes.
        XCTAssertEqual(SearchTestSupport.texts("ｶﾞｷﾞ"), ["ガギ"])
        XCTAssertEqual(SearchTestSupport.texts("か\u{3099}"), ["が"])
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
        XCTAssertEqual(SearchTestSupport.texts("𠀋𠀌 丽"), ["𠀋𠀌", "丽"])
    }

    /// English Porter stemming, only when asked for.
    func testStemming() {
        XCTAssertEqual(SearchTestSupport.texts("Running runs connections connected happiness", stemming: true),
                       ["run", "run", "connect", "connect", "happi"])
        XCTAssertEqual(SearchTestSupport.texts("Running", stemming: false), ["running"])
        XCTAssertEqual(SearchTestSupport.texts("Crème running 東京", stemming: true), ["creme", "run", "東京"])
    }

    /// The vectors from Porter's paper.
    func testPorterVectors() {
        let vectors = [
            "caresses": "caress", "ponies": "poni", "ties": "ti", "caress": "caress", "cats": "cat", "feed": "feed",
            "agreed": "agre", "plastered": "plaster", "motoring": "motor", "sing": "sing", "conflated": "conflat",
            "troubled": "troubl", "sized": "size", "hopping": "hop", "tanned": "tan", "falling": "fall", "hissing": "hiss",
            "fizzed": "fizz", "failing": "fail", "filing": "file", "happy": "happi", "sky": "sky", "relational": "relat",
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

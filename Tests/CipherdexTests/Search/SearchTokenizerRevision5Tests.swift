import XCTest

@testable import Cipherdex

/// Tokenizer revision 5: a bigram run goes on across a zero-width space as across a space, and a
/// decomposed Thai or Lao AM is cut as the composed one.
final class SearchTokenizerRevision5Tests: XCTestCase {
    private func texts(_ text: String) -> [String] { SearchTestSupport.texts(text) }

    /// Inside a run of a script written without spaces (Thai, Khmer, Lao, Myanmar, Han, kana),
    /// the zero-width space with which such text marks word breaks continues the run, as a space
    /// does.
    func testAZeroWidthSpaceContinuesARunAsASpaceDoes() {
        let runs = [
            ("ออก", "แบบ"), ("ភាសា", "ខ្មែរ"), ("ພາສາ", "ລາວ"), ("မြန်မာ", "စာ"), ("東京", "都"), ("知って", "いる"),
            ("カタ", "カナ"),
        ]
        for (first, second) in runs {
            let joined = texts(first + second)
            XCTAssertEqual(texts(first + "\u{200B}" + second), joined, first + second)
            XCTAssertEqual(texts(first + " " + second), joined, first + second)
            XCTAssertEqual(texts(first + "\u{200B} \n\u{200B}" + second), joined, first + second)
        }
        XCTAssertEqual(texts("東京\u{200B}都"), ["東京", "京都"])
        // A run of one character across it is a pair.
        XCTAssertEqual(texts("中\u{200B}文"), ["中文"])
        // Punctuation still ends the run, with or without a zero-width space by it.
        XCTAssertEqual(texts("東京\u{200B}。都"), ["東京", "都"])
        XCTAssertEqual(texts("東京。\u{200B}都"), ["東京", "都"])
        // A bigram across it covers it.
        let tokens = SearchTokenizer.tokens(in: "ก\u{200B}ข")
        XCTAssertEqual(tokens.map(\.text), ["กข"])
        XCTAssertEqual(tokens.first?.byteRange, 0..<9)
    }

    /// Elsewhere the zero-width space separates, as before: between Latin letters, between
    /// Hangul syllables (Hangul stops at a space too), and between a run and a word.
    func testAZeroWidthSpaceStillSeparatesOtherText() {
        XCTAssertEqual(texts("a\u{200B}b"), ["a", "b"])
        XCTAssertEqual(texts("one\u{200B}two"), ["one", "two"])
        XCTAssertEqual(texts("한국\u{200B}어"), texts("한국 어"))
        XCTAssertEqual(texts("한국\u{200B}어"), ["한국", "어"])
        XCTAssertEqual(texts("ไทย\u{200B}abc"), texts("ไทย abc"))
        XCTAssertEqual(texts("abc\u{200B}ไทย"), ["abc", "ไท", "ทย"])
        XCTAssertEqual(texts("東京\u{200B}한국"), ["東京", "한국"])
        XCTAssertEqual(texts("\u{200B}"), [])
    }

    /// SARA AM (U+0E33) and NIKHAHIT + SARA AA (U+0E4D U+0E32, its NFKD), and Lao AM (U+0EB3)
    /// and U+0ECD U+0EB2, are one character: cut alike in words, pairs and one-character terms.
    func testADecomposedAMIsTheComposedOne() {
        let pairs = [
            ("กำ", "ก\u{0E4D}\u{0E32}"), ("กำหนด", "ก\u{0E4D}\u{0E32}หนด"), ("ทำงาน", "ท\u{0E4D}\u{0E32}งาน"),
            ("ำ", "\u{0E4D}\u{0E32}"), ("ลำ", "ล\u{0E4D}\u{0E32}"), ("ສຳ", "ສ\u{0ECD}\u{0EB2}"),
            ("ລຳ", "ລ\u{0ECD}\u{0EB2}"),
            ("ຳ", "\u{0ECD}\u{0EB2}"), ("ก่ำ", "ก่\u{0E4D}\u{0E32}"), ("ทำ\u{200B}งาน", "ท\u{0E4D}\u{0E32} งาน"),
        ]
        for (composed, decomposed) in pairs {
            XCTAssertEqual(texts(composed), texts(decomposed), composed)
            XCTAssertEqual(
                SearchTokenizer.tokens(in: composed).map(\.kind), SearchTokenizer.tokens(in: decomposed).map(\.kind),
                composed)
        }
        XCTAssertEqual(texts("กำหนด"), ["ก\u{0E4D}\u{0E32}", "\u{0E4D}\u{0E32}ห", "หน", "นด"])
        let one = SearchTokenizer.tokens(in: "\u{0E4D}\u{0E32}")
        XCTAssertEqual(one.map(\.kind), [.cjkUnigram])
        XCTAssertEqual(one.first?.byteRange, 0..<6)
        // Apart (a format character between them), they stay two characters.
        XCTAssertEqual(texts("ก\u{0E4D}\u{2060}\u{0E32}"), ["ก\u{0E4D}", "\u{0E4D}\u{0E32}"])
        XCTAssertEqual(SearchTokenizer.tokens(in: "ก\u{0E4D}\u{0E32}").first?.byteRange, 0..<9)
    }
}

import XCTest

@testable import CipherdexEvaluation

/// The evaluation's truth: a word hyphenated at a line end with a soft hyphen is one word, and
/// the generator draws one-character queries of runs (any letter, and a run's last letter).
final class TruthTokenizerTests: XCTestCase {
    func testASoftHyphenAtALineEndJoinsTheWord() {
        var tokenizer = TruthTokenizer()
        let tokens = tokenizer.tokens(of: "tumeur (desoxy\u{AD}\ncorticostérone) co\u{AD} op x\u{AD}\n中")
        XCTAssertEqual(tokens.map(\.text), ["tumeur", "desoxycorticostérone", "co", "op", "x", "中"])
        XCTAssertEqual(tokens.map(\.joinedAcrossSoftHyphen), [false, true, false, false, false, false])
        XCTAssertEqual(tokenizer.tokens(of: "co\u{AD}operate").map(\.text), ["cooperate"])
    }

    /// A Han or kana run goes on across white space (extraction puts spaces and line breaks
    /// between its characters); Hangul, written with spaces between words, stops there, as the
    /// store's tokenizer does (so no query is drawn across a Korean word space).
    func testHangulRunsStopAtWhiteSpace() {
        var tokenizer = TruthTokenizer()
        XCTAssertEqual(tokenizer.tokens(of: "한국어 문서\n입니다").map(\.text), ["한국어", "문서", "입니다"])
        XCTAssertEqual(tokenizer.tokens(of: "東京 都\n庁").map(\.text), ["東京都庁"])
        XCTAssertEqual(tokenizer.tokens(of: "東京 한국").map(\.text), ["東京", "한국"])
        XCTAssertEqual(tokenizer.tokens(of: "한국東京").map(\.text), ["한국東京"])
    }

    /// Half-width voiced kana and conjoining jamo fold to the full-width kana and the syllables a
    /// reader sees (bytes compared: Swift's `==` on strings is canonical equivalence).
    func testRunsFoldToComposedKanaAndSyllables() {
        XCTAssertEqual(Array(TruthFolding.foldRun("ｶﾞｲﾄﾞ").utf8), Array("ガイド".utf8))
        XCTAssertEqual(Array(TruthFolding.foldRun("ﾊﾟﾝ").utf8), Array("パン".utf8))
        XCTAssertEqual(
            Array(TruthFolding.foldRun("\u{1112}\u{1161}\u{11AB}\u{1100}\u{116E}\u{11A8}").utf8), Array("한국".utf8))
        var tokenizer = TruthTokenizer()
        XCTAssertEqual(tokenizer.tokens(of: "ｶﾞｲﾄﾞ").map(\.folded), [Array("ガイド".utf8)])
    }

    func testOneCharacterRunQueries() throws {
        let corpus = TruthCorpus(
            documents: [
                TruthCorpus.Document(name: "a.pdf", pages: ["请安装Java运行环境", "desoxy\u{AD}\ncorticostérone"])
            ], excluded: [])
        let index = TruthIndex(corpus: corpus)
        let queries = QueryGenerator(index: index, options: .init()).queries(perCell: 40, seed: 1)
        let last = queries.filter { $0.kind == .runLastCharacter }.map(\.text).sorted()
        XCTAssertEqual(last, ["境", "装"])
        XCTAssertEqual(Set(queries.filter { $0.kind == .runCharacter }.map(\.text)), Set("请安运行环".map(String.init)))
        XCTAssertEqual(queries.filter { $0.kind == .softHyphenWord }.map(\.text), ["desoxycorticostérone"])
    }

    /// No query is drawn that no reader would type: half of a Thai SARA AM (the truth writes `ำ`
    /// as `ํา`), or a word that starts with a combining mark.
    func testNoQueryOfHalfAVowelOrALoneMark() {
        let corpus = TruthCorpus(
            documents: [
                TruthCorpus.Document(name: "a.pdf", pages: ["สำคัญมากสำหรับน้ำใจ ความสำเร็จ", "\u{598}Bx word"])
            ], excluded: [])
        let queries = QueryGenerator(index: TruthIndex(corpus: corpus), options: .init()).queries(
            perCell: 400, seed: 1)
        let substrings = queries.filter { $0.kind == .substring || $0.kind == .substringAcrossLines }.map(\.text)
        XCTAssertFalse(substrings.isEmpty)
        // Where a substring starting with `า` occurs (the run goes on across the space), an `ํ`
        // must not always come before it.
        let folded = Array("สำคัญมากสำหรับน้ำใจความสำเร็จ".precomposedStringWithCompatibilityMapping.unicodeScalars)
        for text in substrings {
            let query = Array(text.unicodeScalars)
            let starts = (0...(folded.count - query.count)).filter { Array(folded[$0..<$0 + query.count]) == query }
            XCTAssertFalse(starts.isEmpty, text)
            XCTAssertTrue(starts.contains { $0 == 0 || folded[$0 - 1] != "\u{E4D}" || query[0] != "\u{E32}" }, text)
            XCTAssertNotEqual(query.last, "\u{E4D}", text)
        }
        let words = queries.filter { $0.kind == .word }.map(\.text)
        XCTAssertEqual(words, ["word"])
        XCTAssertTrue(
            QueryGenerator.splitsSaraAm(Array("\u{E2A}\u{E4D}\u{E32}\u{E04}".unicodeScalars), 2..<4))
        XCTAssertFalse(
            QueryGenerator.splitsSaraAm(Array("\u{E2A}\u{E4D}\u{E32}\u{E04}".unicodeScalars), 1..<4))
    }
}

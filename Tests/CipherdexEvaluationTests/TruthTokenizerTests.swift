@testable import CipherdexEvaluation
import XCTest

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
}

import XCTest

@testable import Cipherdex

/// Tokenizer revision 6: a word hyphenated at a line end (`log-⏎likelihood`, `com-⏎puter`), whose
/// hyphen PDF text now keeps as the reader sees it, is one word, as poppler's text made it when it
/// dropped the hyphen; a hyphenated query also looks for each hyphen taken out.
final class SearchTokenizerRevision6Tests: XCTestCase {
    /// Each token's text and position.
    private func cut(_ text: String, stemming: Bool = false) -> [String] {
        SearchTokenizer.tokens(in: text, stemming: stemming).map { "\($0.text)@\($0.position)" }
    }

    func testAWordHyphenatedAtALineEndIsOneWord() {
        XCTAssertEqual(cut("the log-\nlikelihood function"), ["the@0", "loglikelihood@1", "function@2"])
        // CR LF, CR, and the next line's indentation.
        for text in ["log-\r\nlikelihood x", "log-\rlikelihood x", "log-\n  \tlikelihood x"] {
            XCTAssertEqual(cut(text), ["loglikelihood@0", "x@1"], text)
        }
        // The byte range covers both parts and the break.
        XCTAssertEqual(SearchTokenizer.tokens(in: "a com-\nputer").map(\.byteRange), [0..<1, 2..<12])
        // Letters of other scripts, digits, stemming, twice in a word.
        XCTAssertEqual(cut("Zusammen-\narbeit"), ["zusammenarbeit@0"])
        XCTAssertEqual(cut("при-\nмер"), ["пример@0"])
        XCTAssertEqual(cut("1970-\n1980"), ["19701980@0"])
        XCTAssertEqual(cut("comput-\ning", stemming: true), ["comput@0"])
        XCTAssertEqual(cut("ha-\nha-\nha ha"), ["hahaha@0", "ha@1"])
        // The length limit counts the joined word's text.
        XCTAssertEqual(
            cut(String(repeating: "a", count: 100) + "-\n" + String(repeating: "b", count: 100)),
            [String(repeating: "a", count: 100) + String(repeating: "b", count: 28) + "@0"])
        // As with the hyphen typed without a break: the same tokens as the text poppler joined.
        XCTAssertEqual(cut("negative log-\nlikelihood based"), cut("negative loglikelihood based"))
    }

    /// Only a hyphen-minus directly followed by one line break, then a word, joins.
    func testOtherHyphensAndBreaksStillSeparate() {
        XCTAssertEqual(cut("log-likelihood"), ["log@0", "likelihood@1"])
        XCTAssertEqual(cut("log- \nlikelihood"), ["log@0", "likelihood@1"])
        XCTAssertEqual(cut("log-\n\nlikelihood"), ["log@0", "likelihood@1"])
        XCTAssertEqual(cut("log -\nlikelihood"), ["log@0", "likelihood@1"])
        XCTAssertEqual(cut("log-\n-likelihood"), ["log@0", "likelihood@1"])
        XCTAssertEqual(cut("log\u{2010}\nlikelihood"), ["log@0", "likelihood@1"])
        XCTAssertEqual(cut("log-\n東京"), ["log@0", "東京@1"])
        XCTAssertEqual(cut("log-\n"), ["log@0"])
        XCTAssertEqual(cut("東京-\nlog"), ["東京@0", "log@1"])
    }

    /// A query's text is cut without joining, and a hyphenated word is compiled as the phrase of
    /// its parts OR each hyphen taken out.
    func testAHyphenatedQueryAlsoLooksForTheJoinedWord() throws {
        XCTAssertEqual(
            SearchTokenizer.tokens(inQuery: "log-\nlikelihood").map { "\($0.text)@\($0.position)" },
            ["log@0", "likelihood@1"])
        XCTAssertEqual(
            try SearchQuery.parse("log-likelihood").compiled().match, "\"log* likelihood*\" OR \"loglikelihood*\"")
        XCTAssertEqual(
            try SearchQuery.parse("state-of-the-art").compiled().match,
            "\"state* of* the* art*\" OR \"stateof* the* art*\" OR \"state* ofthe* art*\" OR \"state* of* theart*\"")
        var exact = try SearchQuery.parse("e-mail", options: [.exactWords]).compiled()
        XCTAssertEqual(exact.match, "\"e mail\" OR \"email\"")
        exact = try SearchQuery.parse("patient -e-mail").compiled()
        XCTAssertEqual(exact.exclusion, "\"e* mail*\" OR \"email*\"")
        // A quoted phrase, a hyphen not between letters or digits: as before.
        XCTAssertEqual(try SearchQuery.parse("\"log-likelihood\"").compiled().match, "\"log* likelihood*\"")
        XCTAssertEqual(try SearchQuery.parse("log-").compiled().match, "\"log*\"")
        let broken = try SearchQuery.parse("\"log-\nlikelihood\"").compiled()
        XCTAssertEqual(broken.match, try SearchQuery.parse("\"log likelihood\"").compiled().match)
    }

    /// The revision-5 equivalent of a text is cut by revision 6 as revision 5 cut the text (its
    /// line-end hyphens plain separators); a text without one is its own equivalent.
    func testTheRevision5EquivalentCutsAsRevision5Did() {
        XCTAssertEqual(LineEndHyphenRecut.revision5Equivalent("log-\nlikelihood"), "log|\nlikelihood")
        XCTAssertEqual(LineEndHyphenRecut.revision5Equivalent("a-\r\nb -\n c-d"), "a|\r\nb |\n c-d")
        for text in ["log-likelihood", "plain", "", "-", "a -x\n"] {
            XCTAssertEqual(LineEndHyphenRecut.revision5Equivalent(text), text)
        }
        XCTAssertEqual(cut(LineEndHyphenRecut.revision5Equivalent("the log-\nlikelihood")), cut("the log likelihood"))
    }
}

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

    /// A query's text is cut without joining, and a hyphenated word (or a phrase holding one) is
    /// compiled as itself OR each hyphen taken out: the joined word exact, unless a `*` follows
    /// it; in an exclusion every joined form exact. More than four hyphens: no alternatives.
    func testAHyphenatedQueryAlsoLooksForTheJoinedWord() throws {
        func match(_ text: String, _ options: SearchQuery.Options = []) throws -> String {
            try SearchQuery.parse(text, options: options).compiled().match
        }
        XCTAssertEqual(
            SearchTokenizer.tokens(inQuery: "log-\nlikelihood").map { "\($0.text)@\($0.position)" },
            ["log@0", "likelihood@1"])
        XCTAssertEqual(try match("log-likelihood"), "\"log* likelihood*\" OR \"loglikelihood\"")
        XCTAssertEqual(try match("log-like*"), "\"log* like*\" OR \"loglike*\"")
        XCTAssertEqual(
            try match("state-of-the-art"),
            "\"state* of* the* art*\" OR \"stateof the art\" OR \"state ofthe art\" OR \"state of theart\"")
        XCTAssertEqual(try match("e-mail", .exactWords), "\"e mail\" OR \"email\"")
        XCTAssertEqual(try SearchQuery.parse("patient -re-sign").compiled().exclusion, "\"re* sign*\" OR \"resign\"")
        // U+2010 and U+2011 hyphenate too; a phrase holding a hyphenated word gets its joined
        // form, with the phrase's own prefixes.
        XCTAssertEqual(try match("log\u{2010}likelihood"), "\"log* likelihood*\" OR \"loglikelihood\"")
        XCTAssertEqual(try match("\"log-likelihood of\""), "\"log* likelihood* of*\" OR \"loglikelihood* of*\"")
        XCTAssertEqual(
            try match("\"log-likelihood of\"", .exactPhrases), "\"log likelihood of\" OR \"loglikelihood of\"")
        // Pasted from a page, hyphenated at a line end: one word.
        XCTAssertEqual(try match("log-\nlikelihood"), try match("log-likelihood"))
        XCTAssertEqual(try match("\"log-\r\n likelihood\""), try match("\"log-likelihood\""))
        // Not a hyphen between letters or digits, or more than four of them: as before.
        XCTAssertEqual(try match("log-"), "\"log*\"")
        XCTAssertEqual(try match("a-b-c-d-e-f"), "\"a* b* c* d* e* f*\"")
        XCTAssertEqual(try match("\"a - b\""), "\"a* b*\"")
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

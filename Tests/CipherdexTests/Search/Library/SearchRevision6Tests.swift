import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Tokenizer revision 6 on real indexes: a word hyphenated at a line end is found as it was
/// before its hyphen was kept (`loglikelihood`, `computer`) and as the reader sees it
/// (`log-likelihood`), in words, phrases and previews.
final class SearchRevision6Tests: XCTestCase {
    private func search(_ store: Store, _ query: String) throws -> [String] {
        try store.library.search(query).documents.keys.sorted()
    }

    private func addText(_ store: Store, _ text: String, uid: String) throws {
        try store.library.add(data: Data(text.utf8), uid: uid, fileExtension: "txt")
        store.library.waitUntilIdle()
    }

    func testAWordHyphenatedAtALineEndIsFoundJoinedAndHyphenated() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        try addText(store, "the negative log-\nlikelihood function of a com-\nputer model", uid: "broken.txt")
        try addText(store, "the negative loglikelihood function", uid: "joined.txt")
        try addText(store, "the negative log likelihood function", uid: "spaced.txt")
        try addText(store, "a computer model", uid: "computer.txt")
        let all = ["broken.txt", "joined.txt", "spaced.txt"]
        XCTAssertEqual(try search(store, "loglikelihood"), ["broken.txt", "joined.txt"])
        XCTAssertEqual(try search(store, "log-likelihood"), all)
        XCTAssertEqual(try search(store, "negative log-likelihood function"), all)
        XCTAssertEqual(try search(store, "\"negative loglikelihood function\""), ["broken.txt", "joined.txt"])
        XCTAssertEqual(try search(store, "\"log likelihood\""), ["spaced.txt"])
        XCTAssertEqual(try search(store, "\"a computer model\""), ["broken.txt", "computer.txt"])
        XCTAssertEqual(try search(store, "computer"), ["broken.txt", "computer.txt"])
        XCTAssertEqual(try search(store, "com-puter"), ["broken.txt", "computer.txt"])
        XCTAssertEqual(try search(store, "negative -log-likelihood"), [])
        XCTAssertEqual(try search(store, "\"negative log-likelihood\""), all)
        XCTAssertEqual(try search(store, "\"log-likelihood function\""), all)
        XCTAssertEqual(try search(store, "log-\nlikelihood"), all)
        XCTAssertEqual(try search(store, "log\u{2011}likelihood"), all)
        // The second part alone is no word of the page (`com-⏎puter` holds no `puter`).
        var exactWords = SearchOptions()
        exactWords.exactWordsOnly = true
        XCTAssertEqual(try store.library.search("puter", options: exactWords).documents.keys.sorted(), [])
        XCTAssertEqual(
            try store.library.search("likelihood", options: exactWords).documents.keys.sorted(), ["spaced.txt"])
    }

    /// An excluded hyphenated word excludes its joined form exactly, not every word it begins
    /// (held-out audit: `treaty -re-sign` dropped `resignation`); a positive one finds the joined
    /// word exactly, not the longer words it begins.
    func testAJoinedAlternativeIsAnExactWord() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        try addText(store, "we will re-sign the treaty", uid: "a.txt")
        try addText(store, "her resignation letter about the treaty", uid: "b.txt")
        try addText(store, "the co-op shop", uid: "c.txt")
        try addText(store, "cooperation and coordination", uid: "d.txt")
        try addText(store, "we will re-\nsign the treaty", uid: "e.txt")
        XCTAssertEqual(try search(store, "treaty -re-sign"), ["b.txt"])
        XCTAssertEqual(try search(store, "cooperation -co-op"), ["d.txt"])
        XCTAssertEqual(try search(store, "co-op"), ["c.txt"])
        XCTAssertEqual(try search(store, "re-sign"), ["a.txt", "e.txt"])
        XCTAssertEqual(try search(store, "co-op*"), ["c.txt", "d.txt"])
    }

    /// The preview shows the hyphen and the line break (as a space), and marks the whole word.
    func testPreviewsMarkTheWholeWordWithItsHyphen() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        try addText(store, "the negative log-\nlikelihood function", uid: "broken.txt")
        for query in ["loglikelihood", "log-likelihood", "loglike*"] {
            let preview = try XCTUnwrap(store.library.search(query).previews.first, query)
            let marked = preview.matchRanges.map { SearchLibraryTestSupport.substring(preview.preview, $0) }
            XCTAssertEqual(marked.count, 1, query)
            XCTAssertTrue(marked[0].hasPrefix("log-") && marked[0].hasSuffix("likelihood"), "\(query): \(marked)")
        }
    }
}

import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Ends-with (`*ology`) and inner (`*olog*`) matches, expanded from the index's vocabulary.
final class SearchWordEndTests: XCTestCase {
    private var store: Store!

    override func setUpWithError() throws {
        (store, _) = try SearchLibraryTestSupport.store()
        let documents = [
            "geo.txt": "Geology and hydrology reports.",
            "bio.txt": "BIOLOGY notes; the biologist wrote them.",
            "ont.txt": "An ontological argument, nothing else.",
            "none.txt": "Logistics and apologies only.",
        ]
        for (uid, text) in documents {
            try store.library.add(data: Data(text.utf8), uid: uid, fileExtension: "txt")
        }
        store.library.waitUntilIdle()
    }

    override func tearDown() {
        store?.close()
    }

    private func uids(_ query: String, _ options: SearchOptions = SearchOptions()) throws -> [String] {
        try store.library.search(query, options: options).documents.keys.sorted()
    }

    func testEndsWithAndInnerMatches() throws {
        XCTAssertEqual(try uids("*ology"), ["bio.txt", "geo.txt"])
        XCTAssertEqual(try uids("*OLOGY"), ["bio.txt", "geo.txt"])
        XCTAssertEqual(try uids("*olog*"), ["bio.txt", "geo.txt", "none.txt", "ont.txt"])  // apologies
        XCTAssertEqual(try uids("*logi*"), ["bio.txt", "none.txt", "ont.txt"])
        XCTAssertEqual(try uids("*ology -hydrology"), ["bio.txt"])
        XCTAssertEqual(try uids("reports -*ology"), [])
        XCTAssertEqual(try uids("*ology OR apologies"), ["bio.txt", "geo.txt", "none.txt"])
        XCTAssertEqual(try uids("*xyzzy"), [])
        XCTAssertEqual(try uids("*xyzzy OR logistics"), ["none.txt"])
        XCTAssertEqual(try uids("notes *ology"), ["bio.txt"])
        // The expansion is exact words: `*olog` ends with olog, and no indexed word does.
        XCTAssertEqual(try uids("*olog"), [])
    }

    /// An ends-with or inner match finds every page of every word it stands for, however many
    /// (here 300 words on two pages each and five on one page each): the words are read as one
    /// pattern, not listed. Before, at most the 256 most frequent words were, and the five rare
    /// words' pages (and 44 others' pages) were missed.
    func testEveryWordOfManyIsFound() throws {
        let letters = Array("abcdefghijklmnopqrstuvwxyz")
        func word(_ number: Int) -> String {
            String([letters[number / 676 % 26], letters[number / 26 % 26], letters[number % 26]]) + "ology"
        }
        var pages: [String] = []
        for number in 0..<300 { pages += [word(number) + " notes", "more " + word(number)] }
        for number in 300..<305 { pages.append("rare " + word(number)) }
        pages.append("no such word")
        try store.library.add(data: Data(pages.joined(separator: "\u{0C}").utf8), uid: "many.txt", fileExtension: "txt")
        store.library.waitUntilIdle()
        var options = SearchOptions()
        options.maximumResults = 10_000
        for query in ["*ology", "*olog*", "*ology -nothing"] {
            XCTAssertEqual(
                try store.library.search(query, options: options).documents["many.txt"], Array(0..<605), query)
        }
        XCTAssertEqual(
            try store.library.search("rare *ology", options: options).documents["many.txt"], Array(600..<605))
        let results = try store.library.search("rare *ology", options: options)
        let marked = results.previews.map { preview in
            preview.matchRanges.map { SearchLibraryTestSupport.substring(preview.preview, $0) }
        }
        XCTAssertEqual(Set(marked), Set((300..<305).map { ["rare", word($0)] }))
    }

    /// With stemming the pattern is stemmed as any query word is and compared with the stemmed
    /// words: `geology` and `biology` are indexed `geologi`, `biologi`, which end with `ologi`
    /// (`ology` stemmed). Before, the unstemmed `ology` was compared with them: nothing was
    /// found. Stems make it approximate: `hydrology` is indexed `hydrolog`, which does not.
    func testWordEndMatchesOnAStemmingIndex() throws {
        try store.library.setTokenizer(.englishStemming)
        store.library.waitUntilIdle()
        XCTAssertEqual(try uids("*ology"), ["bio.txt", "geo.txt"])
        XCTAssertEqual(try uids("*olog*"), ["bio.txt", "geo.txt", "none.txt", "ont.txt"])
        let results = try store.library.search("*ology")
        let geo = try XCTUnwrap(results.previews.first { $0.uid == "geo.txt" })
        XCTAssertEqual(geo.matchRanges.map { SearchLibraryTestSupport.substring(geo.preview, $0) }, ["Geology"])
    }

    func testWordEndMatchesHavePreviewsAndRangesLikeAnyMatch() throws {
        let results = try store.library.search("*ology")
        let geo = try XCTUnwrap(results.previews.first { $0.uid == "geo.txt" })
        let marked = geo.matchRanges.map { SearchLibraryTestSupport.substring(geo.preview, $0) }
        XCTAssertEqual(marked, ["Geology", "hydrology"])
    }

    func testALeadingWildcardOnAnythingButOneWordIsATypedError() {
        for query in ["*state-of-the-art", "*東京", "*a'b", "*"] {
            XCTAssertThrowsError(try store.library.search(query), query) { error in
                XCTAssertTrue(
                    [SearchQueryError.unsupportedWildcard(position: 1), .bareWildcard(position: 1)].contains(
                        error as? SearchQueryError), "\(query): \(error)")
            }
        }
    }
}

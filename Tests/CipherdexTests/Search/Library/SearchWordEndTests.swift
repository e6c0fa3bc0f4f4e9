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

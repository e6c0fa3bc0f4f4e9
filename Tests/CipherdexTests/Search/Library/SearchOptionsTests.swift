import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Options out of their range are `SearchError.invalidOption` naming the setting (they gave
/// empty results or empty previews, silently); the edges of each range still search.
final class SearchOptionsTests: XCTestCase {
    private var store: Store!

    override func setUpWithError() throws {
        (store, _) = try SearchLibraryTestSupport.store()
        try store.library.add(data: Data("the ledger entry".utf8), uid: "a.txt", fileExtension: "txt")
        store.library.waitUntilIdle()
    }

    override func tearDown() {
        store?.close()
    }

    func testOptionsOutOfRangeAreInvalidOption() async throws {
        let cases:
            [(WritableKeyPath<SearchOptions, Int?>?, WritableKeyPath<SearchOptions, Int>?, Int, String, String)] = [
                (nil, \.maximumResults, 0, "maximumResults", "it must be at least 1 (it is 0)"),
                (nil, \.maximumResults, -1, "maximumResults", "it must be at least 1 (it is -1)"),
                (\.maximumResultsPerDocument, nil, 0, "maximumResultsPerDocument", "it must be at least 1 (it is 0)"),
                (\.maximumPreviewResults, nil, -1, "maximumPreviewResults", "it must be 0 or more (it is -1)"),
                (
                    \.maximumPreviewResultsPerDocument, nil, -2, "maximumPreviewResultsPerDocument",
                    "it must be 0 or more (it is -2)"
                ),
                (nil, \.previewCharactersBefore, -1, "previewCharactersBefore", "it must be 0 or more (it is -1)"),
                (nil, \.previewLength, -5, "previewLength", "it must be 0 or more (it is -5)"),
            ]
        for (optional, plain, value, name, reason) in cases {
            var options = SearchOptions()
            if let optional { options[keyPath: optional] = value }
            if let plain { options[keyPath: plain] = value }
            let expected = SearchError.invalidOption(name: name, reason: reason)
            XCTAssertThrowsError(try store.library.search("ledger", options: options)) {
                XCTAssertEqual($0 as? SearchError, expected)
                XCTAssertEqual($0.localizedDescription, "invalid SearchOptions.\(name): \(reason)")
            }
            do {
                _ = try await store.library.searchAsync("ledger", options: options)
                XCTFail("\(name) = \(value) searched")
            } catch {
                XCTAssertEqual(error as? SearchError, expected)
            }
        }
    }

    func testTheEdgesOfEachRangeSearch() throws {
        var options = SearchOptions()
        options.maximumResults = 1
        options.maximumResultsPerDocument = 1
        options.maximumPreviewResults = 0
        options.maximumPreviewResultsPerDocument = 0
        options.previewCharactersBefore = 0
        options.previewLength = 0
        let results = try store.library.search("ledger", options: options)
        XCTAssertEqual(results.rankedUIDs, ["a.txt"])
        XCTAssertFalse(results.previews.contains { $0.hasPreview })
    }
}

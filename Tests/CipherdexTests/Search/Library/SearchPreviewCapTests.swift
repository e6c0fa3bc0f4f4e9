import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// PDFLibrary's preview caps, separate from the result caps, and cancelling preview work.
final class SearchPreviewCapTests: XCTestCase {
    private var store: Store!

    override func setUpWithError() throws {
        (store, _) = try SearchLibraryTestSupport.store()
        for document in 0..<4 {
            let pages = (0..<5).map { "page \($0) of document \(document) mentions the ledger entry" }
            try store.library.add(
                data: Data(pages.joined(separator: "\u{0C}").utf8), uid: "d\(document).txt", fileExtension: "txt")
        }
        store.library.waitUntilIdle()
    }

    override func tearDown() {
        store?.close()
    }

    func testPreviewCapsLeaveResultsAndScoresAndCutPreviewsBestFirst() throws {
        let all = try store.library.search("ledger")
        XCTAssertEqual(all.previews.count, 20)
        XCTAssertTrue(all.previews.allSatisfy { $0.hasPreview && $0.preview.contains("ledger") })

        var options = SearchOptions()
        options.maximumPreviewResults = 7
        options.maximumPreviewResultsPerDocument = 2
        let capped = try store.library.search("ledger", options: options)
        XCTAssertEqual(capped.previews.count, 20, "preview caps do not cap results")
        XCTAssertEqual(capped.documents, all.documents)
        XCTAssertEqual(capped.previews.map(\.score), all.previews.map(\.score))
        let withPreview = capped.previews.filter(\.hasPreview)
        XCTAssertEqual(withPreview.count, 7)
        XCTAssertLessThanOrEqual(Dictionary(grouping: withPreview, by: \.uid).values.map(\.count).max() ?? 0, 2)
        for preview in capped.previews where !preview.hasPreview {
            XCTAssertEqual(preview.preview, "")
            XCTAssertEqual(preview.matchRanges, [])
        }
        // The previews that were cut are the best ones allowed by the per-document cap.
        var perDocument: [String: Int] = [:]
        var expected: [Bool] = []
        for preview in all.previews {
            let allowed = expected.filter { $0 }.count < 7 && perDocument[preview.uid, default: 0] < 2
            if allowed { perDocument[preview.uid, default: 0] += 1 }
            expected.append(allowed)
        }
        XCTAssertEqual(capped.previews.map(\.hasPreview), expected)
        options.maximumPreviewResults = 0
        XCTAssertFalse(try store.library.search("ledger", options: options).previews.contains { $0.hasPreview })
    }

    func testCancelledPreviewWorkReturnsResultsWithoutPreviews() async throws {
        let library = store.library
        let task = Task { () -> SearchResults in
            withUnsafeCurrentTask { $0?.cancel() }
            return try library.search("ledger")
        }
        let results = try await task.value
        XCTAssertEqual(results.previews.count, 20)
        XCTAssertFalse(results.previews.contains { $0.hasPreview })
        // cancelPreviews() only stops work already running: a later search cuts previews again.
        library.cancelPreviews()
        XCTAssertTrue(try library.search("ledger").previews.allSatisfy(\.hasPreview))
    }
}

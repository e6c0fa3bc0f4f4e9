import CipherdexExtraction
import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// Isolated PDF extraction needs nothing beside the executable (it is its own helper), and when
/// no helper can run the first `add` and `sync` throw `extractionHelperMissing` before anything
/// is queued or stored.
final class SearchHelperLocationTests: XCTestCase {
    func testPDFsAreIndexedInIsolationWithNothingBesideTheExecutable() throws {
        // A sanitizer build cannot be its own helper (`make tsan`, `make asan`): it uses the
        // standalone one.
        try XCTSkipIf(ProcessInfo.processInfo.environment["CIPHERDEX_SANITIZER"] != nil, "a sanitizer build")
        XCTAssertEqual(IsolatedPDFExtractor.locateHelper(), IsolatedPDFExtractor.selfHelperPath)
        let (store, path) = try SearchLibraryTestSupport.store(isolated: true)
        defer { store.close() }
        let pdf = SearchLibraryTestSupport.writePDF(["isolated by default"], to: path + "-files", name: "a.pdf")
        try store.library.add(fileAt: pdf)
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.status(of: "a.pdf"), .finished(pageCount: 1))
        XCTAssertEqual(try store.library.search("isolated").documents, ["a.pdf": [0]])
    }

    func testNoHelperThrowsOnTheFirstAddAndSync() throws {
        setenv(IsolatedPDFExtractor.helperPathEnvironmentKey, "/nonexistent/cipherdex-extract", 1)
        defer { unsetenv(IsolatedPDFExtractor.helperPathEnvironmentKey) }
        let (store, path) = try SearchLibraryTestSupport.store(isolated: true)
        defer { store.close() }
        let folder = path + "-files"
        let pdf = SearchLibraryTestSupport.writePDF(["never indexed"], to: folder, name: "a.pdf")
        for attempt in [{ try store.library.add(fileAt: pdf) }, { _ = try store.library.sync(folder: folder) }] {
            XCTAssertThrowsError(try attempt()) { error in
                guard case SearchError.extractionHelperMissing(let reason) = error else {
                    return XCTFail("\(error)")
                }
                XCTAssertTrue(
                    reason.contains("/nonexistent/cipherdex-extract, which is not an executable file"), reason)
            }
        }
        store.library.waitUntilIdle()
        XCTAssertEqual(try store.library.search("indexed").documents, [:])
        XCTAssertTrue(try store.library.statuses().isEmpty, "nothing was queued")
    }
}

import CipherdexExtraction
import CipherdexPDFWriter
import Foundation
import Synchronization
import XCTest

@testable import Cipherdex

/// One document's OCR in an indexing (`OCRDocumentRun`): its bytes are read once for all its
/// pages, and its budget (`OCRSettings.documentSeconds`, `pagesAtLimitPerDocument`) bounds it:
/// past it, its remaining pages fail with `budgetExceeded` without being tried, and the next
/// indexing goes on with them (OCR audit 1: a PDF whose every page costs the per-page limit ran
/// for hours).
final class SearchOCRDocumentRunTests: XCTestCase {
    private func store() throws -> Store {
        let (store, _) = try SearchLibraryTestSupport.store(isolated: true)
        store.library.configure {
            $0.ocr = .enabled(languages: ["eng"])
            $0.workerCount = 1  // one page at a time: which pages run is certain
        }
        return store
    }

    /// A new folder holding `scan.pdf`, `pages` scanned pages.
    private func folderWithAScan(pages: Int) throws -> String {
        let folder = TestSupport.temporaryPath("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let scanned = ScannedPDFWriter.make(
            pages: Array(repeating: SearchOCRTests.scannedText, count: pages), textLayerPages: [])
        try Data(scanned).write(to: URL(fileURLWithPath: folder + "/scan.pdf"))
        return folder
    }

    private func ocrRequests(_ store: Store) -> Int {
        store.library.state.withLock { store.library.ocrPool }?.statistics.requests ?? 0
    }

    func testPagesPastTheDocumentsSecondsAreLeftForTheNextIndexing() throws {
        let store = try store()
        defer { store.close() }
        store.library.configure { $0.ocrSettings.documentSeconds = 0.001 }
        let scanned = ScannedPDFWriter.make(
            pages: Array(repeating: SearchOCRTests.scannedText, count: 4), textLayerPages: [])
        try store.library.add(data: Data(scanned), uid: "scan.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        let status = try XCTUnwrap(try store.library.ocrStatus(of: "scan.pdf"))
        XCTAssertEqual(status.recognizedPages, [0])
        XCTAssertEqual(status.failures.map(\.pageIndex), [1, 2, 3])
        let reason = try XCTUnwrap(status.failures.first?.reason)
        XCTAssertTrue(reason.hasPrefix("budgetExceeded: not recognised, since this document's OCR took "), reason)
        XCTAssertTrue(reason.contains("its budget being 0.001 s (OCRSettings.documentSeconds"), reason)
        XCTAssertEqual(ocrRequests(store), 1, "pages past the budget are not tried")
        XCTAssertEqual(try store.library.status(of: "scan.pdf"), .finished(pageCount: 4))
        XCTAssertEqual(try store.library.search("ishmael").documents, ["scan.pdf": [0]])

        // The next indexing, with the default budget, recognises only the pages left.
        store.library.configure { $0.ocrSettings.documentSeconds = OCRSettings().documentSeconds }
        try store.library.add(data: Data(scanned), uid: "scan.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.ocrStatus(of: "scan.pdf")?.recognizedPages, [0, 1, 2, 3])
        XCTAssertEqual(try store.library.ocrStatus(of: "scan.pdf")?.failures, [])
        XCTAssertEqual(ocrRequests(store), 4)
    }

    /// A folder sync tries the pages left again, as `add` does: it took the unchanged file for
    /// unchanged and left them for good (review 26 finding 2).
    func testASyncGoesOnWithThePagesLeft() throws {
        let folder = try folderWithAScan(pages: 3)
        let store = try store()
        defer { store.close() }
        store.library.configure { $0.ocrSettings.documentSeconds = 0.001 }
        XCTAssertEqual(try store.library.sync(folder: folder).added, ["scan.pdf"])
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.ocrStatus(of: "scan.pdf")?.recognizedPages, [0])
        store.library.configure { $0.ocrSettings.documentSeconds = OCRSettings().documentSeconds }
        let again = try store.library.sync(folder: folder)
        XCTAssertEqual(again.retried, ["scan.pdf"])
        XCTAssertEqual(again.unchanged, [])
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.ocrStatus(of: "scan.pdf")?.recognizedPages, [0, 1, 2])
        XCTAssertEqual(ocrRequests(store), 3)
        // Now every page is kept: unchanged.
        XCTAssertEqual(try store.library.sync(folder: folder).unchanged, ["scan.pdf"])
    }

    func testPagesAtTheLimitsStopTheDocument() throws {
        let store = try store()
        defer { store.close() }
        // One second is too little for a page full of text at 300 dpi.
        store.library.configure {
            $0.ocrSettings = OCRSettings(pageWallClockSeconds: 1, pageCPUSeconds: 1, pagesAtLimitPerDocument: 2)
        }
        let dense = String(repeating: SearchOCRTests.scannedText + "\n", count: 10)
        let scanned = ScannedPDFWriter.make(pages: Array(repeating: dense, count: 5), textLayerPages: [])
        try store.library.add(data: Data(scanned), uid: "dense.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        let status = try XCTUnwrap(try store.library.ocrStatus(of: "dense.pdf"))
        XCTAssertEqual(status.recognizedPages, [])
        XCTAssertEqual(status.failures.map(\.pageIndex), [0, 1, 2, 3, 4])
        XCTAssertEqual(
            status.failures.map { $0.reason.prefix { $0 != ":" } },
            ["timedOut", "timedOut", "budgetExceeded", "budgetExceeded", "budgetExceeded"], "\(status.failures)")
        XCTAssertEqual(
            status.failures.first?.reason,
            "timedOut: text extraction took longer than 1 s (of elapsed or processor time) and was stopped")
        XCTAssertTrue(
            status.failures.last?.reason.contains("since 2 pages of this document reached the per-page limits (1 s")
                == true, "\(status.failures)")
        XCTAssertEqual(ocrRequests(store), 2)
    }

    /// A document's bytes are read and checked once for all its pages (OCR audit 9: each page
    /// read, decrypted and hashed the whole file again). Seen from outside: a synced file
    /// replaced after its first page was read still has every page of the content indexed
    /// recognised (the later pages found the file changed and were left pending).
    func testADocumentIsReadOnceForAllItsPages() throws {
        let folder = try folderWithAScan(pages: 3)
        let store = try store()
        defer { store.close() }
        // The password provider is asked once a page's bytes are read: at the first OCR page,
        // the file is replaced.
        let library = store.library
        let path = folder + "/scan.pdf"
        let replaced = Mutex(false)
        store.library.configure {
            $0.passwordProvider = { uid in
                let recognising = library.state.withLock { library.ocrActive[uid] != nil }
                if recognising, !replaced.withLock({ $0 }) {
                    replaced.withLock { $0 = true }
                    try? Data("replaced".utf8).write(to: URL(fileURLWithPath: path))
                }
                return nil
            }
        }
        XCTAssertEqual(try store.library.sync(folder: folder).added, ["scan.pdf"])
        try store.library.waitUntilIndexed()
        let status = try XCTUnwrap(try store.library.ocrStatus(of: "scan.pdf"))
        XCTAssertEqual(status.recognizedPages, [0, 1, 2])
        XCTAssertEqual(status.pendingCount, 0)
        XCTAssertTrue(replaced.withLock { $0 })
        XCTAssertNil(store.library.state.withLock { store.library.ocrRuns["scan.pdf"] }, "dropped with its last page")
    }

    /// Settings encoded before the document budget existed decode with its defaults.
    func testSettingsEncodedWithoutTheBudgetDecodeWithItsDefaults() throws {
        let old = """
            {"languages":["eng"],"dpi":200,"minimumTextCharacters":16,"pageWallClockSeconds":60,\
            "pageCPUSeconds":60,"maximumPixels":40000000}
            """
        let settings = try JSONDecoder().decode(OCRSettings.self, from: Data(old.utf8))
        XCTAssertEqual(settings.dpi, 200)
        XCTAssertEqual(settings.documentSeconds, 1800)
        XCTAssertEqual(settings.pagesAtLimitPerDocument, 3)
        let again = try JSONDecoder().decode(OCRSettings.self, from: JSONEncoder().encode(settings))
        XCTAssertEqual(again, settings)
    }
}

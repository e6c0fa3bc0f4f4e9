import CipherdexPDFWriter
import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// OCR while indexing: scanned pages become searchable (flagged `isOCR`), pages with text layers
/// are never recognised, kept results are reused, other languages re-recognise only the scanned
/// pages, failures are per page, documents with text layers go first, missing language data
/// fails at once.
final class SearchOCRTests: XCTestCase {
    /// The scanned page's text.
    static let scannedText = """
        Call me Ishmael. Some years ago, never mind how long precisely, having little or no money in \
        my purse, and nothing particular to interest me on shore, I thought I would sail about a \
        little and see the watery part of the world.
        """
    /// The text-layer page's text.
    static let layerText = "The lighthouse keeper recorded every passing steamer in his logbook."

    /// A two-page PDF: page 0 scanned (image only), page 1 with a text layer. Built once.
    static let mixedPDF = ScannedPDFWriter.make(pages: [scannedText, layerText], textLayerPages: [1])

    private func store(workers: Int = 2) throws -> Store {
        let (store, _) = try SearchLibraryTestSupport.store(isolated: true)
        store.library.configure {
            $0.ocr = .enabled(languages: ["eng"])
            $0.workerCount = workers
        }
        return store
    }

    /// The OCR requests the library's OCR helpers served.
    private func ocrRequests(_ store: Store) -> Int {
        store.library.state.withLock { store.library.ocrPool }?.statistics.requests ?? 0
    }

    func testScannedPageIsSearchableAndFlagged() throws {
        let store = try store()
        defer { store.close() }
        try store.library.add(data: Data(Self.mixedPDF), uid: "mixed.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.status(of: "mixed.pdf"), .finished(pageCount: 2))
        let results = try store.library.search("ishmael watery")
        XCTAssertEqual(results.documents, ["mixed.pdf": [0]])
        let preview = try XCTUnwrap(results.previews.first)
        XCTAssertTrue(preview.isOCR)
        XCTAssertTrue(preview.hasPreview)
        XCTAssertEqual(
            preview.matchRanges.first.map { SearchLibraryTestSupport.substring(preview.preview, $0).lowercased() },
            "ishmael")
        let layer = try store.library.search("lighthouse")
        XCTAssertEqual(layer.documents, ["mixed.pdf": [1]])
        XCTAssertEqual(layer.previews.map(\.isOCR), [false])
        let status = try XCTUnwrap(try store.library.ocrStatus(of: "mixed.pdf"))
        XCTAssertEqual(status.candidatePages, [0])
        XCTAssertEqual(status.recognizedPages, [0])
        XCTAssertEqual(status.failures, [])
        XCTAssertEqual(status.languages, ["eng"])
        // The page with a text layer was never recognised: one OCR request in all.
        XCTAssertEqual(ocrRequests(store), 1)
        // The recognised text is stored encrypted like any page text: not in the database file.
        store.close()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: store.path + "/store.db"))
        XCTAssertNil(bytes.range(of: Data("Ishmael".utf8)))
    }

    /// When an OCR page is the index's last write, the free pages (here a dropped scratch
    /// table's) go back to the file system once it is done, as after document writes.
    func testTheLastOCRPageGivesFreePagesBack() throws {
        let store = try store()
        defer { store.close() }
        try store.write { db in
            try db.execute("CREATE TABLE scratch (x BLOB)")
            for _ in 0..<400 { try db.execute("INSERT INTO scratch VALUES (randomblob(8000))") }
            try db.execute("DROP TABLE scratch")
        }
        let free = { try store.read { try $0.scalar("PRAGMA freelist_count")?.integerValue ?? 0 } }
        XCTAssertGreaterThan(try free(), Int64(IndexSpaceReclaim.idleFreePages))
        try store.library.add(data: Data(Self.mixedPDF), uid: "mixed.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.ocrStatus(of: "mixed.pdf")?.recognizedPages, [0])
        XCTAssertEqual(try free(), 0)
        XCTAssertEqual(try store.library.search("ishmael").documents, ["mixed.pdf": [0]])
    }

    /// With more workers than cores (the default is one more), pages are still recognised at
    /// most one per core at once: the OCR pool never starts more helpers than that, and every
    /// page is recognised.
    func testOCRRecognisesAtMostOnePagePerCore() throws {
        let cores = ProcessInfo.processInfo.activeProcessorCount
        XCTAssertEqual(SearchLibrary.Configuration().workerCount, cores + 1)
        let store = try store(workers: cores + 2)
        defer { store.close() }
        XCTAssertEqual(store.library.state.withLock { store.library.configuration.ocrPageLimit }, cores)
        let pages = cores + 3
        let scanned = ScannedPDFWriter.make(pages: Array(repeating: Self.scannedText, count: pages), textLayerPages: [])
        try store.library.add(data: Data(scanned), uid: "scanned.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.ocrStatus(of: "scanned.pdf")?.recognizedPages, Array(0..<pages))
        let statistics = try XCTUnwrap(store.library.state.withLock { store.library.ocrPool }?.statistics)
        XCTAssertEqual(statistics.requests, pages)
        XCTAssertLessThanOrEqual(statistics.helpersStarted, cores)
    }

    /// Adding the same content again with OCR off keeps the recognised text (as a folder sync
    /// does, and as the README says of turning OCR off): it re-indexed the file without OCR and
    /// the scanned page's words were no longer found (OCR audit 5).
    func testAddingAgainWithOCROffKeepsTheRecognisedText() throws {
        let store = try store()
        defer { store.close() }
        try store.library.add(data: Data(Self.mixedPDF), uid: "mixed.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        store.library.configure { $0.ocr = .disabled }
        try store.library.add(data: Data(Self.mixedPDF), uid: "mixed.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.search("ishmael").documents, ["mixed.pdf": [0]])
        XCTAssertEqual(try store.library.ocrStatus(of: "mixed.pdf")?.recognizedPages, [0])
    }

    /// A page whose recognition failed for the environment's sake (a time-out on a busy machine,
    /// a killed helper, language data that would not load) is recognised again at the next
    /// indexing; one that failed for its own (a damaged image) is kept (OCR audit 2: every
    /// failure was kept for good, and the page never found).
    func testEnvironmentFailuresAreRetriedAndOtherFailuresKept() throws {
        let store = try store()
        defer { store.close() }
        func failPage(_ failure: String) throws {
            try store.write { db in
                try db.execute("UPDATE search_ocr SET body = NULL, failure = ?", [.text(failure)])
            }
        }
        try store.library.add(data: Data(Self.mixedPDF), uid: "mixed.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        let recognised = ocrRequests(store)
        try failPage("damaged: the document is damaged: an image stream is truncated")
        try store.library.add(data: Data(Self.mixedPDF), uid: "mixed.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(ocrRequests(store), recognised, "a damaged page is not recognised again")
        try failPage("timedOut: text extraction took longer than 115.0 s")
        try store.library.add(data: Data(Self.mixedPDF), uid: "mixed.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(ocrRequests(store), recognised + 1, "a timed-out page is recognised again")
        XCTAssertEqual(try store.library.search("ishmael").documents, ["mixed.pdf": [0]])
        XCTAssertEqual(try store.library.ocrStatus(of: "mixed.pdf")?.failures, [])
    }

    /// A language given twice is recognised, recorded and reused as once (OCR audit 8c: `eng+eng`
    /// recognised every page again).
    func testALanguageGivenTwiceIsOnce() throws {
        let store = try store()
        defer { store.close() }
        try store.library.add(data: Data(Self.mixedPDF), uid: "mixed.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        let recognised = ocrRequests(store)
        store.library.configure { $0.ocr = .enabled(languages: ["eng", "eng"]) }
        try store.library.add(data: Data(Self.mixedPDF), uid: "mixed.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(ocrRequests(store), recognised)
        XCTAssertEqual(try store.library.ocrStatus(of: "mixed.pdf")?.languages, ["eng"])
    }

    func testOCRIsOffByDefault() throws {
        let (store, _) = try SearchLibraryTestSupport.store(isolated: true)
        defer { store.close() }
        try store.library.add(data: Data(Self.mixedPDF), uid: "mixed.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.search("ishmael").documents, [:])
        XCTAssertEqual(try store.library.search("lighthouse").documents, ["mixed.pdf": [1]])
        XCTAssertNil(try store.library.ocrStatus(of: "mixed.pdf"))
    }

    func testKeptResultsAreReusedAndOtherLanguagesRecognizeOnlyScannedPages() throws {
        // A second "language": English data under another code, in a folder of our own.
        let folder = TestSupport.temporaryPath() + "-tessdata"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for code in ["eng", "enm"] {
            try FileManager.default.createSymbolicLink(
                atPath: folder + "/\(code).traineddata",
                withDestinationPath: OCRLanguageData.defaultFolder + "/eng.traineddata")
        }
        setenv(OCRLanguageData.environmentKey, folder, 1)
        defer { unsetenv(OCRLanguageData.environmentKey) }
        let store = try store()
        defer { store.close() }
        try store.library.add(data: Data(Self.mixedPDF), uid: "a.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(ocrRequests(store), 1)
        // Unchanged: nothing is extracted again, nothing recognised.
        try store.library.add(data: Data(Self.mixedPDF), uid: "a.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(ocrRequests(store), 1)
        // The same content under another UID, and a forced re-index: the kept result is used.
        try store.library.add(data: Data(Self.mixedPDF), uid: "b.pdf", fileExtension: "pdf")
        var job = IndexJob(uid: "a.pdf", source: .data(Data(Self.mixedPDF)), fileExtension: "pdf")
        job.force = true
        try store.library.enqueue(job)
        try store.library.waitUntilIndexed()
        XCTAssertEqual(ocrRequests(store), 1)
        XCTAssertEqual(try store.library.search("ishmael").documents, ["a.pdf": [0], "b.pdf": [0]])
        XCTAssertEqual(try store.library.search("ishmael").previews.map(\.isOCR), [true, true])
        // Other languages: the scanned page only, once per content.
        store.library.configure { $0.ocr = .enabled(languages: ["enm"]) }
        try store.library.add(data: Data(Self.mixedPDF), uid: "a.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(ocrRequests(store), 2)
        XCTAssertEqual(try store.library.ocrStatus(of: "a.pdf")?.languages, ["enm"])
        XCTAssertEqual(try store.library.ocrStatus(of: "a.pdf")?.recognizedPages, [0])
        XCTAssertEqual(try store.library.search("ishmael").documents, ["a.pdf": [0], "b.pdf": [0]])
        // Removing every document of that content drops its kept results.
        try store.library.remove(uid: "a.pdf")
        try store.library.remove(uid: "b.pdf")
        XCTAssertEqual(try store.read { try $0.scalar("SELECT count(*) FROM search_ocr")?.integerValue }, 0)
    }

    /// A folder synced without OCR, then with it: the unchanged PDF counts as changed and its
    /// scanned page is recognised; a further sync with OCR leaves it alone; turning OCR off
    /// keeps the recognised text.
    func testSyncWithOCRRecognizesAFolderIndexedWithoutIt() throws {
        let folder = TestSupport.temporaryPath("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(Self.mixedPDF).write(to: URL(fileURLWithPath: folder + "/mixed.pdf"))
        try Data("plain words".utf8).write(to: URL(fileURLWithPath: folder + "/note.txt"))
        let (store, _) = try SearchLibraryTestSupport.store(isolated: true)
        defer { store.close() }
        XCTAssertEqual(try store.library.sync(folder: folder).added, ["mixed.pdf", "note.txt"])
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.search("ishmael").documents, [:])
        store.library.configure { $0.ocr = .enabled(languages: ["eng"]) }
        let withOCR = try store.library.sync(folder: folder)
        XCTAssertEqual(withOCR.changed, ["mixed.pdf"])
        XCTAssertEqual(withOCR.unchanged, ["note.txt"])
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.search("ishmael").documents, ["mixed.pdf": [0]])
        XCTAssertEqual(ocrRequests(store), 1)
        XCTAssertEqual(try store.library.sync(folder: folder).unchanged, ["mixed.pdf", "note.txt"])
        store.library.configure { $0.ocr = .disabled }
        XCTAssertEqual(try store.library.sync(folder: folder).unchanged, ["mixed.pdf", "note.txt"])
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.search("ishmael").documents, ["mixed.pdf": [0]])
        XCTAssertEqual(ocrRequests(store), 1)
    }

    func testAFailedPageIsReportedAndTheRestIndexed() throws {
        let store = try store()
        defer { store.close() }
        // One second is too little for a page full of text at 300 dpi.
        store.library.configure { $0.ocrSettings = OCRSettings(pageWallClockSeconds: 1, pageCPUSeconds: 1) }
        let dense = ScannedPDFWriter.make(
            pages: [String(repeating: Self.scannedText + "\n", count: 10), Self.layerText], textLayerPages: [1])
        try store.library.add(data: Data(dense), uid: "dense.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        let status = try XCTUnwrap(try store.library.ocrStatus(of: "dense.pdf"))
        XCTAssertEqual(status.recognizedPages, [])
        XCTAssertEqual(status.failures.map(\.pageIndex), [0])
        XCTAssertTrue(status.failures.first?.reason.hasPrefix("timedOut") == true, "\(status.failures)")
        XCTAssertEqual(try store.library.status(of: "dense.pdf"), .finished(pageCount: 2))
        XCTAssertEqual(try store.library.search("lighthouse").documents, ["dense.pdf": [1]])
    }

    func testDocumentsWithTextLayersFinishFirst() throws {
        let store = try store(workers: 1)
        defer { store.close() }
        store.library.pause()
        try store.library.add(data: Data(Self.mixedPDF), uid: "0-scanned.pdf", fileExtension: "pdf")
        for index in 1...3 {
            try store.library.add(
                data: Data(makePDF(pages: ["text document \(index)"], title: nil)), uid: "\(index).pdf",
                fileExtension: "pdf")
        }
        store.library.resume()
        // One worker: the scanned document's text layer, the three text documents, then its
        // scanned page (seconds of OCR): when the third is finished, nothing was recognised yet.
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let done = try (1...3).allSatisfy { try store.library.status(of: "\($0).pdf") == .finished(pageCount: 1) }
            if done { break }
            usleep(10_000)
        }
        XCTAssertEqual(try store.library.ocrStatus(of: "0-scanned.pdf")?.recognizedPages, [])
        if case .indexing = try store.library.status(of: "0-scanned.pdf") {
        } else {
            XCTFail("the scanned document's OCR is not under way")
        }
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.ocrStatus(of: "0-scanned.pdf")?.recognizedPages, [0])
    }

    func testMissingLanguageFailsAtOnceNamingThePackage() throws {
        let (store, _) = try SearchLibraryTestSupport.store(isolated: true)
        defer { store.close() }
        store.library.configure { $0.ocr = .enabled(languages: ["eng", "fra"]) }
        // Made before the clock starts: the PDF is built on first use (seconds under TSan).
        let pdf = Data(Self.mixedPDF)
        let started = Date()
        XCTAssertThrowsError(try store.library.add(data: pdf, uid: "a.pdf", fileExtension: "pdf")) {
            XCTAssertEqual($0 as? SearchError, .ocrLanguageMissing(language: "fra", package: "tesseract-ocr-fra"))
        }
        XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        store.library.configure { $0.ocr = .enabled(languages: ["../eng"]) }
        XCTAssertThrowsError(try store.library.add(data: pdf, uid: "a.pdf", fileExtension: "pdf")) {
            XCTAssertEqual($0 as? SearchError, .invalidOCRLanguage("../eng"))
        }
        // Text files are not concerned.
        try store.library.add(data: Data("plain".utf8), uid: "a.txt", fileExtension: "txt")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.status(of: "a.pdf"), .unknown)
    }

    /// Cancelling drops the queued pages (the running one finishes and is kept); the document's
    /// next indexing takes the kept page and recognises only the rest, as after a crash.
    func testCancelDropsQueuedPagesAndTheNextIndexingResumes() throws {
        let store = try store(workers: 1)
        defer { store.close() }
        let pdf = ScannedPDFWriter.make(pages: [Self.scannedText, "A second scanned page about lighthouses."])
        try store.library.add(data: Data(pdf), uid: "two.pdf", fileExtension: "pdf")
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, store.library.state.withLock({ store.library.ocrActive.isEmpty }) { usleep(5_000) }
        store.library.cancel(uid: "two.pdf")
        store.library.waitUntilIdle()
        let cancelled = try XCTUnwrap(try store.library.ocrStatus(of: "two.pdf"))
        XCTAssertEqual(cancelled.candidatePages, [0, 1])
        XCTAssertEqual(cancelled.recognizedPages, [0])
        XCTAssertEqual(cancelled.pendingCount, 1)
        XCTAssertEqual(ocrRequests(store), 1)
        // Not current while a page is missing: added again, only page 1 is recognised.
        try store.library.add(data: Data(pdf), uid: "two.pdf", fileExtension: "pdf")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.ocrStatus(of: "two.pdf")?.recognizedPages, [0, 1])
        XCTAssertEqual(ocrRequests(store), 2)
        XCTAssertEqual(try store.library.search("lighthouses").documents, ["two.pdf": [1]])
        XCTAssertEqual(try store.library.search("ishmael").documents, ["two.pdf": [0]])
    }
}

import CipherdexPDFWriter
import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Background indexing: statuses for bad input, change detection, folder sync, concurrency,
/// and the real-world corpus.
final class SearchIndexingTests: XCTestCase {
    private var store: Store!
    private var path = ""
    private var files = ""

    override func setUpWithError() throws {
        (store, path) = try SearchLibraryTestSupport.store(isolated: true)
        files = TestSupport.temporaryPath("files")
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
    }

    override func tearDown() {
        store?.close()
    }

    /// The library reuses its own pool of helpers (at most one idle per worker) and closes them
    /// when the store closes.
    func testIsolatedHelpersAreReusedAndClosedWithTheStore() throws {
        store.library.configure { $0.workerCount = 2 }
        for index in 0..<8 {
            SearchLibraryTestSupport.writePDF(["document \(index) about pelicans"], to: files, name: "doc\(index).pdf")
            try store.library.add(fileAt: files + "/doc\(index).pdf")
        }
        store.library.waitUntilIdle()
        XCTAssertEqual(try store.library.search("pelicans").documents.count, 8)
        let pool = try XCTUnwrap(store.library.state.withLock { store.library.pdfPool })
        let statistics = pool.statistics
        XCTAssertEqual(statistics.requests, 8)
        XCTAssertLessThanOrEqual(statistics.helpersStarted, 2)
        XCTAssertGreaterThanOrEqual(statistics.idleHelpers, 1)
        XCTAssertLessThanOrEqual(statistics.idleHelpers, 2)
        store.close()
        XCTAssertEqual(pool.statistics.idleHelpers, 0)
        XCTAssertNil(store.library.state.withLock { store.library.pdfPool })
    }

    func testDamagedTruncatedEmptyAndLockedPDFs() throws {
        let good = makePDF(pages: ["a perfectly fine page about walruses"], title: "ok")
        _ = FileManager.default.createFile(atPath: files + "/good.pdf", contents: Data(good))
        _ = FileManager.default.createFile(
            atPath: files + "/truncated.pdf", contents: Data(good.prefix(good.count / 2)))
        _ = FileManager.default.createFile(
            atPath: files + "/garbage.pdf", contents: Data((0..<5000).map { UInt8(truncatingIfNeeded: $0 &* 7) }))
        _ = FileManager.default.createFile(
            atPath: files + "/empty.pdf", contents: Data(makePDF(pages: ["", ""], title: nil)))
        _ = FileManager.default.createFile(atPath: files + "/zero.pdf", contents: Data())
        for name in ["good.pdf", "truncated.pdf", "garbage.pdf", "empty.pdf", "zero.pdf"] {
            try store.library.add(fileAt: files + "/" + name)
        }
        store.library.waitUntilIdle()
        XCTAssertEqual(try store.library.status(of: "good.pdf"), .finished(pageCount: 1))
        XCTAssertEqual(try store.library.status(of: "empty.pdf"), .finished(pageCount: 2))
        for name in ["truncated.pdf", "garbage.pdf", "zero.pdf"] {
            guard case .failed(let reason) = try store.library.status(of: name) else {
                return XCTFail("\(name): \(try store.library.status(of: name))")
            }
            XCTAssertFalse(reason.isEmpty)
        }
        XCTAssertEqual(try store.library.search("walruses").documents, ["good.pdf": [0]])
        XCTAssertThrowsError(try store.library.add(fileAt: files + "/missing.pdf"))
        _ = FileManager.default.createFile(atPath: files + "/notes.docx", contents: Data("x".utf8))
        XCTAssertThrowsError(try store.library.add(fileAt: files + "/notes.docx")) { error in
            XCTAssertEqual(error as? SearchError, .unsupportedFileType("docx"))
        }
    }

    /// A /proc file (here through a link named `.txt`) reports 0 bytes yet has content: it fails,
    /// saying its size cannot be known, instead of being indexed (and stored) as an empty page.
    func testAProcFileFailsAsSizeUnknownInsteadOfBeingIndexedEmpty() throws {
        XCTAssertEqual(symlink("/proc/self/status", files + "/status.txt"), 0)
        try store.library.add(fileAt: files + "/status.txt")
        store.library.waitUntilIdle()
        guard case .failed(let reason) = try store.library.status(of: "status.txt") else {
            return XCTFail("\(try store.library.status(of: "status.txt"))")
        }
        XCTAssertTrue(reason.contains("its size cannot be known"), reason)
        XCTAssertEqual(try store.attachmentTokens(), [], "no stored copy")
    }

    func testPasswordProtectedPDFIsLockedUntilAPasswordIsProvided() throws {
        guard let corpus = SearchLibraryTestSupport.corpusDirectory else { throw XCTSkip("PDF corpus not found") }
        let encrypted = corpus + "/pdfminer__encryption__aes-128.pdf"
        try store.library.add(fileAt: encrypted, uid: "secret.pdf")
        store.library.waitUntilIdle()
        XCTAssertEqual(try store.library.status(of: "secret.pdf"), .locked)
        // Adding it again once a password can be provided unlocks it (locked documents are
        // always retried; indexed ones with unchanged content are not).
        store.library.configure { $0.passwordProvider = { uid in uid == "secret.pdf" ? "foo" : nil } }
        try store.library.add(fileAt: encrypted, uid: "secret.pdf")
        store.library.waitUntilIdle()
        guard case .finished = try store.library.status(of: "secret.pdf") else {
            return XCTFail("\(try store.library.status(of: "secret.pdf"))")
        }
        XCTAssertEqual(try store.library.search("secret").documents.keys.sorted(), ["secret.pdf"])
    }

    func testUnchangedContentIsNotReindexedAndEventsArrive() async throws {
        SearchLibraryTestSupport.writePDF(["otters hold hands", "beavers build dams"], to: files, name: "animals.pdf")
        let events = store.library.events()
        try store.library.add(fileAt: files + "/animals.pdf")
        await store.library.idle()
        try store.library.add(fileAt: files + "/animals.pdf")
        await store.library.idle()
        SearchLibraryTestSupport.writePDF(
            ["otters hold hands", "beavers build lodges"], to: files, name: "animals.pdf")
        try store.library.add(fileAt: files + "/animals.pdf")
        await store.library.idle()
        try store.library.remove(uid: "animals.pdf")
        var seen: [IndexingEvent] = []
        for await event in events {
            seen.append(event)
            if case .removed = event { break }
        }
        XCTAssertEqual(
            seen,
            [
                .started(uid: "animals.pdf"), .pageIndexed(uid: "animals.pdf", pageIndex: 0, pageCount: 2),
                .pageIndexed(uid: "animals.pdf", pageIndex: 1, pageCount: 2),
                .finished(uid: "animals.pdf", pageCount: 2),
                .started(uid: "animals.pdf"), .unchanged(uid: "animals.pdf"),
                .started(uid: "animals.pdf"), .pageIndexed(uid: "animals.pdf", pageIndex: 0, pageCount: 2),
                .pageIndexed(uid: "animals.pdf", pageIndex: 1, pageCount: 2),
                .finished(uid: "animals.pdf", pageCount: 2),
                .removed(uid: "animals.pdf"),
            ])
        XCTAssertEqual(try store.attachmentTokens(), [], "replaced and removed copies are deleted")
    }

    func testFolderSyncAddsChangesAndRemoves() throws {
        let folder = files + "/folder"
        SearchLibraryTestSupport.writePDF(["alpha page"], to: folder, name: "a.pdf")
        SearchLibraryTestSupport.writePDF(["bravo page"], to: folder + "/sub", name: "b.pdf")
        _ = FileManager.default.createFile(
            atPath: folder + "/c.txt", contents: Data("charlie text\u{0C}second page delta".utf8))
        _ = FileManager.default.createFile(atPath: folder + "/ignored.docx", contents: Data("x".utf8))
        var summary = try store.library.sync(folder: folder)
        store.library.waitUntilIdle()
        XCTAssertEqual(summary.added, ["a.pdf", "c.txt", "sub/b.pdf"])
        XCTAssertEqual(try store.library.search("delta").documents, ["c.txt": [1]])
        XCTAssertEqual(try store.attachmentTokens(), [], "synced files are indexed in place, not copied")

        summary = try store.library.sync(folder: folder)
        XCTAssertEqual(summary.unchanged, ["a.pdf", "c.txt", "sub/b.pdf"])

        Thread.sleep(forTimeInterval: 0.01)
        SearchLibraryTestSupport.writePDF(["alpha page, now with echo"], to: folder, name: "a.pdf")
        try FileManager.default.removeItem(atPath: folder + "/sub/b.pdf")
        SearchLibraryTestSupport.writePDF(["foxtrot page"], to: folder, name: "f.pdf")
        // Touched but identical content: re-checked by hash, not re-extracted.
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: folder + "/c.txt")
        summary = try store.library.sync(folder: folder)
        store.library.waitUntilIdle()
        XCTAssertEqual(summary.added, ["f.pdf"])
        XCTAssertEqual(summary.changed, ["a.pdf", "c.txt"])
        XCTAssertEqual(summary.removed, ["sub/b.pdf"])
        XCTAssertEqual(try store.library.search("echo").documents, ["a.pdf": [0]])
        XCTAssertEqual(try store.library.search("bravo").documents, [:])
        XCTAssertEqual(try store.library.search("foxtrot").documents, ["f.pdf": [0]])
        XCTAssertEqual(try store.library.sync(folder: folder).unchanged, ["a.pdf", "c.txt", "f.pdf"])
        // Another folder with the same relative paths, and an added document, are not taken over.
        let other = files + "/other"
        SearchLibraryTestSupport.writePDF(["golf page"], to: other, name: "a.pdf")
        SearchLibraryTestSupport.writePDF(["hotel page"], to: other, name: "h.pdf")
        let conflicting = try store.library.sync(folder: other)
        store.library.waitUntilIdle()
        XCTAssertEqual(conflicting.conflicts, ["a.pdf"])
        XCTAssertEqual(conflicting.added, ["h.pdf"])
        XCTAssertEqual(try store.library.search("echo").documents, ["a.pdf": [0]])
        XCTAssertEqual(try store.library.search("golf").documents, [:])
        XCTAssertThrowsError(try store.library.sync(folder: files + "/nope")) { error in
            XCTAssertEqual(error as? SearchError, .notAFolder(files + "/nope"))
        }
    }

    /// A UID queued by `add` (or another folder's sync) belongs to it, as a stored row would
    /// make it: a sync of the file's folder reports a conflict, not `added` (consumer audit 27:
    /// README's add-then-sync example reported it added, stored two copies, and the next sync
    /// called it a conflict).
    func testSyncCountsQueuedDocumentsOfAnotherSourceAsConflicts() throws {
        let folder = files + "/scans"
        let other = files + "/other"
        for directory in [folder, other] {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            try Data("kilo page".utf8).write(to: URL(fileURLWithPath: directory + "/k.txt"))
        }
        try Data("lima page".utf8).write(to: URL(fileURLWithPath: folder + "/l.txt"))
        store.library.pause()
        try store.library.add(fileAt: folder + "/k.txt")
        var summary = try store.library.sync(folder: folder)
        XCTAssertEqual(summary.conflicts, ["k.txt"])
        XCTAssertEqual(summary.added, ["l.txt"])
        // Queued by this folder's sync: another folder's file of that name is a conflict too.
        summary = try store.library.sync(folder: other)
        XCTAssertEqual(summary.conflicts, ["k.txt"])
        XCTAssertEqual(summary.added, [])
        store.library.resume()
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.sync(folder: folder).conflicts, ["k.txt"])
        XCTAssertEqual(try store.library.sync(folder: folder).unchanged, ["l.txt"])
        XCTAssertEqual(try store.library.search("kilo").documents, ["k.txt": [0]])
    }

    func testSearchWhileAFolderIsBeingIndexed() throws {
        let folder = files + "/many"
        let corpus = SampleCorpus(documentCount: 24, pagesPerDocument: 4, wordsPerPage: 120)
        try corpus.write(to: folder)
        _ = try store.library.sync(folder: folder)
        var searches = 0
        while store.library.isIndexing {
            let found = try store.library.search("cardiology").documents.count
            XCTAssertTrue((0...3).contains(found), "a search during indexing sees committed documents only")
            searches += 1
        }
        store.library.waitUntilIdle()
        XCTAssertGreaterThan(searches, 0)
        for document in 0..<24 {
            for page in 0..<4 {
                let word = SampleCorpus.reference(document: document, page: page)
                XCTAssertEqual(
                    try store.library.search(word).documents, [corpus.documents[document].fileName: [page]], word)
            }
        }
    }

    func testPauseAndCancel() throws {
        let folder = files + "/paused"
        try SampleCorpus(documentCount: 6, pagesPerDocument: 2, wordsPerPage: 60).write(to: folder)
        store.library.pause()
        _ = try store.library.sync(folder: folder)
        store.library.waitUntilIdle()
        XCTAssertEqual(try store.library.status(of: "doc-0001.pdf"), .queued)
        store.library.cancel(uid: "doc-0001.pdf")
        XCTAssertEqual(try store.library.status(of: "doc-0001.pdf"), .unknown)
        store.library.resume()
        store.library.waitUntilIdle()
        XCTAssertEqual(try store.library.status(of: "doc-0001.pdf"), .unknown)
        XCTAssertEqual(try store.library.status(of: "doc-0002.pdf"), .finished(pageCount: 2))
    }

    func testWholeRealWorldCorpusInBoundedTimeAndMemory() throws {
        guard let corpus = SearchLibraryTestSupport.corpusDirectory else { throw XCTSkip("PDF corpus not found") }
        store.library.configure {
            $0.pdfExtraction = .isolated(IsolatedPDFExtractor.Limits(wallClockSeconds: 15, cpuSeconds: 15))
        }
        let start = Date()
        let summary = try store.library.sync(folder: corpus, allowedExtensions: ["pdf"])
        store.library.waitUntilIdle()
        let elapsed = Date().timeIntervalSince(start)
        let statuses = try store.library.statuses()
        XCTAssertEqual(statuses.count, summary.added.count)
        XCTAssertGreaterThan(statuses.count, 200)
        var counts: [String: Int] = [:]
        for (uid, status) in statuses {
            counts[status.name, default: 0] += 1
            switch status {
            case .finished, .locked: break
            case .failed(let reason): XCTAssertFalse(reason.isEmpty, uid)
            default: XCTFail("\(uid) ended \(status)")
            }
        }
        XCTAssertGreaterThan(counts["finished", default: 0], 150, "\(counts)")
        XCTAssertLessThan(elapsed, 240, "the whole corpus in bounded time")
        XCTAssertLessThan(Double(Self.peakRSS()) / 1_048_576, 1024, "this process stays bounded")
        print("corpus: \(counts) in \(String(format: "%.1f", elapsed)) s")
        XCTAssertFalse(try store.library.search("the").documents.isEmpty)
    }

    private static func peakRSS() -> UInt64 {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return (line.split(separator: " ").dropFirst().first.flatMap { UInt64($0) } ?? 0) * 1024
        }
        return 0
    }
}

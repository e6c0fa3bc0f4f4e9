import CipherdexPDFWriter
import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// A full disk while indexing: a typed error and a failed status, never a silent success; once
/// there is room again, adding again indexes, and everything committed before is kept.
final class SearchDiskFullTests: XCTestCase {
    private var disk: String?
    private var filler = ""
    private var files = ""

    override func setUpWithError() throws {
        // Room, once the filler is gone, for the store and a whole WAL: SQLite reuses the WAL only
        // after 1,000 frames (16 MiB of 16 KiB pages), and 8 MiB ran out under load (the
        // second sync's WAL reached 7.8 MB).
        disk = try Mounts.tmpfs(size: 24 << 20)
        files = TestSupport.temporaryPath("files")
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
    }

    override func tearDown() {
        if let disk { Mounts.unmount(disk) }
    }

    private func openStore() throws -> Store {
        let store = try Store.open(TestSupport.configuration(try XCTUnwrap(disk) + "/s", key: TestSupport.rawKey(3)))
        store.library.configure { $0.pdfExtraction = .inProcess }
        return store
    }

    private func assertWriteFailed(_ library: SearchLibrary, uids: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertThrowsError(try library.waitUntilIndexed(), file: file, line: line) { error in
            guard case .indexWriteFailed(let failed, let reason)? = error as? SearchError else {
                return XCTFail("expected indexWriteFailed, got \(error)", file: file, line: line)
            }
            XCTAssertEqual(failed, uids, file: file, line: line)
            XCTAssertTrue(reason.hasPrefix("disk full"), reason, file: file, line: line)
        }
        for uid in uids {
            guard case .failed(let reason) = try library.status(of: uid) else {
                return XCTFail("\(uid): \(try library.status(of: uid))", file: file, line: line)
            }
            XCTAssertTrue(reason.contains("disk full"), reason, file: file, line: line)
        }
    }

    func testAddOnAFullDiskThrowsAndSucceedsOnceThereIsRoom() throws {
        let disk = try XCTUnwrap(disk)
        var store = try openStore()
        SearchLibraryTestSupport.writePDF(["a first page about walruses"], to: files, name: "before.pdf")
        try store.library.add(fileAt: files + "/before.pdf")
        try store.library.waitUntilIndexed()

        let pages = (0..<20).map { "page \($0) about pelicans " + String(repeating: "gannet cormorant \($0) ", count: 60) }
        SearchLibraryTestSupport.writePDF(pages, to: files, name: "pelicans.pdf")
        filler = try Mounts.fill(disk, leaving: 96 << 10)
        try store.library.add(fileAt: files + "/pelicans.pdf")
        try assertWriteFailed(store.library, uids: ["pelicans.pdf"])
        XCTAssertEqual(try store.library.search("pelicans").documents, [:])
        XCTAssertEqual(try store.library.search("walruses").documents, ["before.pdf": [0]])

        unlink(filler)
        try store.library.add(fileAt: files + "/pelicans.pdf")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.status(of: "pelicans.pdf"), .finished(pageCount: 20))
        store.close()
        store = try openStore()
        defer { store.close() }
        XCTAssertEqual(try store.library.search("pelicans").documents.keys.sorted(), ["pelicans.pdf"])
        XCTAssertEqual(try store.library.search("walruses").documents, ["before.pdf": [0]])
    }

    func testFolderSyncOnAFullDiskThrowsAndTheNextSyncIndexesEverything() throws {
        let disk = try XCTUnwrap(disk)
        var store = try openStore()
        let folder = files + "/folder"
        for index in 0..<40 {
            SearchLibraryTestSupport.writePDF(["document \(index) about puffins " + String(repeating: "tern \(index) ", count: 80)], to: folder, name: "d\(index).pdf")
        }
        filler = try Mounts.fill(disk, leaving: 96 << 10)
        let summary = try store.library.sync(folder: folder)
        XCTAssertEqual(summary.added.count, 40)
        XCTAssertThrowsError(try store.library.waitUntilIndexed()) { error in
            guard case .indexWriteFailed(let uids, _)? = error as? SearchError else { return XCTFail("\(error)") }
            XCTAssertFalse(uids.isEmpty)
        }
        let found = try store.library.search("puffins").documents.count
        let failed = try store.library.statuses().filter { $0.status.name == "failed" }.count
        XCTAssertEqual(found + failed, 40, "every document is either searchable or reported failed")

        unlink(filler)
        store.close()
        store = try openStore()
        defer { store.close() }
        let again = try store.library.sync(folder: folder)
        XCTAssertEqual(again.added.count, 40 - found, "what was not written is added again")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.search("puffins").documents.count, 40)
    }
}

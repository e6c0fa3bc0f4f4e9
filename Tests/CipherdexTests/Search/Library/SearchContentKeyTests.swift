import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// The index's content hashes are keyed with the deduplication key (FORMAT.md 5), which every
/// conversion changes: `encrypt`, `reencrypt` and `decrypt` key them again in the new
/// generation, so an unchanged document is not indexed again and kept OCR results are found.
final class SearchContentKeyTests: XCTestCase {
    private var files = ""

    override func setUpWithError() throws {
        files = TestSupport.temporaryPath("files")
        try FileManager.default.createDirectory(atPath: files + "/folder", withIntermediateDirectories: true)
        try "a stored original about quokkas".write(toFile: files + "/stored.txt", atomically: true, encoding: .utf8)
        try "a synced file about wombats".write(toFile: files + "/folder/synced.txt", atomically: true, encoding: .utf8)
        try "a synced file that will change".write(
            toFile: files + "/folder/changing.txt", atomically: true, encoding: .utf8)
    }

    private func expectedHash(of file: String, in store: Store) throws -> [UInt8] {
        let hash = Sodium.StreamingHash(key: store.attachmentStorage.deduplicationKey)
        try Data(contentsOf: URL(fileURLWithPath: file)).withUnsafeBytes { hash.update($0) }
        return hash.finish()
    }

    private func recordedHash(_ uid: String, in store: Store) throws -> [UInt8]? {
        try store.read { try $0.scalar("SELECT content_hash FROM search_documents WHERE uid = ?", [.text(uid)]) }?
            .blobValue
    }

    private func ocrHashes(in store: Store) throws -> [[UInt8]] {
        try store.read { try $0.rows("SELECT content_hash FROM search_ocr ORDER BY page_index") }.compactMap {
            $0[0].blobValue
        }
    }

    /// After each conversion every hash is the one the new key gives, an OCR result kept for a
    /// document follows its hash, one kept for content no document has is dropped, and a file
    /// that changed since it was indexed gets no hash (it is indexed again when next synced).
    func testEveryConversionKeysTheIndexsHashesAgain() throws {
        let path = TestSupport.temporaryPath()
        var key: KeyProvider? = nil
        do {
            let store = try Store.open(TestSupport.configuration(path, key: key))
            defer { store.close() }
            try store.library.add(fileAt: files + "/stored.txt", uid: "stored")
            _ = try store.library.sync(folder: files + "/folder")
            try store.library.waitUntilIndexed()
            let stored = try XCTUnwrap(try recordedHash("stored", in: store))
            try store.write { db in
                try db.execute(
                    "INSERT INTO search_ocr (content_hash, page_index, languages, body) VALUES (?, 0, 'eng', 'kept')",
                    [.blob(stored)])
                try db.execute(
                    "INSERT INTO search_ocr (content_hash, page_index, languages, body) VALUES (?, 1, 'eng', 'orphan')",
                    [.blob(Array(repeating: 9, count: 32))])
            }
        }
        // Changed after indexing: the recorded hash no longer matches its content.
        try "a synced file that has CHANGED".write(
            toFile: files + "/folder/changing.txt", atomically: true, encoding: .utf8)
        let steps: [(String, KeyProvider?)] = [
            ("encrypt", TestSupport.rawKey(1)), ("reencrypt", TestSupport.rawKey(2)), ("decrypt", nil),
        ]
        for (step, newKey) in steps {
            let configuration = TestSupport.configuration(path, key: key)
            switch step {
            case "encrypt": try Store.encrypt(configuration, newKey: newKey!)
            case "reencrypt": try Store.reencrypt(configuration, newKey: newKey!)
            default: try Store.decrypt(configuration)
            }
            key = newKey
            let store = try Store.open(TestSupport.configuration(path, key: key))
            defer { store.close() }
            let stored = try recordedHash("stored", in: store)
            XCTAssertEqual(stored, try expectedHash(of: files + "/stored.txt", in: store), step)
            XCTAssertEqual(
                try recordedHash("synced.txt", in: store),
                try expectedHash(of: files + "/folder/synced.txt", in: store),
                step)
            XCTAssertNil(try recordedHash("changing.txt", in: store), step)
            XCTAssertEqual(try ocrHashes(in: store), [try XCTUnwrap(stored)], step)
            XCTAssertTrue(try store.verify().isHealthy, step)
        }
    }

    /// After `reencrypt`, the same file added again and a synced file whose modification time
    /// changed are found unchanged by their hash, not extracted and indexed again.
    func testAnUnchangedDocumentIsNotIndexedAgainAfterReencrypt() async throws {
        let path = TestSupport.temporaryPath()
        do {
            let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
            defer { store.close() }
            try store.library.add(fileAt: files + "/stored.txt", uid: "stored")
            _ = try store.library.sync(folder: files + "/folder")
            try store.library.waitUntilIndexed()
        }
        try Store.reencrypt(TestSupport.configuration(path, key: TestSupport.rawKey(1)), newKey: TestSupport.rawKey(2))
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(2)))
        defer { store.close() }
        let events = store.library.events()
        try store.library.add(fileAt: files + "/stored.txt", uid: "stored")
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(60)], ofItemAtPath: files + "/folder/synced.txt")
        let summary = try store.library.sync(folder: files + "/folder")
        XCTAssertEqual(summary.changed, ["synced.txt"])
        await store.library.idle()
        try store.library.add(data: Data("sentinel".utf8), uid: "sentinel", fileExtension: "txt")
        await store.library.idle()
        try store.library.remove(uid: "sentinel")
        var seen: [IndexingEvent] = []
        for await event in events {
            if case .removed = event { break }
            if case .pageIndexed = event { continue }
            seen.append(event)
        }
        // (Workers may finish in either order.)
        for uid in ["stored", "synced.txt"] {
            XCTAssertTrue(seen.contains(.unchanged(uid: uid)), "\(uid) found unchanged: \(seen)")
            XCTAssertFalse(
                seen.contains { if case .finished(uid, _) = $0 { return true } else { return false } },
                "\(uid) indexed again: \(seen)")
        }
        XCTAssertTrue(seen.contains(.finished(uid: "sentinel", pageCount: 1)), "\(seen)")
    }
}

import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// The second set of FORMAT.md's test vectors (`Tests/Fixtures/FormatVectorsChanged`): a store
/// that has lived — re-encrypted (data generation 1: `store.1.db`, `attachments.1/`), opened by a
/// raw key and a recovery key, holding compressed page text, and left by a crash with committed
/// transactions in its write-ahead log (`store.1.db-wal`) — with its export (`expected/`), and
/// `vectors.json`. Nothing is regenerated: the committed store must open to the same content.
///
/// `CIPHERDEX_WRITE_FORMAT_VECTORS=DIR swift test --filter
/// FormatVectorsChangedStoreTests/testWriteVectors` writes a new set into DIR.
final class FormatVectorsChangedStoreTests: XCTestCase {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/FormatVectorsChanged").path

    /// The set's raw key: bytes 0x20 through 0x3f.
    static let rawKey = (32..<64).map { UInt8($0) }

    /// The key providers of the set: the raw key, and the recovery key in `recovery.txt`.
    private func keys() throws -> [KeyProvider] {
        let recovery = try RecoveryKey(contentsOfFile: Self.fixture + "/recovery.txt")
        return [{ try EncryptionKey.raw(Self.rawKey) }, { recovery.key }]
    }

    func testCommittedStoreOpensToTheExpectedExportWithEachKey() throws {
        for key in try keys() {
            let copy = TestSupport.temporaryPath("vectors-changed")
            TestSupport.copyDirectory(Self.fixture + "/store", to: copy)
            XCTAssertGreaterThan(FileSystem.size(copy + "/store.1.db-wal") ?? 0, 0, "the log a crash left")
            let store = try Store.open(StoreConfiguration(path: copy, keyProvider: key, createIfMissing: false))
            XCTAssertTrue(try store.verify().isHealthy)
            let out = TestSupport.temporaryPath("export")
            try store.export(to: out)
            store.close()
            XCTAssertEqual(TestSupport.snapshot(out), TestSupport.snapshot(Self.fixture + "/expected"))
        }
    }

    func testTheSetHoldsWhatItSaysItHolds() throws {
        let data = try XCTUnwrap(FileManager.default.contents(atPath: Self.fixture + "/vectors.json"))
        let vectors = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let metadata = try StoreMetadata.parse(
            Array(try Data(contentsOf: URL(fileURLWithPath: Self.fixture + "/store/metadata.json"))))
        XCTAssertEqual(metadata.dataGeneration, 1)
        XCTAssertEqual(metadata.storeID, vectors["storeID"] as? String)
        XCTAssertEqual(metadata.keyslots.map(\.label), [nil, "recovery"])
        let dataKey = try XCTUnwrap(
            try Store.unwrapDataKey(metadata: metadata, key: try EncryptionKey.raw(Self.rawKey)).dataKey)
        XCTAssertEqual(
            dataKey.withUnsafeBytes { Array($0) }.map { String(format: "%02x", $0) }.joined(),
            vectors["dataKey"] as? String)
        XCTAssertGreaterThan(vectors["compressedPages"] as? Int ?? 0, 0)
        XCTAssertGreaterThan(vectors["logFrames"] as? Int ?? 0, 0)
    }

    /// Writes a new vector set; runs only when `CIPHERDEX_WRITE_FORMAT_VECTORS` names a folder.
    func testWriteVectors() throws {
        guard let destination = ProcessInfo.processInfo.environment["CIPHERDEX_WRITE_FORMAT_VECTORS"] else {
            throw XCTSkip("set CIPHERDEX_WRITE_FORMAT_VECTORS=DIR to write new test vectors")
        }
        let path = TestSupport.temporaryPath("vectors-changed-store")
        let raw: KeyProvider = { try EncryptionKey.raw(Self.rawKey) }
        do {
            let store = try Store.open(
                StoreConfiguration(path: path, keyProvider: raw, passphraseCost: .minimumForTesting))
            let visits = try store.createCollection("visits", indexedFields: ["day"])
            try visits.insert(id: "v1", json: Data(#"{"day":"2026-12-01","note":"before re-encryption"}"#.utf8))
            let scan = try store.addAttachment(
                Data((0..<100_000).map { UInt8(($0 * 7) % 256) }), contentType: "application/octet-stream")
            try visits.insert(
                id: "v2", json: Data(#"{"day":"2026-12-02","files":[{"cipherdexAttachment":"\#(scan.id)"}]}"#.utf8))
            let page = String(repeating: "the patient reported a mild fever and a dry cough; ", count: 40)
            try store.library.add(
                data: Data((page + "\u{0C}" + page.uppercased()).utf8), uid: "notes/visit.txt", fileExtension: "txt")
            try store.library.waitUntilIndexed()
            store.close()
        }
        try Store.reencrypt(StoreConfiguration(path: path, keyProvider: raw, createIfMissing: false))
        let store = try Store.open(StoreConfiguration(path: path, keyProvider: raw, createIfMissing: false))
        let (_, recovery) = try store.addRecoveryKey()
        // Committed after the last checkpoint: the copy taken now holds them only in its log.
        try store.transaction { tx in
            try tx.collection("visits").insert(id: "v3", json: Data(#"{"day":"2026-12-03","n":-0.5}"#.utf8))
        }
        _ = try store.addAttachment(Data("after the crash".utf8), contentType: "text/plain")
        try FileManager.default.createDirectory(atPath: destination, withIntermediateDirectories: true)
        TestSupport.copyDirectory(path, to: destination + "/store")
        let metadata = try StoreMetadata.parse(
            Array(try Data(contentsOf: URL(fileURLWithPath: path + "/metadata.json"))))
        let compressed = try store.read { db in
            try db.scalar("SELECT count(*) FROM search_text_content WHERE typeof(c0body) = 'blob'")?.integerValue ?? 0
        }
        store.close()
        let logSize = FileSystem.size(destination + "/store/store.1.db-wal") ?? 0
        XCTAssertGreaterThan(logSize, 0)
        let copy = TestSupport.temporaryPath("vectors-changed")
        TestSupport.copyDirectory(destination + "/store", to: copy)
        let reopened = try Store.open(StoreConfiguration(path: copy, keyProvider: raw, createIfMissing: false))
        try reopened.export(to: destination + "/expected")
        reopened.close()
        let dataKey = try Store.unwrapDataKey(metadata: metadata, key: try EncryptionKey.raw(Self.rawKey)).dataKey
        let vectors: [String: Any] = [
            "rawKey": Self.rawKey.map { String(format: "%02x", $0) }.joined(),
            "storeID": metadata.storeID, "dataGeneration": metadata.currentDataGeneration,
            "dataKey": dataKey.withUnsafeBytes { Array($0) }.map { String(format: "%02x", $0) }.joined(),
            "compressedPages": compressed,
            "logFrames": Int(
                (logSize - UInt64(WriteAheadLogScan.headerSize))
                    / UInt64(WriteAheadLogScan.frameHeaderSize + CipherSettings.default.pageSize)),
        ]
        let json = try JSONSerialization.data(withJSONObject: vectors, options: [.prettyPrinted, .sortedKeys])
        try (json + Data("\n".utf8)).write(to: URL(fileURLWithPath: destination + "/vectors.json"))
        try Data((Self.rawKey.map { String(format: "%02x", $0) }.joined() + "\n").utf8).write(
            to: URL(fileURLWithPath: destination + "/raw.key"))
        try Data((recovery.formatted + "\n").utf8).write(to: URL(fileURLWithPath: destination + "/recovery.txt"))
    }
}

import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// A store opened read-only (`StoreConfiguration.readOnly`, or found on a file system mounted
/// read-only): every read works, every write is refused, and not a byte of any file changes.
final class StoreReadOnlyTests: XCTestCase {
    private static let secret = "Patient Tegucigalpa-6620 confidential"
    private var path = ""

    override func setUp() {
        path = TestSupport.temporaryPath()
    }

    private func configuration(readOnly: Bool) -> StoreConfiguration {
        var result = TestSupport.configuration(path, key: TestSupport.rawKey(1))
        result.readOnly = readOnly
        return result
    }

    /// A store with a document, an attachment and an indexed text; returns the attachment id.
    private func populate() throws -> String {
        let store = try Store.open(configuration(readOnly: false))
        defer { store.close() }
        try store.createCollection("notes").insert(JSONValue.object(["text": .string(Self.secret)]), id: "a")
        let file = TestSupport.temporaryPath("visit.txt")
        try "the consultation mentions theremin".write(toFile: file, atomically: true, encoding: .utf8)
        try store.library.add(fileAt: file, uid: "visit")
        try store.library.waitUntilIndexed()
        return try store.addAttachment(Data("attachment body".utf8)).id
    }

    /// Every write a read-only store refuses, each `permissionDenied` naming the store.
    private func assertEveryWriteIsRefused(_ store: Store, line: UInt = #line) {
        func refused(_ what: String, _ body: () throws -> Void) {
            XCTAssertThrowsError(try body(), what, line: line) { error in
                guard case .permissionDenied(let named, _)? = error as? StoreError else {
                    return XCTFail("\(what): \(error)", line: line)
                }
                XCTAssertEqual(named, store.path, what, line: line)
            }
        }
        refused("insert") { try store.collection("notes").insert(JSONValue.object([:]), id: "b") }
        refused("transaction") { try store.transaction { _ in } }
        refused("addAttachment") { _ = try store.addAttachment(Data("x".utf8)) }
        refused("removeAttachment") { _ = try store.removeAttachment("0123456789abcdef0123456789abcdef") }
        refused("rotateKey") { try store.rotateKey(to: TestSupport.rawKey(2)) }
        refused("addRecoveryKey") { _ = try store.addRecoveryKey() }
        refused("library.add") { try store.library.add(data: Data("new".utf8), uid: "new", fileExtension: "txt") }
        refused("library.remove") { _ = try store.library.remove(uid: "visit") }
        refused("closeAndDelete") { try store.closeAndDelete() }
        XCTAssertTrue(store.isOpen, line: line)
    }

    func testAReadOnlyOpenReadsEverythingWritesNothing() throws {
        let id = try populate()
        let before = TestSupport.snapshot(path)
        let store = try Store.open(configuration(readOnly: true))
        XCTAssertTrue(store.isReadOnly)
        XCTAssertEqual(
            try store.collection("notes").get(id: "a")?.value.objectValue?["text"]?.stringValue, Self.secret)
        XCTAssertEqual(try store.attachmentData(id), Data("attachment body".utf8))
        XCTAssertEqual(try store.library.search("theremin").rankedUIDs, ["visit"])
        XCTAssertTrue(try store.verify().isHealthy)
        let backup = TestSupport.temporaryPath("backup")
        try store.backup(to: backup)
        let export = TestSupport.temporaryPath("export")
        XCTAssertEqual(try store.export(to: export).documents, 1)
        assertEveryWriteIsRefused(store)
        store.close()
        XCTAssertThrowsCase(
            "permissionDenied", try Store.reencrypt(configuration(readOnly: true), newKey: TestSupport.rawKey(2)))
        XCTAssertEqual(TestSupport.snapshot(path) == before, true, "not a byte of the store changed")
        // The backup made from it is a whole store.
        let copy = try Store.open(TestSupport.configuration(backup, key: TestSupport.rawKey(1)))
        defer { copy.close() }
        XCTAssertEqual(try copy.attachmentData(id), Data("attachment body".utf8))
    }

    func testAReadOnlyOpenCreatesNothingAndRefusesAStoreACrashLeftUnfinished() throws {
        let missing = TestSupport.temporaryPath("missing")
        var config = TestSupport.configuration(missing, key: TestSupport.rawKey(1))
        config.readOnly = true
        XCTAssertThrowsCase("notAStore", try Store.open(config))
        XCTAssertFalse(FileManager.default.fileExists(atPath: missing))
        try FileManager.default.createDirectory(atPath: missing, withIntermediateDirectories: false)
        XCTAssertThrowsCase("notAStore", try Store.open(config))
        XCTAssertEqual(FileSystem.contents(of: missing), [])

        // A crash left committed writes in the log: only a writable open recovers them.
        _ = try populate()
        let open = try Store.open(configuration(readOnly: false))
        try open.collection("notes").insert(JSONValue.object(["late": .bool(true)]), id: "late")
        let crashed = TestSupport.temporaryPath("crashed")
        try FileManager.default.createDirectory(atPath: crashed, withIntermediateDirectories: false)
        for name in FileSystem.contents(of: path) where name != "staging" {
            try FileManager.default.copyItem(atPath: path + "/" + name, toPath: crashed + "/" + name)
        }
        open.close()
        XCTAssertGreaterThan(FileKind.of(crashed + "/store.db-wal").size ?? 0, 0)
        let before = TestSupport.snapshot(crashed)
        var crashedConfig = TestSupport.configuration(crashed, key: TestSupport.rawKey(1))
        crashedConfig.readOnly = true
        XCTAssertThrowsError(try Store.open(crashedConfig)) { error in
            guard case .permissionDenied(_, let reason)? = error as? StoreError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("write-ahead log"), reason)
        }
        XCTAssertEqual(TestSupport.snapshot(crashed) == before, true)
        crashedConfig.readOnly = false
        let recovered = try Store.open(crashedConfig)
        defer { recovered.close() }
        XCTAssertNotNil(try recovered.collection("notes").get(id: "late"))
    }

    func testAStoreOnAReadOnlyFileSystemOpensReadOnlyAndRestores() throws {
        let id = try populate()
        let view = try Mounts.readOnlyView(of: path)
        defer { Mounts.unmount(view) }
        var config = TestSupport.configuration(view, key: TestSupport.rawKey(1))
        let store = try Store.open(config)
        XCTAssertTrue(store.isReadOnly)
        XCTAssertEqual(try store.attachmentData(id), Data("attachment body".utf8))
        XCTAssertEqual(try store.library.search("theremin").rankedUIDs, ["visit"])
        XCTAssertThrowsError(try store.collection("notes").insert(JSONValue.object([:]), id: "b")) { error in
            guard case .permissionDenied(_, let reason)? = error as? StoreError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("read-only file system"), reason)
        }
        store.close()
        let restored = TestSupport.temporaryPath("restored")
        config.createIfMissing = false
        try Store.restore(config, to: restored)
        let copy = try Store.open(TestSupport.configuration(restored, key: TestSupport.rawKey(1)))
        defer { copy.close() }
        XCTAssertEqual(try copy.library.search("theremin").rankedUIDs, ["visit"])
        XCTAssertFalse(copy.isReadOnly)
    }

    /// An older build's store (a migration pending) on read-only media restores: it is copied as
    /// it is, and the copy migrates at its first open (the restore's writable open was refused).
    func testAnOlderBuildsStoreOnAReadOnlyFileSystemRestores() throws {
        _ = try populate()
        let older = try Store.open(configuration(readOnly: false))
        try older.write { db in
            try db.execute("DROP TABLE attachment_removals")
            try db.execute("DELETE FROM cipherdex_schema WHERE version = 6")
        }
        older.close()
        let view = try Mounts.readOnlyView(of: path)
        defer { Mounts.unmount(view) }
        var config = TestSupport.configuration(view, key: TestSupport.rawKey(1))
        config.createIfMissing = false
        let restored = TestSupport.temporaryPath("restored")
        try Store.restore(config, to: restored)
        let copy = try Store.open(TestSupport.configuration(restored, key: TestSupport.rawKey(1)))
        defer { copy.close() }
        XCTAssertEqual(try copy.library.search("theremin").rankedUIDs, ["visit"])
        XCTAssertTrue(try copy.verify().isHealthy)
    }

    func testAsyncAttachmentWritesAreRefusedToo() async throws {
        _ = try populate()
        let before = TestSupport.snapshot(path)
        let store = try Store.open(configuration(readOnly: true))
        defer { store.close() }
        let file = TestSupport.temporaryPath("data.bin")
        try Data("content".utf8).write(to: URL(fileURLWithPath: file))
        for form in ["data", "file"] {
            do {
                if form == "data" {
                    _ = try await store.addAttachmentAsync(Data("content".utf8))
                } else {
                    _ = try await store.addAttachmentAsync(fromFile: file)
                }
                XCTFail("\(form): written to a read-only store")
            } catch {
                XCTAssertEqual((error as? StoreError)?.name, "permissionDenied", "\(form): \(error)")
            }
        }
        XCTAssertEqual(TestSupport.snapshot(path) == before, true, "nothing was staged")
    }

    /// A removal whose unlink a kill interrupted (its file still there, its id in
    /// `attachment_removals`) is not damage for a read-only `verify` (a writable open finishes it).
    func testAnInterruptedRemovalIsNotDamageReadOnly() throws {
        let id = try populate()
        let store = try Store.open(configuration(readOnly: false))
        try store.write { db in
            try db.execute("DELETE FROM attachments WHERE id = ?", [.text(id)])
            try db.execute("INSERT INTO attachment_removals (id) VALUES (?)", [.text(id)])
        }
        store.close()
        XCTAssertTrue(FileSystem.exists(path + "/attachments/" + id))
        let readOnly = try Store.open(configuration(readOnly: true))
        XCTAssertEqual(try readOnly.verify().problems, [])
        readOnly.close()
    }

    /// On read-only media, a damaged store says what is wrong with it, as anywhere else.
    func testADamagedStoreOnReadOnlyMediaSaysWhatIsWrong() throws {
        _ = try populate()
        try FileManager.default.removeItem(atPath: path + "/metadata.json")
        try FileManager.default.createDirectory(atPath: path + "/metadata.json", withIntermediateDirectories: false)
        let view = try Mounts.readOnlyView(of: path)
        defer { Mounts.unmount(view) }
        XCTAssertThrowsCase(
            "metadataCorrupt", try Store.open(TestSupport.configuration(view, key: TestSupport.rawKey(1))))
    }
}

import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `Store.export(to:)`, and `tools/cipherdex-recover` on a store a crash left with a
/// write-ahead log.
final class StoreExportTests: XCTestCase {
    static let recoverTool = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("tools/cipherdex-recover").path

    func testExportRefusesAFileOrANonEmptyDirectoryAndWritesNothing() throws {
        let store = try Store.open(TestSupport.configuration(TestSupport.temporaryPath(), key: TestSupport.rawKey(1)))
        defer { store.close() }
        let busy = TestSupport.temporaryPath("busy")
        try FileManager.default.createDirectory(atPath: busy, withIntermediateDirectories: false)
        try Data("x".utf8).write(to: URL(fileURLWithPath: busy + "/x"))
        XCTAssertThrowsExactly(ExportError.destinationNotEmpty(path: busy), try store.export(to: busy))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: busy), ["x"])
        let file = busy + "/x"
        XCTAssertThrowsExactly(ExportError.destinationNotEmpty(path: file), try store.export(to: file))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: file)), Data("x".utf8))
    }

    /// Plaintext is never written inside the store's own folder, however the path is written.
    func testExportInsideTheStoreIsRefusedAndWritesNothing() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        _ = try store.addAttachment(Data("body".utf8), contentType: nil)
        let before = TestSupport.snapshot(path)
        for destination in [path, path + "/e", path + "/attachments/e", path + "/./staging/../e"] {
            XCTAssertThrowsExactly(
                ExportError.destinationInsideStore(path: destination, store: path), try store.export(to: destination))
        }
        XCTAssertEqual(TestSupport.snapshot(path), before)
    }

    /// An export that fails part-way (a damaged attachment) leaves no partial plaintext: the
    /// directory it made is gone, and an empty one given to it is empty again.
    func testAFailedExportLeavesNoPartialPlaintext() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        try store.createCollection("notes").insert(JSONValue.object(["secret": .string("Zanzibar-4417")]), id: "a")
        let token = try store.addAttachment(Data(repeating: 7, count: 200_000))
        let file = path + "/attachments/" + token.id
        XCTAssertEqual(truncate(file, 1000), 0)
        let made = TestSupport.temporaryPath("export-made")
        XCTAssertThrowsError(try store.export(to: made))
        XCTAssertFalse(FileManager.default.fileExists(atPath: made), "the directory the export made is removed")
        let given = TestSupport.temporaryPath("export-given")
        try FileManager.default.createDirectory(atPath: given, withIntermediateDirectories: false)
        XCTAssertThrowsError(try store.export(to: given))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: given), [], "what it wrote is removed")
    }

    func testExportEscapesStringsAndKeepsBodiesAsStored() throws {
        let store = try Store.open(TestSupport.configuration(TestSupport.temporaryPath(), key: nil))
        defer { store.close() }
        let notes = try store.createCollection("n.1")
        try notes.insert(id: "a\"\\/\u{E9}", json: Data(#"{"t":"x\ny","u":"/"}"#.utf8))
        let out = TestSupport.temporaryPath("out")
        let summary = try store.export(to: out)
        XCTAssertEqual(summary.documents, 1)
        XCTAssertEqual(
            String(decoding: try Data(contentsOf: URL(fileURLWithPath: out + "/collections/n.1.jsonl")), as: UTF8.self),
            #"{"id":"a\"\\/é","body":{"t":"x\ny","u":"/"}}"# + "\n")
        let mode = try FileManager.default.attributesOfItem(atPath: out + "/collections/n.1.jsonl")[.posixPermissions]
        XCTAssertEqual((mode as? NSNumber)?.intValue, 0o600)
    }

    func testNamesThatWouldLeaveTheExportDirectoryAreRefused() throws {
        let store = try Store.open(TestSupport.configuration(TestSupport.temporaryPath(), key: nil))
        defer { store.close() }
        try store.write { try $0.execute("INSERT INTO collections (name) VALUES ('../../escape')") }
        let out = TestSupport.temporaryPath("out")
        XCTAssertThrowsCase("storeCorrupted", try store.export(to: out))
        let parent = (out as NSString).deletingLastPathComponent
        XCTAssertFalse(FileManager.default.fileExists(atPath: parent + "/escape.jsonl"))
    }

    func testRecoveryToolReadsACrashLeftWriteAheadLog() throws {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import nacl.bindings, cryptography"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { throw XCTSkip("python3 is not installed") }
        probe.waitUntilExit()
        guard probe.terminationStatus == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlcipher") else {
            throw XCTSkip("PyNaCl, cryptography or the sqlcipher shell is missing (scripts/bootstrap --recover-tool)")
        }
        let path = TestSupport.temporaryPath()
        let keyBytes = TestSupport.rawKeyBytes(7)
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        let notes = try store.createCollection("notes")
        for index in 0..<20 { try notes.insert(id: "n\(index)", json: Data(#"{"i":\#(index)}"#.utf8)) }
        let token = try store.addAttachment(Data("in the log".utf8), contentType: "text/plain")
        try notes.insert(id: "with", json: Data(#"{"f":{"cipherdexAttachment":"\#(token.id)"}}"#.utf8))
        // The files as a kill now would leave them: the last commits only in the log.
        let crashed = TestSupport.temporaryPath("crashed")
        TestSupport.copyDirectory(path, to: crashed)
        let wal = (try? FileManager.default.attributesOfItem(atPath: crashed + "/store.db-wal")[.size] as? NSNumber)??
            .intValue
        XCTAssertGreaterThan(wal ?? 0, 0, "the copy has a write-ahead log")
        let expected = TestSupport.temporaryPath("expected")
        try store.export(to: expected)
        store.close()
        let keyFile = TestSupport.temporaryPath("key")
        try Data(keyBytes).write(to: URL(fileURLWithPath: keyFile))
        let before = TestSupport.snapshot(crashed)
        let out = TestSupport.temporaryPath("recovered")
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: Self.recoverTool)
        tool.arguments = [crashed, "--key-file", keyFile, out]
        try tool.run()
        tool.waitUntilExit()
        XCTAssertEqual(tool.terminationStatus, 0)
        XCTAssertEqual(TestSupport.snapshot(out), TestSupport.snapshot(expected))
        XCTAssertEqual(TestSupport.snapshot(crashed), before, "the tool changed the crashed store's files")
    }
}

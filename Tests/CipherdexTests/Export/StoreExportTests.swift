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

    /// Nor through another path to the same folders (a bind mount, as containers have): of the
    /// store's folder, of a folder holding it, or of a folder inside it; nor into the store
    /// opened through such a path. It wrote plaintext into the store's folder, exit 0.
    func testExportInsideTheStoreThroughABindMountIsRefusedAndWritesNothing() throws {
        let path = TestSupport.temporaryPath()
        var store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        try store.createCollection("notes").insert(JSONValue.object(["secret": .string("Zanzibar-4417")]), id: "a")
        _ = try store.addAttachment(Data("body".utf8), contentType: nil)
        let name = path.split(separator: "/").last.map(String.init) ?? ""
        let folder = try Mounts.bind(path)
        defer { Mounts.unmount(folder) }
        let parent = try Mounts.bind(FileSystem.parent(of: path))
        defer { Mounts.unmount(parent) }
        let attachments = try Mounts.bind(path + "/attachments")
        defer { Mounts.unmount(attachments) }
        let before = TestSupport.snapshot(path)
        for destination in [folder, folder + "/e", folder + "/a/b", parent + "/" + name + "/e", attachments + "/e"] {
            XCTAssertThrowsExactly(
                ExportError.destinationInsideStore(path: destination, store: path), try store.export(to: destination))
        }
        XCTAssertEqual(TestSupport.snapshot(path), before)
        store.close()
        store = try Store.open(TestSupport.configuration(folder, key: TestSupport.rawKey(1)))
        let reopened = TestSupport.snapshot(path)
        XCTAssertThrowsExactly(
            ExportError.destinationInsideStore(path: path + "/e", store: folder), try store.export(to: path + "/e"))
        XCTAssertEqual(TestSupport.snapshot(path), reopened)
        // Closed before the mount is undone (a store open through it keeps it busy).
        store.close()
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

    /// A disk that fills up during an export is `diskFull` naming the file, and what the export
    /// wrote is removed.
    func testAFullDiskIsDiskFullAndLeavesNothing() throws {
        let store = try Store.open(TestSupport.configuration(TestSupport.temporaryPath(), key: TestSupport.rawKey(1)))
        defer { store.close() }
        _ = try store.addAttachment(Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) }))
        let disk = try Mounts.tmpfs(size: 1 << 20)
        defer { Mounts.unmount(disk) }
        XCTAssertThrowsCase("diskFull", try store.export(to: disk + "/out"))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: disk), [])
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

    /// A page that does not decrypt or authenticate, met while exporting, is `storeCorrupted`
    /// naming the database (it was an untyped database error), and nothing is left.
    func testADamagedPageIsStoreCorruptedNamingTheDatabase() throws {
        let path = TestSupport.temporaryPath()
        do {
            let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
            defer { store.close() }
            let notes = try store.createCollection("notes")
            for number in 0..<200 {
                try notes.insert(
                    JSONValue.object(["n": .string(String(repeating: "\(number % 10)", count: 300))]), id: "d\(number)")
            }
        }
        TestSupport.flipBit(path + "/store.db", at: 4 * CipherSettings.default.pageSize + 500)
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        let out = TestSupport.temporaryPath("out")
        XCTAssertThrowsError(try store.export(to: out)) { error in
            guard case .storeCorrupted(let reason) = error as? StoreError else { return XCTFail("\(error)") }
            XCTAssertTrue(reason.contains("a page of the database \(path)/store.db"), reason)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    /// The collection names `.` and `..`, which earlier builds accepted, export to their own
    /// files inside the export (`collections/<name>.jsonl`), not as damage.
    func testCollectionsNamedDotAndDotDotOfEarlierBuildsExport() throws {
        let store = try Store.open(TestSupport.configuration(TestSupport.temporaryPath(), key: nil))
        defer { store.close() }
        try store.write { db in
            try db.execute("INSERT INTO collections (name) VALUES ('.'), ('..')")
        }
        let out = TestSupport.temporaryPath("out")
        try store.export(to: out)
        XCTAssertEqual(
            Set(try FileManager.default.contentsOfDirectory(atPath: out + "/collections")), ["..jsonl", "...jsonl"])
    }

    /// Skips unless python3 with PyNaCl and cryptography, and the sqlcipher shell, are installed.
    private func requireRecoveryTool() throws {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import nacl.bindings, cryptography"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { throw XCTSkip("python3 is not installed") }
        probe.waitUntilExit()
        guard probe.terminationStatus == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlcipher") else {
            throw XCTSkip("PyNaCl, cryptography or the sqlcipher shell is missing (scripts/bootstrap --recover-tool)")
        }
    }

    /// Runs `tools/cipherdex-recover` with `arguments`; its exit status and standard error.
    private func runRecoveryTool(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let tool = Process()
        tool.executableURL = URL(fileURLWithPath: Self.recoverTool)
        tool.arguments = arguments
        let errors = Pipe()
        tool.standardOutput = FileHandle.nullDevice
        tool.standardError = errors
        try tool.run()
        let stderr = errors.fileHandleForReading.readDataToEndOfFile()
        tool.waitUntilExit()
        return (tool.terminationStatus, String(decoding: stderr, as: UTF8.self))
    }

    func testRecoveryToolReadsACrashLeftWriteAheadLog() throws {
        try requireRecoveryTool()
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

    /// A store whose log holds `transactions` committed transactions of 50 documents each (after
    /// the collection's), as a kill leaves it (the files copied while the writer is open); the
    /// store, a file holding its raw key, and the byte offsets of the log's commit frames.
    private func crashLeftStore(transactions: Int) throws -> (store: String, keyFile: String, commits: [Int]) {
        let path = TestSupport.temporaryPath()
        let live = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        _ = try live.createCollection("notes")
        for transaction in 0..<transactions {
            try live.transaction { tx in
                for index in (transaction * 50)..<(transaction * 50 + 50) {
                    try tx.collection("notes").insert(
                        JSONValue.object([
                            "n": .string("\(index)"), "body": .string(String(repeating: "x", count: 300)),
                        ]),
                        id: String(format: "note-%03d", index))
                }
            }
        }
        let crashed = TestSupport.temporaryPath("crashed")
        TestSupport.copyDirectory(path, to: crashed)
        live.close()
        let keyFile = TestSupport.temporaryPath("key")
        try Data(TestSupport.rawKeyBytes(7)).write(to: URL(fileURLWithPath: keyFile))
        let pageSize = CipherSettings.default.pageSize
        let wal = Array(try XCTUnwrap(FileManager.default.contents(atPath: crashed + "/store.db-wal")))
        var commits: [Int] = []
        var offset = WriteAheadLogScan.headerSize
        while offset + WriteAheadLogScan.frameHeaderSize + pageSize <= wal.count {
            if wal[(offset + 4)..<(offset + 8)] != [0, 0, 0, 0] { commits.append(offset) }
            offset += WriteAheadLogScan.frameHeaderSize + pageSize
        }
        XCTAssertGreaterThanOrEqual(commits.count, transactions + 1, "every transaction is in the log")
        return (crashed, keyFile, commits)
    }

    /// The ids of the documents of "notes" in an export or recovery at `out`.
    private func noteIDs(in out: String) throws -> [String] {
        let lines = String(
            decoding: try XCTUnwrap(FileManager.default.contents(atPath: out + "/collections/notes.jsonl")),
            as: UTF8.self
        ).split(separator: "\n")
        return lines.map { String($0.dropFirst(#"{"id":""#.count).prefix(8)) }
    }

    /// A frame damaged after the crash with committed transactions after it: SQLite's recovery
    /// would end the log there and drop them, so the tool refuses the store (exit 4, as the
    /// library's open refuses it) naming the log and the frame's byte, and writes nothing; the
    /// log cut there (what it offers) is read with the transactions before the damage.
    func testRecoveryToolRefusesADamagedLogFrameWithCommitsAfterIt() throws {
        try requireRecoveryTool()
        let (crashed, keyFile, commits) = try crashLeftStore(transactions: 4)
        let pageSize = CipherSettings.default.pageSize
        // The first frame of the third-to-last transaction: two committed transactions follow it.
        let damaged = commits[commits.count - 3] + WriteAheadLogScan.frameHeaderSize + pageSize
        TestSupport.flipBit(crashed + "/store.db-wal", at: damaged + WriteAheadLogScan.frameHeaderSize + 200)
        XCTAssertThrowsCase(
            "storeCorrupted", try Store.open(TestSupport.configuration(crashed, key: TestSupport.rawKey(7))))
        let before = TestSupport.snapshot(crashed)
        let out = TestSupport.temporaryPath("recovered")
        let refused = try runRecoveryTool([crashed, "--key-file", keyFile, out])
        XCTAssertEqual(refused.status, 4, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("write-ahead log \(crashed)/store.db-wal"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("(byte \(damaged))"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out), "nothing is written")
        XCTAssertEqual(TestSupport.snapshot(crashed), before, "the tool changed the store's files")
        XCTAssertEqual(truncate(crashed + "/store.db-wal", off_t(damaged)), 0)
        let cut = try runRecoveryTool([crashed, "--key-file", keyFile, out])
        XCTAssertEqual(cut.status, 0, cut.stderr)
        XCTAssertEqual(try noteIDs(in: out), (0..<100).map { String(format: "note-%03d", $0) })
    }

    /// A bit flipped in the log's header (SQLite would ignore the whole log): the tool refuses
    /// the store as the library's open does, and reads it once the log is removed.
    func testRecoveryToolRefusesADamagedLogHeaderInFrontOfCommits() throws {
        try requireRecoveryTool()
        let (crashed, keyFile, _) = try crashLeftStore(transactions: 2)
        for byte in [0, 10, 29] {
            TestSupport.flipBit(crashed + "/store.db-wal", at: byte)
            let out = TestSupport.temporaryPath("recovered")
            let refused = try runRecoveryTool([crashed, "--key-file", keyFile, out])
            XCTAssertEqual(refused.status, 4, "byte \(byte): \(refused.stderr)")
            XCTAssertTrue(
                refused.stderr.contains("the header of the write-ahead log \(crashed)/store.db-wal is damaged"),
                refused.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), "nothing is written")
            TestSupport.flipBit(crashed + "/store.db-wal", at: byte)
        }
        // The salts and checksum zeroed: the frames after the first chain from its checksum.
        let intact = try Data(contentsOf: URL(fileURLWithPath: crashed + "/store.db-wal"))
        var zeroed = intact
        zeroed.replaceSubrange(16..<32, with: Data(count: 16))
        try zeroed.write(to: URL(fileURLWithPath: crashed + "/store.db-wal"))
        let zeroedRun = try runRecoveryTool([crashed, "--key-file", keyFile, TestSupport.temporaryPath("recovered")])
        XCTAssertEqual(zeroedRun.status, 4, zeroedRun.stderr)
        XCTAssertTrue(zeroedRun.stderr.contains("the header of the write-ahead log"), zeroedRun.stderr)
        try intact.write(to: URL(fileURLWithPath: crashed + "/store.db-wal"))
        try FileManager.default.removeItem(atPath: crashed + "/store.db-wal")
        let out = TestSupport.temporaryPath("recovered")
        XCTAssertEqual(try runRecoveryTool([crashed, "--key-file", keyFile, out]).status, 0)
    }

    /// Damage in the last transaction cannot be told from a torn write: the tool reads the store
    /// as SQLite's recovery leaves it, every transaction before that one, as the library opens it.
    func testRecoveryToolReadsALogWhoseLastTransactionIsTorn() throws {
        try requireRecoveryTool()
        let (crashed, keyFile, commits) = try crashLeftStore(transactions: 3)
        let pageSize = CipherSettings.default.pageSize
        let torn = commits[commits.count - 2] + WriteAheadLogScan.frameHeaderSize + pageSize
        TestSupport.flipBit(crashed + "/store.db-wal", at: torn + WriteAheadLogScan.frameHeaderSize + 10)
        let out = TestSupport.temporaryPath("recovered")
        let recovered = try runRecoveryTool([crashed, "--key-file", keyFile, out])
        XCTAssertEqual(recovered.status, 0, recovered.stderr)
        XCTAssertEqual(try noteIDs(in: out), (0..<100).map { String(format: "note-%03d", $0) })
        let expected = TestSupport.temporaryPath("expected")
        let store = try Store.open(TestSupport.configuration(crashed, key: TestSupport.rawKey(7)))
        try store.export(to: expected)
        store.close()
        XCTAssertEqual(TestSupport.snapshot(out), TestSupport.snapshot(expected))
    }
}

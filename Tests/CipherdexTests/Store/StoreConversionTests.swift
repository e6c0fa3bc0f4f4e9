import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Re-encryption and in-place encryption and decryption: everything kept, nothing of the old
/// generation left, and a crash at each step leaving the old or the new generation.
final class StoreConversionTests: XCTestCase {
    private static let secretText = "Patient Zanzibar-7731 has a confidential diagnosis"
    private static let attachmentText = "attachment body quetzalcoatl-4482 " + String(repeating: "x", count: 3 << 20)

    /// A store with a document, a large attachment and an indexed text file.
    private func populate(_ path: String, key: KeyProvider?) throws {
        let store = try Store.open(TestSupport.configuration(path, key: key))
        defer { store.close() }
        let notes = try store.createCollection("notes", indexedFields: ["n"])
        try notes.insert(JSONValue.object(["text": .string(Self.secretText), "n": .number(JSONNumber(7))]), id: "a")
        _ = try store.addAttachment(Data(Self.attachmentText.utf8), contentType: "text/plain")
        let file = TestSupport.temporaryPath("visit.txt")
        try "the consultation mentions xylophonist".write(toFile: file, atomically: true, encoding: .utf8)
        try store.library.add(fileAt: file, uid: "visit")
        try store.library.waitUntilIndexed()
    }

    /// Checks that everything `populate` wrote is there and `verify` is clean.
    private func checkContent(_ path: String, key: KeyProvider?, file: StaticString = #filePath, line: UInt = #line)
        throws
    {
        let store = try Store.open(TestSupport.configuration(path, key: key))
        defer { store.close() }
        let document = try store.collection("notes").get(id: "a")
        XCTAssertEqual(document?.value.objectValue?["text"]?.stringValue, Self.secretText, file: file, line: line)
        XCTAssertEqual(try store.collection("notes").find(where: [.equal("n", 7)]).count, 1, file: file, line: line)
        let length = Self.attachmentText.utf8.count
        let ids = try store.write {
            try $0.rows("SELECT id FROM attachments WHERE length = ?", [.integer(Int64(length))]).compactMap {
                $0[0].textValue
            }
        }
        XCTAssertEqual(ids.count, 1, file: file, line: line)
        if let id = ids.first {
            let head = try store.attachment(id).read(range: 0..<34)
            XCTAssertEqual(Array(head), Array(Self.attachmentText.utf8.prefix(34)), file: file, line: line)
        }
        XCTAssertEqual(
            try store.library.search("xylophonist").documents.keys.sorted(), ["visit"], file: file, line: line)
        let report = try store.verify()
        XCTAssertTrue(report.isHealthy, "\(report.problems)", file: file, line: line)
        // Deduplication works under the new keys: the same content is stored once.
        let again = try store.addAttachment(Data(Self.attachmentText.utf8), contentType: "text/plain")
        XCTAssertEqual(again.id, ids.first, "identical content is found again", file: file, line: line)
    }

    private func allBytes(_ path: String) -> [UInt8] {
        TestSupport.snapshot(path).values.reduce(into: []) { $0 += $1 }
    }

    func testReencryptionKeepsEverythingAndLeavesNoOldCiphertext() throws {
        let path = TestSupport.temporaryPath()
        try populate(path, key: TestSupport.rawKey(1))
        let before = TestSupport.snapshot(path)
        let oldAttachment = before.filter { $0.key.hasPrefix("attachments/") }.max { $0.value.count < $1.value.count }!
            .value
        var phases: [StoreConversionProgress.Phase] = []
        try Store.reencrypt(TestSupport.configuration(path, key: TestSupport.rawKey(1)), newKey: TestSupport.rawKey(2))
        {
            if phases.last != $0.phase { phases.append($0.phase) }
            return true
        }
        XCTAssertEqual(phases, [.database, .attachments, .switching])
        XCTAssertThrowsCase("keyInvalid", try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))))
        try checkContent(path, key: TestSupport.rawKey(2))
        let after = TestSupport.snapshot(path)
        XCTAssertNil(after["store.db"], "the old generation is gone")
        XCTAssertNotNil(after["store.1.db"])
        let bytes = allBytes(path)
        // No 64-byte run of the old attachment's ciphertext or of the old database is left.
        for offset in stride(from: 0, to: oldAttachment.count - 64, by: oldAttachment.count / 6) {
            XCTAssertFalse(
                TestSupport.contains(bytes, Array(oldAttachment[offset..<offset + 64])), "old ciphertext at \(offset)")
        }
        let oldDatabase = before["store.db"]!
        for offset in stride(from: 4096, to: oldDatabase.count - 64, by: max(4096, oldDatabase.count / 8)) {
            XCTAssertFalse(
                TestSupport.contains(bytes, Array(oldDatabase[offset..<offset + 64])), "old database page at \(offset)")
        }
        XCTAssertEqual(
            TestSupport.filesContaining([Array("Zanzibar-7731".utf8), Array("quetzalcoatl".utf8)], under: path), [])
        // Re-encrypting again with the same key works and moves to generation 2.
        try Store.reencrypt(TestSupport.configuration(path, key: TestSupport.rawKey(2)))
        try checkContent(path, key: TestSupport.rawKey(2))
        XCTAssertNotNil(TestSupport.snapshot(path)["store.2.db"])
    }

    func testEncryptAndDecryptInPlace() throws {
        let path = TestSupport.temporaryPath()
        try populate(path, key: nil)
        XCTAssertFalse(TestSupport.filesContaining([Array("Zanzibar-7731".utf8)], under: path).isEmpty)
        try Store.encrypt(TestSupport.configuration(path, key: nil), newKey: TestSupport.passphrase("new secret"))
        XCTAssertThrowsCase("keyRequired", try Store.open(TestSupport.configuration(path, key: nil)))
        try checkContent(path, key: TestSupport.passphrase("new secret"))
        XCTAssertEqual(
            TestSupport.filesContaining(
                [Array("Zanzibar-7731".utf8), Array("quetzalcoatl".utf8), Array("xylophonist".utf8)], under: path), [],
            "no plaintext is left anywhere")
        XCTAssertThrowsError(
            try Store.encrypt(
                TestSupport.configuration(path, key: TestSupport.passphrase("new secret")),
                newKey: TestSupport.rawKey(3)))
        // Without its key, an encrypted store is said to be encrypted already (not "key required").
        XCTAssertThrowsError(
            try Store.encrypt(TestSupport.configuration(path, key: nil), newKey: TestSupport.rawKey(3))
        ) {
            XCTAssertEqual($0 as? StoreConversionError, .alreadyEncrypted(path: path))
        }

        try Store.decrypt(TestSupport.configuration(path, key: TestSupport.passphrase("new secret")))
        XCTAssertThrowsCase(
            "keyUnexpected", try Store.open(TestSupport.configuration(path, key: TestSupport.passphrase("new secret"))))
        try checkContent(path, key: nil)
        XCTAssertFalse(try Store.open(TestSupport.configuration(path, key: nil)).isEncrypted)
        // With a key, an unencrypted store is said to be not encrypted (not "key unexpected").
        XCTAssertThrowsCase(
            "notEncrypted", try Store.decrypt(TestSupport.configuration(path, key: TestSupport.rawKey(3))))
    }

    func testACancelLeavesTheStoreAsItWas() throws {
        let path = TestSupport.temporaryPath()
        try populate(path, key: TestSupport.rawKey(1))
        try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close()  // settles staging/
        let before = TestSupport.snapshot(path)
        // Cancelled 1 MiB into the 3 MiB attachment: mid-file, with part of it written anew.
        var attachmentsStart: UInt64?
        XCTAssertThrowsError(
            try Store.reencrypt(
                TestSupport.configuration(path, key: TestSupport.rawKey(1)),
                progress: { progress in
                    guard progress.phase == .attachments else { return true }
                    let start = attachmentsStart ?? progress.completedBytes
                    attachmentsStart = start
                    return progress.completedBytes < start + (1 << 20)
                })
        ) { XCTAssertEqual($0 as? StoreConversionError, .cancelled) }
        XCTAssertNotNil(attachmentsStart, "the cancel came during the attachments")
        XCTAssertEqual(
            Set(TestSupport.snapshot(path).keys).subtracting(["staging/"]), Set(before.keys).subtracting(["staging/"]),
            "nothing of the new generation is left")
        try checkContent(path, key: TestSupport.rawKey(1))
    }

    func testAShortDiskIsRefusedBeforeAnythingIsWritten() throws {
        let mount = try Mounts.tmpfs(size: 64 << 20)
        defer { Mounts.unmount(mount) }
        let path = mount + "/store"
        try populate(path, key: TestSupport.rawKey(1))
        try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close()
        let filler = try Mounts.fill(mount, leaving: 2 << 20)
        let before = TestSupport.snapshot(path)
        XCTAssertThrowsError(try Store.reencrypt(TestSupport.configuration(path, key: TestSupport.rawKey(1)))) {
            error in
            guard case StoreConversionError.insufficientSpace(_, let needed, let available) = error else {
                return XCTFail("\(error)")
            }
            XCTAssertGreaterThan(needed, available)
        }
        XCTAssertEqual(TestSupport.snapshot(path), before, "nothing was written")
        unlink(filler)
        try checkContent(path, key: TestSupport.rawKey(1))
    }

    func testADiskFillingUpDuringTheCopyIsDiskFullAndChangesNothing() throws {
        for (phase, target) in [
            (StoreConversionProgress.Phase.database, Store.ConversionTarget.encrypted(TestSupport.rawKey(2))),
            (.attachments, .encrypted(TestSupport.rawKey(2))), (.database, .plaintext), (.attachments, .plaintext),
        ] {
            let mount = try Mounts.tmpfs(size: 64 << 20)
            defer { Mounts.unmount(mount) }
            let path = mount + "/store"
            try populate(path, key: TestSupport.rawKey(1))
            try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close()
            let before = TestSupport.snapshot(path)
            var filler: String?
            XCTAssertThrowsCase(
                "diskFull",
                try Store.convert(
                    TestSupport.searchConfiguration(path, key: TestSupport.rawKey(1)), target: target,
                    progress: { progress in
                        // The space check has passed: the disk fills up as the copy starts.
                        if progress.phase == phase, filler == nil { filler = try? Mounts.fill(mount, leaving: 0) }
                        return true
                    }, faultPoint: { _ in }))
            XCTAssertNotNil(filler)
            XCTAssertEqual(TestSupport.snapshot(path), before, "\(phase): nothing changed")
            if let filler { unlink(filler) }
            try checkContent(path, key: TestSupport.rawKey(1))
        }
    }

    func testACrashAtEveryStepLeavesTheOldOrTheNewGeneration() throws {
        let template = TestSupport.temporaryPath()
        try populate(template, key: TestSupport.rawKey(1))
        var steps: [ConversionStep] = [.databaseExported, .attachmentCopied(0), .hashesUpdated, .switched]
        steps += AtomicWriteStep.allCases.map { ConversionStep.metadata($0) }
        for step in steps {
            let path = TestSupport.temporaryPath()
            TestSupport.copyDirectory(template, to: path)
            XCTAssertThrowsError(
                try Store.convert(
                    TestSupport.searchConfiguration(path, key: TestSupport.rawKey(1)),
                    target: .encrypted(TestSupport.rawKey(2)),
                    progress: nil, faultPoint: { if $0 == step { throw InjectedFault() } }))
            let switched: Bool
            switch step {
            case .switched, .metadata(.renamed): switched = true
            default: switched = false
            }
            let opening = switched ? TestSupport.rawKey(2) : TestSupport.rawKey(1)
            XCTAssertThrowsCase(
                "keyInvalid",
                try Store.open(
                    TestSupport.configuration(path, key: switched ? TestSupport.rawKey(1) : TestSupport.rawKey(2))))
            try checkContent(path, key: opening)
            let names = Set(
                TestSupport.snapshot(path).keys.compactMap { $0.split(separator: "/").first.map(String.init) })
            XCTAssertEqual(
                Set(
                    names.filter {
                        Store.generationOfDataFile($0) != nil && !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm")
                    },
                ), Set(switched ? ["store.1.db", "attachments.1"] : ["store.db", "attachments"]),
                "after a crash at \(step), the next open removed the other generation")
        }
    }
}

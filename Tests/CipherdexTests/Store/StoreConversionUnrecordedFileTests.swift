import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// A file in the attachments folder that no row records, met by a conversion: sealed again with
/// the new keys when it authenticates as the store's own, refused (the store unchanged) when
/// nothing proves it is — never carried over as it is, readable without the key (`encrypt`) or
/// with the old one (`reencrypt`).
final class StoreConversionUnrecordedFileTests: XCTestCase {
    private let marker = Data("UNRECORDED-PLAINTEXT-MARKER".utf8)

    /// A store holding one recorded attachment and the file of a second one whose row is gone
    /// (as after an older `store.db` was put back). Returns the unrecorded file's id.
    private func makeStore(at path: String, key: KeyProvider?) throws -> String {
        let store = try Store.open(TestSupport.configuration(path, key: key))
        defer { store.close() }
        _ = try store.addAttachment(Data("recorded".utf8))
        let lost = try store.addAttachment(marker + Data(repeating: 7, count: 100_000))
        try store.write { db in try db.execute("DELETE FROM attachments WHERE id = ?", [.text(lost.id)]) }
        return lost.id
    }

    private func assertNoFileHolds(
        _ bytes: Data, under path: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        for (name, content) in TestSupport.snapshot(path) {
            XCTAssertNil(Data(content).range(of: bytes), "\(name) holds the bytes", file: file, line: line)
        }
    }

    func testEncryptRefusesAnUnrecordedPlaintextFileAndChangesNothing() throws {
        let path = TestSupport.temporaryPath()
        let lost = try makeStore(at: path, key: nil)
        let before = TestSupport.snapshot(path)
        XCTAssertThrowsError(
            try Store.encrypt(TestSupport.configuration(path, key: nil), newKey: TestSupport.rawKey(1))
        ) { error in
            guard case .unrecordedAttachmentFile(let file, let reason) = error as? StoreConversionError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(file, path + "/attachments/" + lost)
            XCTAssertTrue(reason.contains("not encrypted"), reason)
            XCTAssertTrue(error.localizedDescription.contains("move it out of the store's folder"))
        }
        XCTAssertEqual(
            TestSupport.snapshot(path).filter { $0.key != "staging/" }, before.filter { $0.key != "staging/" })

        // Moved out, the store encrypts, and no file of it holds the plaintext.
        let outside = TestSupport.temporaryPath("moved")
        try FileManager.default.moveItem(atPath: path + "/attachments/" + lost, toPath: outside)
        try Store.encrypt(TestSupport.configuration(path, key: nil), newKey: TestSupport.rawKey(1))
        assertNoFileHolds(marker, under: path)
        assertNoFileHolds(Data("recorded".utf8), under: path)
    }

    func testReencryptSealsAnUnrecordedFileOfTheStoreAgain() throws {
        let path = TestSupport.temporaryPath()
        let lost = try makeStore(at: path, key: TestSupport.rawKey(1))
        let oldFile = try Data(contentsOf: URL(fileURLWithPath: path + "/attachments/" + lost))
        try Store.reencrypt(TestSupport.configuration(path, key: TestSupport.rawKey(1)), newKey: TestSupport.rawKey(2))

        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(2)))
        defer { store.close() }
        let storage = store.attachmentStorage
        let reader = try AttachmentReader(id: lost, path: storage.path(of: lost), masterKey: storage.masterKey)
        XCTAssertEqual(try reader.read(range: 0..<reader.length), marker + Data(repeating: 7, count: 100_000))
        XCTAssertEqual(
            try store.verify().problems, ["attachment file \(lost) is not recorded in the database"])
        // No file holds the old ciphertext (what the old keys open).
        assertNoFileHolds(oldFile.subdata(in: 0..<4096), under: path)
        assertNoFileHolds(oldFile.subdata(in: (oldFile.count - 4096)..<oldFile.count), under: path)
    }

    func testDecryptWritesAnUnrecordedFileOfTheStorePlain() throws {
        let path = TestSupport.temporaryPath()
        let lost = try makeStore(at: path, key: TestSupport.rawKey(1))
        try Store.decrypt(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        let store = try Store.open(TestSupport.configuration(path, key: nil))
        defer { store.close() }
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: store.attachmentStorage.path(of: lost))),
            marker + Data(repeating: 7, count: 100_000))
    }

    func testReencryptRefusesFilesItCannotProveItsOwn() throws {
        let path = TestSupport.temporaryPath()
        _ = try makeStore(at: path, key: TestSupport.rawKey(1))
        // An open and close first, so that what they finish is not taken for the conversion's.
        try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close()
        let foreignID = String(repeating: "ab", count: 16)
        let cases: [(name: String, make: (String) throws -> Void, reason: String)] = [
            (
                foreignID, { try Data("another program's file".utf8).write(to: URL(fileURLWithPath: $0)) },
                "does not decrypt"
            ),
            ("notes.txt", { try Data("notes".utf8).write(to: URL(fileURLWithPath: $0)) }, "not an attachment id"),
            (
                foreignID, { try FileManager.default.createDirectory(atPath: $0, withIntermediateDirectories: false) },
                "not a regular file"
            ),
        ]
        for (name, make, expected) in cases {
            let file = path + "/attachments/" + name
            try make(file)
            let before = TestSupport.snapshot(path)
            XCTAssertThrowsError(
                try Store.reencrypt(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
            ) { error in
                guard case .unrecordedAttachmentFile(let named, let reason) = error as? StoreConversionError else {
                    return XCTFail("\(name): \(error)")
                }
                XCTAssertEqual(named, file)
                XCTAssertTrue(reason.contains(expected), "\(name): \(reason)")
            }
            let after = TestSupport.snapshot(path)
            XCTAssertEqual(Set(after.keys), Set(before.keys), "\(name): the conversion left files")
            for (file, content) in after where before[file] != content {
                XCTFail("\(name): the refused conversion changed \(file)")
            }
            try FileManager.default.removeItem(atPath: file)
        }
        try Store.reencrypt(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
    }

    /// A file whose name is not valid UTF-8 is named escaped, as it can be typed to move it, and
    /// `info` does not count it as an attachment (file-system audit 7d: `x\u{FFFD}`, and counted).
    func testAFileNamedInBytesThatAreNotUTF8IsNamedEscapedAndNotCounted() throws {
        let path = TestSupport.temporaryPath()
        _ = try makeStore(at: path, key: TestSupport.rawKey(1))
        let name = Array((path + "/attachments/x").utf8) + [0xFE, 0]
        let fd = name.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o600) }
        }
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        XCTAssertEqual(try store.info().attachmentCount, 2, "the recorded one and the lost one, not the foreign file")
        store.close()
        XCTAssertThrowsError(try Store.reencrypt(TestSupport.configuration(path, key: TestSupport.rawKey(1)))) {
            error in
            guard case .unrecordedAttachmentFile(let named, let reason) = error as? StoreConversionError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(named, path + "/attachments/x\\xFE")
            XCTAssertEqual(reason, "its name is not an attachment id")
        }
    }

    /// The folder the new generation goes into (`attachments.1`, what an interrupted conversion
    /// may leave) holding what is not the store's: refused before the copy is written there,
    /// naming it (the conversion took it into the new generation, reported success, and `verify`
    /// then called the store damaged).
    func testANewGenerationsFolderHoldingForeignFilesIsRefused() throws {
        let path = TestSupport.temporaryPath()
        _ = try makeStore(at: path, key: TestSupport.rawKey(1))
        try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))).close()
        try FileManager.default.createDirectory(atPath: path + "/attachments.1/X", withIntermediateDirectories: true)
        try Data("someone's".utf8).write(to: URL(fileURLWithPath: path + "/attachments.1/X/file"))
        XCTAssertThrowsError(
            try Store.reencrypt(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        ) { error in
            guard case .unrecordedAttachmentFile(let named, _) = error as? StoreConversionError else {
                return XCTFail("\(error)")
            }
            XCTAssertEqual(named, path + "/attachments.1/X")
        }
        XCTAssertFalse(FileSystem.exists(path + "/store.1.db"))
        XCTAssertEqual(FileManager.default.contents(atPath: path + "/attachments.1/X/file"), Data("someone's".utf8))
    }
}

import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// An unencrypted store's attachment files hold the plaintext with no tag: a changed byte is
/// found by the recorded content hash (FORMAT.md 7.4) in `verify`, every whole read and export,
/// and a backup's check of its copies, and older stores' hashes (the whole-content hash from
/// before the tree, the duplicate form) are accepted.
final class PlaintextAttachmentIntegrityTests: XCTestCase {
    private var path = ""
    private var store: Store!

    override func setUpWithError() throws {
        path = TestSupport.temporaryPath()
        store = try Store.open(TestSupport.configuration(path, key: nil))
    }

    override func tearDown() {
        store?.close()
    }

    private func content(_ count: Int, seed: UInt64 = 1) -> Data {
        var state = seed
        return Data(
            (0..<count).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 33)
            })
    }

    private func flipByte(at offset: Int, of id: String) throws {
        let file = path + "/attachments/" + id
        var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        bytes[offset] ^= 1
        try bytes.write(to: URL(fileURLWithPath: file))
    }

    private func setRecordedHash(_ hash: [UInt8], of id: String) throws {
        try store.write {
            try $0.execute("UPDATE attachments SET content_hash = ? WHERE id = ?", [.blob(hash), .text(id)])
        }
    }

    private func assertMismatch(_ id: String, _ body: () throws -> Void, line: UInt = #line) {
        XCTAssertThrowsError(try body(), line: line) { error in
            XCTAssertEqual(error as? AttachmentError, .contentHashMismatch(id: id), line: line)
        }
    }

    func testAChangedByteIsFoundByVerifyAndEveryWholeRead() async throws {
        let data = content(3 << 20 | 12_345)
        let token = try store.addAttachment(data)
        let healthy = try store.addAttachment(content(70_000, seed: 2))
        let empty = try store.addAttachment(Data())
        XCTAssertTrue(try store.verify().isHealthy)
        XCTAssertEqual(try store.attachmentData(token.id), data)

        try flipByte(at: 1_000_000, of: token.id)
        let report = try store.verify()
        XCTAssertEqual(report.attachmentsChecked, 2)
        XCTAssertEqual(report.problems.count, 1, "\(report.problems)")
        XCTAssertTrue(report.problems.first?.contains(token.id) == true, "\(report.problems)")
        XCTAssertTrue(report.problems.first?.contains("content hash") == true, "\(report.problems)")

        assertMismatch(token.id) { _ = try self.store.attachmentData(token.id) }
        // The last piece is never handed over: what arrived is short of the whole.
        var received = 0
        assertMismatch(token.id) { try self.store.attachment(token.id).forEachChunk { received += $0.count } }
        XCTAssertLessThan(received, data.count)
        XCTAssertGreaterThan(received, 0, "earlier pieces are handed over while the hash is computed")
        let output = TestSupport.temporaryPath("cat.out")
        _ = FileManager.default.createFile(atPath: output, contents: nil)
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: output))
        assertMismatch(token.id) { try self.store.attachment(token.id).write(toFileDescriptor: handle.fileDescriptor) }
        try handle.close()
        XCTAssertLessThan(try Data(contentsOf: URL(fileURLWithPath: output)).count, data.count)
        do {
            var chunks = 0
            for try await chunk in try store.attachment(token.id).chunks(chunkSize: 1 << 20) { chunks += chunk.count }
            XCTFail("the damaged content was streamed whole (\(chunks) bytes)")
        } catch {
            XCTAssertEqual(error as? AttachmentError, .contentHashMismatch(id: token.id))
        }
        do {
            _ = try await store.attachmentDataAsync(token.id)
            XCTFail("the damaged content was read")
        } catch {
            XCTAssertEqual(error as? AttachmentError, .contentHashMismatch(id: token.id))
        }
        let exported = TestSupport.temporaryPath("export")
        XCTAssertThrowsError(try store.export(to: exported)) { error in
            XCTAssertEqual(error as? AttachmentError, .contentHashMismatch(id: token.id))
        }
        // A byte range cannot be checked without reading everything: it is read as it is.
        XCTAssertEqual(try store.attachment(token.id).read(range: 999_999..<1_000_001).count, 2)

        // The others are unaffected.
        XCTAssertEqual(try store.attachmentData(healthy.id), content(70_000, seed: 2))
        XCTAssertEqual(try store.attachmentData(empty.id), Data())
        var pieces = 0
        for try await _ in try store.attachment(healthy.id).chunks(chunkSize: 4096) { pieces += 1 }
        XCTAssertEqual(pieces, 18)
        try flipByte(at: 1_000_000, of: token.id)
        XCTAssertTrue(try store.verify().isHealthy)
        XCTAssertEqual(try store.attachmentData(token.id), data)
    }

    /// A store written before the tree holds BLAKE2b-256 of the whole content; one decrypted with
    /// two copies of the same content holds the duplicate form: both are healthy, and a changed
    /// byte is still found under each.
    /// A backup checks each plain file it copied against the recorded hash: damage is not
    /// carried into a backup that says it was verified.
    func testABackupRefusesAChangedByteAndLeavesNoCopy() throws {
        let token = try store.addAttachment(content(300_000), contentType: nil)
        try flipByte(at: 150_000, of: token.id)
        let destination = TestSupport.temporaryPath("backup")
        XCTAssertThrowsExactly(AttachmentError.contentHashMismatch(id: token.id), try store.backup(to: destination))
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
    }

    func testOlderFormsOfTheRecordedHashAreAccepted() throws {
        let data = content(200_000, seed: 3)
        let token = try store.addAttachment(data)
        let whole = Sodium.StreamingHash(key: nil)
        data.withUnsafeBytes { whole.update($0) }
        let wholeHash = whole.finish()
        let tree = Sodium.ContentHash(key: nil)
        data.withUnsafeBytes { tree.update($0) {} }
        let treeHash = tree.finish()
        let forms = [
            ("whole content", wholeHash),
            ("duplicate form of the tree", Sodium.ContentHash.duplicateForm(of: treeHash, id: token.id, key: nil)),
            (
                "duplicate form of the whole content",
                Sodium.ContentHash.duplicateForm(of: wholeHash, id: token.id, key: nil)
            ),
        ]
        for (name, hash) in forms {
            try setRecordedHash(hash, of: token.id)
            XCTAssertTrue(try store.verify().isHealthy, name)
            XCTAssertEqual(try store.attachmentData(token.id), data, name)
            try flipByte(at: 150_000, of: token.id)
            XCTAssertEqual(try store.verify().problems.count, 1, name)
            assertMismatch(token.id) { _ = try self.store.attachmentData(token.id) }
            try flipByte(at: 150_000, of: token.id)
        }
        // A hash of other content (or a keyed one) is not accepted.
        try setRecordedHash(Array(repeating: 7, count: 32), of: token.id)
        XCTAssertEqual(try store.verify().problems.count, 1)
        assertMismatch(token.id) { _ = try self.store.attachmentData(token.id) }
    }
}

import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Attachments through the store: adding, reading, deduplication, removal, garbage collection,
/// transactions, crash leftovers and what lands on disk.
final class AttachmentStoreTests: XCTestCase {
    private var path = ""
    private var store: Store!

    override func setUpWithError() throws {
        path = TestSupport.temporaryPath()
        store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
    }

    override func tearDown() {
        store?.close()
    }

    private func bytes(_ count: Int, seed: UInt64 = 1) -> Data {
        var state = seed
        return Data(
            (0..<count).map { _ in
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                return UInt8(truncatingIfNeeded: state >> 33)
            })
    }

    /// A reader of a closed store reads nothing: `StoreError.closed`, as every other handle
    /// (it decrypted on after close, and after the store was deleted).
    func testAReaderOfAClosedStoreIsClosed() async throws {
        for key in [TestSupport.rawKey(1), nil] {
            let path = TestSupport.temporaryPath()
            let store = try Store.open(TestSupport.configuration(path, key: key))
            let token = try store.addAttachment(Data("secret content".utf8))
            let reader = try store.attachment(token.id)
            XCTAssertEqual(try reader.readAll(), Data("secret content".utf8))
            store.close()
            XCTAssertThrowsCase("closed", try reader.readAll())
            XCTAssertThrowsCase("closed", try reader.read(range: UInt64(0)..<UInt64(3)))
            XCTAssertThrowsCase("closed", try reader.forEachChunk { _ in })
            do {
                for try await _ in reader.chunks() { XCTFail("a chunk after close") }
                XCTFail("no error after close")
            } catch {
                XCTAssertEqual((error as? StoreError)?.name, "closed")
            }
            try Store.delete(at: path)
            XCTAssertThrowsCase("closed", try reader.readAll())
        }
    }

    func testAddFromDataFileSequenceAndAsyncStream() async throws {
        let content = bytes(200_000)
        let fromData = try store.addAttachment(content, contentType: "application/octet-stream", metadata: ["k": "v"])
        XCTAssertEqual(fromData.length, 200_000)
        XCTAssertEqual(fromData.metadata, ["k": "v"])
        XCTAssertEqual(try store.attachmentData(fromData.id), content)

        let other = bytes(70_000, seed: 2)
        let file = TestSupport.temporaryPath("input.pdf")
        _ = FileManager.default.createFile(atPath: file, contents: other)
        let fromFile = try store.addAttachment(fromFile: file)
        XCTAssertEqual(fromFile.contentType, "application/pdf")
        XCTAssertEqual(try store.attachmentData(fromFile.id), other)

        let pieces = stride(from: 0, to: 100_000, by: 7_000).map { bytes(min(7_000, 100_000 - $0), seed: UInt64($0)) }
        let fromPieces = try store.addAttachment(from: pieces)
        XCTAssertEqual(try store.attachmentData(fromPieces.id), pieces.reduce(Data(), +))

        let stream = AsyncStream<Data> { continuation in
            for piece in pieces.reversed() { continuation.yield(piece) }
            continuation.finish()
        }
        let fromStream = try await store.addAttachmentAsync(from: stream)
        XCTAssertEqual(try store.attachmentData(fromStream.id), pieces.reversed().reduce(Data(), +))
        var streamed = Data()
        for try await chunk in try store.attachment(fromStream.id).chunks(chunkSize: 10_000) { streamed.append(chunk) }
        XCTAssertEqual(streamed, pieces.reversed().reduce(Data(), +))
    }

    func testRangeReadsAndEmptyAttachment() throws {
        let content = bytes(300_000)
        let token = try store.addAttachment(content)
        let reader = try store.attachment(token.id)
        for range in [0..<1, 65_535..<65_537, 100_000..<231_073, 299_999..<300_000, 0..<300_000] {
            XCTAssertEqual(try reader.read(range: UInt64(range.lowerBound)..<UInt64(range.upperBound)), content[range])
        }
        XCTAssertThrowsError(try reader.read(range: 299_999..<300_001)) { error in
            guard case AttachmentError.rangeOutOfBounds = error else { return XCTFail("\(error)") }
        }
        let empty = try store.addAttachment(Data())
        XCTAssertEqual(empty.length, 0)
        XCTAssertEqual(try store.attachmentData(empty.id), Data())
    }

    func testIdenticalContentIsStoredOnceWithKeyedHash() throws {
        let content = bytes(50_000)
        let first = try store.addAttachment(content)
        let second = try store.addAttachment(content, metadata: ["name": "copy"])
        XCTAssertEqual(first.id, second.id)
        XCTAssertEqual(second.metadata, ["name": "copy"])
        XCTAssertEqual(FileSystem.contents(of: path + "/attachments").count, 1)
        // The hash is keyed: a different store holding the same content gives no equal value.
        let hashes = try store.read { try $0.rows("SELECT content_hash FROM attachments") }
        XCTAssertNotEqual(hashes.first?.first?.blobValue, Sodium.checksum(Array(content)))
    }

    func testRemoveAndCollectUnreferenced() throws {
        let kept = try store.addAttachment(bytes(10_000, seed: 1))
        let dropped = try store.addAttachment(bytes(10_000, seed: 2))
        let removed = try store.addAttachment(bytes(10_000, seed: 3))
        try store.collection("notes").insert(["title": "a note", "files": [kept]] as NoteDocument, id: "n1")
        XCTAssertTrue(try store.removeAttachment(removed.id))
        XCTAssertFalse(try store.removeAttachment(removed.id))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "/attachments/" + removed.id))
        XCTAssertThrowsError(try store.attachment(removed.id)) { error in
            XCTAssertEqual(error as? AttachmentError, .notFound(id: removed.id))
        }
        XCTAssertEqual(try store.collectUnreferencedAttachments(), [dropped.id])
        XCTAssertEqual(try store.attachmentTokens().map(\.id), [kept.id])
        XCTAssertEqual(FileSystem.contents(of: path + "/attachments"), [kept.id])
    }

    func testTransactionRollbackRemovesTheAttachment() throws {
        struct Abort: Error {}
        XCTAssertThrowsError(
            try store.transaction { tx in
                _ = try tx.addAttachment(self.bytes(20_000))
                throw Abort()
            })
        XCTAssertEqual(try store.attachmentTokens(), [])
        XCTAssertEqual(FileSystem.contents(of: path + "/attachments"), [])
        let token = try store.transaction { tx -> AttachmentToken in
            let token = try tx.addAttachment(self.bytes(20_000))
            try tx.collection("notes").insert(["title": "x", "files": [token]] as NoteDocument, id: "n")
            return token
        }
        XCTAssertEqual(try store.attachmentData(token.id), bytes(20_000))
    }

    func testCrashLeftoversAreReconciledAtOpenAfterKeyCheckDeletingOnlyWhatIsProvablyUnneeded() throws {
        let kept = try store.addAttachment(bytes(30_000))
        let published = try store.addAttachment(bytes(31_000))
        let removed = try store.addAttachment(bytes(32_000))
        store.close()
        // What a killed writer leaves: a partial staged file (never committed), a committed file
        // not yet moved out of staging, a file whose removal committed before its unlink, and
        // a file no record names (which nothing proves unneeded).
        try FileManager.default.createDirectory(atPath: path + "/staging", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(
            atPath: path + "/staging/0123456789abcdef0123456789abcdef", contents: Data(count: 5000))
        try FileManager.default.moveItem(
            atPath: path + "/attachments/" + published.id, toPath: path + "/staging/" + published.id)
        store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        try store.write { db in
            try db.execute("DELETE FROM attachments WHERE id = ?", [.text(removed.id)])
            try db.execute("INSERT INTO attachment_removals (id) VALUES (?)", [.text(removed.id)])
        }
        store.close()
        let orphan = path + "/attachments/fedcba9876543210fedcba9876543210"
        _ = FileManager.default.createFile(atPath: orphan, contents: Data(count: 5000))
        // A wrong key changes nothing...
        let before = TestSupport.snapshot(path)
        XCTAssertThrowsCase("keyInvalid", try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(2))))
        XCTAssertEqual(TestSupport.snapshot(path), before)
        // ...the right key finishes what was committed and removes what provably is not needed.
        store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "/staging"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "/attachments/" + removed.id))
        XCTAssertTrue(FileManager.default.fileExists(atPath: path + "/attachments/" + published.id))
        XCTAssertTrue(FileManager.default.fileExists(atPath: orphan), "an unrecorded file is reported, never deleted")
        XCTAssertEqual(try store.attachmentData(kept.id), bytes(30_000))
        XCTAssertEqual(try store.attachmentData(published.id), bytes(31_000))
        XCTAssertEqual(try store.read { try $0.scalar("SELECT count(*) FROM attachment_removals")?.integerValue }, 0)
        XCTAssertEqual(
            try store.verify().problems,
            ["attachment file fedcba9876543210fedcba9876543210 is not recorded in the database"])
        try FileManager.default.removeItem(atPath: orphan)
        XCTAssertTrue(try store.verify().isHealthy)
    }

    func testRemovalIsRecordedWithTheRowAndTheFileGoesAfterTheCommit() throws {
        let token = try store.addAttachment(bytes(10_000))
        try store.transaction { tx in
            XCTAssertTrue(try tx.removeAttachment(token.id))
            XCTAssertEqual(
                try tx.connection.scalar("SELECT count(*) FROM attachment_removals WHERE id = ?", [.text(token.id)])?
                    .integerValue, 1)
            XCTAssertTrue(FileManager.default.fileExists(atPath: self.path + "/attachments/" + token.id))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "/attachments/" + token.id))
    }

    /// A store kept open while attachments come and go keeps no more than the last removal's
    /// record (each stayed until the next open: resources audit 4, 2,000 rows after 2,000
    /// removals, the database growing).
    func testRemovalRecordsDoNotPileUpWhileTheStoreIsOpen() throws {
        for round in 0..<50 {
            let token = try store.addAttachment(bytes(1_000, seed: UInt64(round + 1)))
            XCTAssertTrue(try store.removeAttachment(token.id))
        }
        let records = try store.read { try $0.scalar("SELECT count(*) FROM attachment_removals")?.integerValue }
        XCTAssertLessThanOrEqual(records ?? 0, 1)
        XCTAssertTrue(try store.verify().isHealthy)
    }

    func testSwappedAndDamagedFilesAreTypedErrorsAndVerifyNamesThem() throws {
        let first = try store.addAttachment(bytes(150_000, seed: 1))
        let second = try store.addAttachment(bytes(150_000, seed: 2))
        let firstPath = path + "/attachments/" + first.id
        let secondPath = path + "/attachments/" + second.id
        let firstBytes = FileManager.default.contents(atPath: firstPath)!
        // Whole files swapped between ids.
        try FileManager.default.removeItem(atPath: secondPath)
        try FileManager.default.copyItem(atPath: firstPath, toPath: secondPath)
        XCTAssertThrowsError(try store.attachmentData(second.id)) { error in
            XCTAssertEqual(error as? AttachmentError, .headerAuthenticationFailed(id: second.id))
        }
        // One flipped bit in a chunk.
        TestSupport.flipBit(firstPath, at: firstBytes.count - 100)
        XCTAssertThrowsError(try store.attachmentData(first.id)) { error in
            guard case AttachmentError.chunkAuthenticationFailed(first.id, 2) = error else {
                return XCTFail("\(error)")
            }
        }
        // Range reads of undamaged chunks still work.
        XCTAssertEqual(try store.attachment(first.id).read(range: 0..<1000), bytes(150_000, seed: 1)[0..<1000])
        let report = try store.verify()
        XCTAssertEqual(report.attachmentsChecked, 0)
        XCTAssertEqual(report.problems.count, 2, "\(report.problems)")
        XCTAssertTrue(report.problems.contains { $0.contains(first.id) })
        XCTAssertTrue(report.problems.contains { $0.contains(second.id) })
    }

    func testCanaryScanAfterDocumentsAndAttachmentsWrittenUpdatedRemoved() throws {
        let canary = "CANARY-attachment-5b1e-patient-dossier"
        var text = Data()
        for index in 0..<5_000 { text.append(Data("\(canary) line \(index)\n".utf8)) }
        let token = try store.addAttachment(text, contentType: "text/plain", metadata: ["title": canary])
        let removed = try store.addAttachment(Data((canary + " removed").utf8))
        let notes = try store.collection("notes")
        try notes.insert(["title": canary, "files": [token]] as NoteDocument, id: "n1")
        try notes.insert(["title": canary + " 2", "files": []] as NoteDocument, id: "n2")
        _ = try notes.upsert(["title": canary + " updated", "files": [token]] as NoteDocument, id: "n1")
        XCTAssertTrue(try notes.remove(id: "n2"))
        XCTAssertTrue(try store.removeAttachment(removed.id))
        let needles = [Array(canary.utf8), TestSupport.rawKeyBytes(1)]
        XCTAssertEqual(TestSupport.filesContaining(needles, under: path), [])
        store.close()
        XCTAssertEqual(TestSupport.filesContaining(needles, under: path), [])
    }

    func testUnencryptedStoreKeepsPlainFilesInTheSameLayout() throws {
        let plainPath = TestSupport.temporaryPath()
        let plain = try Store.open(TestSupport.configuration(plainPath, key: nil))
        defer { plain.close() }
        let content = Data("plain attachment content".utf8)
        let token = try plain.addAttachment(content)
        XCTAssertEqual(FileManager.default.contents(atPath: plainPath + "/attachments/" + token.id), content)
        XCTAssertEqual(try plain.attachmentData(token.id), content)
        XCTAssertEqual(try plain.attachment(token.id).read(range: 6..<16), content[6..<16])
        XCTAssertTrue(try plain.verify().isHealthy)
    }

    private struct Undo: Error {}

    /// A removal in an inner transaction that throws is undone with its file work: the outer
    /// commit does not unlink the file of an attachment whose row came back (review 27 finding 3).
    func testAnUndoneInnerRemovalKeepsTheFile() throws {
        let token = try store.addAttachment(Data("keep me".utf8), contentType: "text/plain")
        try store.transaction { _ in
            do {
                try store.transaction { inner in
                    XCTAssertTrue(try inner.removeAttachment(token.id))
                    throw Undo()
                }
            } catch is Undo {}
        }
        XCTAssertNotNil(try store.attachmentToken(token.id), "the row is back (the inner work was undone)")
        XCTAssertEqual(try store.attachment(token.id).readAll(), Data("keep me".utf8))
        XCTAssertTrue(try store.verify().isHealthy)
    }

    /// An add in an inner transaction that throws leaves no file: its staged copy is removed and
    /// never published by the outer commit (a file no row names: `verify` reported damage).
    func testAnUndoneInnerAddLeavesNoFile() throws {
        var undone = ""
        try store.transaction { outer in
            _ = try outer.addAttachment(Data("kept".utf8))
            do {
                try store.transaction { inner in
                    undone = try inner.addAttachment(Data("never mind".utf8)).id
                    throw Undo()
                }
            } catch is Undo {}
        }
        XCTAssertNil(try store.attachmentToken(undone))
        XCTAssertFalse(FileManager.default.fileExists(atPath: path + "/attachments/" + undone))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path + "/staging"), [])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: path + "/attachments").count, 1)
        let report = try store.verify()
        XCTAssertTrue(report.isHealthy, "\(report)")
    }
}

/// A small Codable document holding attachment tokens.
struct NoteDocument: Codable, ExpressibleByDictionaryLiteral {
    var title: String
    var files: [AttachmentToken]

    init(dictionaryLiteral elements: (String, Any)...) {
        let values = Dictionary(uniqueKeysWithValues: elements)
        title = values["title"] as? String ?? ""
        files = values["files"] as? [AttachmentToken] ?? []
    }
}

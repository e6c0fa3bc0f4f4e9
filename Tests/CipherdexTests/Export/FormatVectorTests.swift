import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// The committed test vectors of FORMAT.md (`Tests/Fixtures/FormatVectors`): a small store, its
/// raw key and passphrase, every intermediate value (`vectors.json`) and the export of the store
/// (`expected/`). The test regenerates nothing: it checks that this build still derives the same
/// keys and hashes and opens the committed store to the same content, byte for byte.
///
/// `CIPHERDEX_WRITE_FORMAT_VECTORS=DIR swift test --filter FormatVectorTests/testWriteVectors`
/// writes a new set into DIR (random ids, salts and nonces: every value changes).
final class FormatVectorTests: XCTestCase {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/FormatVectors").path

    /// The vectors' raw key: bytes 0x00 through 0x1f.
    static let rawKey = (0..<32).map { UInt8($0) }
    /// The vectors' passphrase: "café ✓" with the é decomposed (e + U+0301), used as these UTF-8
    /// bytes without normalisation.
    static let passphrase = "cafe\u{301} \u{2713}"

    private func vectors() throws -> [String: Any] {
        let data = try XCTUnwrap(FileManager.default.contents(atPath: Self.fixture + "/vectors.json"))
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    private func hex(_ secure: SecureBytes) -> String { secure.withUnsafeBytes { hex(Array($0)) } }

    func testDerivedValuesMatchTheVectors() throws {
        let vectors = try vectors()
        let bytes = try XCTUnwrap(FileManager.default.contents(atPath: Self.fixture + "/store/metadata.json"))
        let metadata = try StoreMetadata.parse(Array(bytes))
        XCTAssertEqual(metadata.storeID, vectors["storeID"] as? String)
        XCTAssertEqual(metadata.cipher?.pageSize, 16384)
        let canonical = String(decoding: try metadata.canonicalBytes(includingMAC: false), as: UTF8.self)
        XCTAssertEqual(canonical, vectors["canonicalWithoutMAC"] as? String)
        let raw = try XCTUnwrap(metadata.keyslots.first { $0.kind == .raw })
        let dataKey = try XCTUnwrap(try raw.unwrap(with: try EncryptionKey.raw(Self.rawKey), storeID: metadata.storeID))
        XCTAssertEqual(hex(dataKey), vectors["dataKey"] as? String)
        let phrase = try XCTUnwrap(metadata.keyslots.first { $0.kind == .passphrase })
        let viaPassphrase = try XCTUnwrap(
            try phrase.unwrap(with: try EncryptionKey.passphrase(Self.passphrase), storeID: metadata.storeID))
        XCTAssertEqual(hex(viaPassphrase), hex(dataKey))
        XCTAssertNil(
            try phrase.unwrap(with: try EncryptionKey.passphrase("caf\u{E9} \u{2713}"), storeID: metadata.storeID),
            "the precomposed é is other bytes: passphrases are not normalised")
        XCTAssertEqual(hex(StoreMetadata.macKey(dataKey: dataKey)), vectors["macKey"] as? String)
        XCTAssertNoThrow(try metadata.verifyMAC(dataKey: dataKey))
        let storage = AttachmentStorage(layout: StoreLayout(directory: Self.fixture + "/store"), dataKey: dataKey)
        XCTAssertEqual(storage.masterKey.map(hex), vectors["attachmentsMasterKey"] as? String)
        XCTAssertEqual(storage.deduplicationKey.map(hex), vectors["deduplicationKey"] as? String)
        let attachments = try XCTUnwrap(vectors["attachments"] as? [[String: Any]])
        XCTAssertEqual(Set(attachments.compactMap { $0["algorithm"] as? Int }), [1, 2], "both ciphers are covered")
        // The committed store was written with the tree its vectors name (v2: before v3 existed);
        // `contentHashV3` is what a current writer computes for the same content.
        let tree = try XCTUnwrap(
            Sodium.ContentHash.Tree(rawValue: try XCTUnwrap(vectors["contentTree"] as? String)))
        for attachment in attachments {
            let id = try XCTUnwrap(attachment["id"] as? String)
            let plain = try XCTUnwrap(
                FileManager.default.contents(atPath: Self.fixture + "/expected/attachments/" + id))
            for (tree, name) in [(tree, "contentHash"), (.v3Poly1305, "contentHashV3")]
                as [(Sodium.ContentHash.Tree, String)]
            {
                let hash = Sodium.ContentHash(key: storage.deduplicationKey, tree: tree)
                Array(plain).withUnsafeBytes { hash.update($0, concurrentlyWith: {}) }
                XCTAssertEqual(hex(hash.finish()), attachment[name] as? String, "\(id) \(name)")
            }
            let file = try XCTUnwrap(FileManager.default.contents(atPath: storage.path(of: id)))
            let header = try AttachmentCipherFormat.Header.decode(Array(file.prefix(54)), attachmentID: id)
            XCTAssertEqual(Int(header.algorithmID), attachment["algorithm"] as? Int)
            let keys = AttachmentCipherFormat.deriveKeys(
                masterKey: try XCTUnwrap(storage.masterKey), attachmentID: id, salt: header.salt)
            XCTAssertEqual(hex(keys.chunkKey), attachment["chunkKey"] as? String)
            XCTAssertEqual(hex(keys.headerKey), attachment["headerKey"] as? String)
        }
    }

    func testCommittedStoreOpensToTheExpectedExport() throws {
        for key in [{ try EncryptionKey.raw(Self.rawKey) }, { try EncryptionKey.passphrase(Self.passphrase) }]
            as [KeyProvider]
        {
            let copy = TestSupport.temporaryPath("vectors")
            TestSupport.copyDirectory(Self.fixture + "/store", to: copy)
            let store = try Store.open(StoreConfiguration(path: copy, keyProvider: key, createIfMissing: false))
            XCTAssertTrue(try store.verify().isHealthy)
            let out = TestSupport.temporaryPath("export")
            try store.export(to: out)
            store.close()
            XCTAssertEqual(TestSupport.snapshot(out), TestSupport.snapshot(Self.fixture + "/expected"))
        }
    }

    /// Content stored before tree v3 (the committed store's hashes are v2) keeps its hash and
    /// reads back; the same content added now gets a v3 hash, so it is stored once more (a new
    /// id) rather than matched — and adding it a third time finds the v3 copy.
    func testContentHashedWithTheOlderTreeIsStoredAgainAndBothRead() throws {
        let copy = TestSupport.temporaryPath("vectors")
        TestSupport.copyDirectory(Self.fixture + "/store", to: copy)
        let store = try Store.open(
            StoreConfiguration(path: copy, keyProvider: { try EncryptionKey.raw(Self.rawKey) }, createIfMissing: false))
        let content = Data("hello, format\n".utf8)
        let old = "668748d3ee786a7bd6b227173a8f9419"
        XCTAssertEqual(try store.attachmentData(old), content)
        let again = try store.addAttachment(content, contentType: "text/plain")
        XCTAssertNotEqual(again.id, old)
        XCTAssertEqual(try store.addAttachment(content).id, again.id)
        XCTAssertEqual(try store.attachmentData(again.id), content)
        XCTAssertEqual(try store.attachmentData(old), content)
        XCTAssertTrue(try store.verify().isHealthy)
        store.close()
        // Re-encryption and decryption hash both copies alike under the new key: the second gets
        // the duplicate form (the column is UNIQUE), both still read, and the same content added
        // again is shared with the first.
        try Store.reencrypt(
            StoreConfiguration(path: copy, keyProvider: { try EncryptionKey.raw(Self.rawKey) }, createIfMissing: false),
            newKey: TestSupport.rawKey(9))
        try Store.decrypt(TestSupport.configuration(copy, key: TestSupport.rawKey(9)))
        let converted = try Store.open(StoreConfiguration(path: copy, createIfMissing: false))
        defer { converted.close() }
        XCTAssertEqual(try converted.attachmentData(old), content)
        XCTAssertEqual(try converted.attachmentData(again.id), content)
        XCTAssertTrue([old, again.id].contains(try converted.addAttachment(content).id))
        XCTAssertTrue(try converted.verify().isHealthy)
    }

    /// Writes a new vector set; runs only when `CIPHERDEX_WRITE_FORMAT_VECTORS` names a folder.
    func testWriteVectors() throws {
        guard let destination = ProcessInfo.processInfo.environment["CIPHERDEX_WRITE_FORMAT_VECTORS"] else {
            throw XCTSkip("set CIPHERDEX_WRITE_FORMAT_VECTORS=DIR to write new test vectors")
        }
        let path = destination + "/store"
        let store = try Store.open(
            StoreConfiguration(
                path: path, keyProvider: { try EncryptionKey.raw(Self.rawKey) }, passphraseCost: .minimumForTesting))
        let notes = try store.createCollection("notes", indexedFields: ["title"])
        let small = try store.addAttachment(
            Data("hello, format\n".utf8), contentType: "text/plain", metadata: ["name": "a/b.txt"])
        _ = try store.addAttachment(Data(), contentType: nil)
        let large = try store.addAttachment(
            Data((0..<70_000).map { UInt8($0 % 251) }), contentType: "application/octet-stream")
        try notes.insert(
            id: "n1",
            json: Data(#"{"title":"Visit/1","text":"Fever \"high\"\n","n":12345678901234567890,"x":1e400}"#.utf8))
        try notes.insert(
            id: "\u{F1}2",
            json: Data(
                #"{"title":"two","files":[{"cipherdexAttachment":"\#(small.id)"},{"cipherdexAttachment":"\#(large.id)"}]}"#
                    .utf8))
        _ = try store.createCollection("empty.set-1")
        try store.library.add(
            data: Data("page one\u{0C}page two \u{FC}\n".utf8), uid: "docs/a.txt", fileExtension: "txt")
        try store.library.waitUntilIndexed()
        _ = try store.addKey({ try EncryptionKey.passphrase(Self.passphrase) }, label: "vector passphrase")
        store.close()
        // The large attachment again, sealed with XChaCha20-Poly1305 (this machine prefers AES-GCM).
        let metadata = try StoreMetadata.parse(
            Array(try Data(contentsOf: URL(fileURLWithPath: path + "/metadata.json"))))
        let slot = try XCTUnwrap(metadata.keyslots.first { $0.kind == .raw })
        let key = try XCTUnwrap(try slot.unwrap(with: try EncryptionKey.raw(Self.rawKey), storeID: metadata.storeID))
        let storage = AttachmentStorage(layout: StoreLayout(directory: path), dataKey: key)
        let largePath = storage.path(of: large.id)
        let plain = Array((0..<70_000).map { UInt8($0 % 251) })
        unlink(largePath)
        let fd = open(largePath, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        let writer = try AttachmentCipherWriter(
            fileDescriptor: fd, ownsFileDescriptor: true, attachmentID: large.id,
            masterKey: try XCTUnwrap(storage.masterKey),
            chunkSize: AttachmentCipherFormat.defaultChunkSize, algorithm: .xchacha20poly1305)
        try writer.write(plain)
        try writer.finish()
        // The expected export, from a copy (an open tidies modes and files).
        let copy = TestSupport.temporaryPath("vectors")
        TestSupport.copyDirectory(path, to: copy)
        let reopened = try Store.open(
            StoreConfiguration(path: copy, keyProvider: { try EncryptionKey.raw(Self.rawKey) }, createIfMissing: false))
        try reopened.export(to: destination + "/expected")
        reopened.close()
        var attachments: [[String: Any]] = []
        for id in try FileManager.default.contentsOfDirectory(atPath: path + "/attachments").sorted() {
            let file = try Data(contentsOf: URL(fileURLWithPath: storage.path(of: id)))
            let header = try AttachmentCipherFormat.Header.decode(Array(file.prefix(54)), attachmentID: id)
            let keys = AttachmentCipherFormat.deriveKeys(
                masterKey: try XCTUnwrap(storage.masterKey), attachmentID: id, salt: header.salt)
            let content = try Data(contentsOf: URL(fileURLWithPath: destination + "/expected/attachments/" + id))
            let hash = Sodium.ContentHash(key: storage.deduplicationKey)
            Array(content).withUnsafeBytes { hash.update($0, concurrentlyWith: {}) }
            let digest = hex(hash.finish())
            attachments.append([
                "id": id, "algorithm": Int(header.algorithmID), "length": content.count, "salt": hex(header.salt),
                "chunkKey": hex(keys.chunkKey), "headerKey": hex(keys.headerKey), "contentHash": digest,
                "contentHashV3": digest,
            ])
        }
        let vectors: [String: Any] = [
            "rawKey": hex(Self.rawKey), "passphraseUTF8": hex(Array(Self.passphrase.utf8)),
            "storeID": metadata.storeID, "dataKey": hex(key), "macKey": hex(StoreMetadata.macKey(dataKey: key)),
            "canonicalWithoutMAC": String(decoding: try metadata.canonicalBytes(includingMAC: false), as: UTF8.self),
            "attachmentsMasterKey": hex(try XCTUnwrap(storage.masterKey)),
            "deduplicationKey": hex(try XCTUnwrap(storage.deduplicationKey)), "attachments": attachments,
            "contentTree": Sodium.ContentHash.Tree.standard(keyed: true).rawValue,
        ]
        let json = try JSONSerialization.data(
            withJSONObject: vectors, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
        try (json + Data("\n".utf8)).write(to: URL(fileURLWithPath: destination + "/vectors.json"))
        try Data((hex(Self.rawKey) + "\n").utf8).write(to: URL(fileURLWithPath: destination + "/raw.key"))
        try Data((Self.passphrase + "\n").utf8).write(to: URL(fileURLWithPath: destination + "/passphrase.txt"))
    }
}

import XCTest

@testable import Cipherdex
@testable import CipherdexStore

final class ContentHashTests: XCTestCase {
    private func digest(
        _ content: [UInt8], pieces: [Int], key: SecureBytes?, tree: Sodium.ContentHash.Tree? = nil
    ) -> [UInt8] {
        let hash = Sodium.ContentHash(key: key, tree: tree)
        var offset = 0
        var index = 0
        while offset < content.count {
            let size = min(pieces[index % pieces.count], content.count - offset)
            content.withUnsafeBytes { raw in
                hash.update(UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + size)]), concurrentlyWith: {})
            }
            offset += size
            index += 1
        }
        return hash.finish()
    }

    func testDigestDependsOnContentAndKeyOnlyNotOnPieces() {
        var generator = SplitMix64(seed: 5)
        let content = (0..<(700 * 1024 + 123)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let key = SecureBytes.random(count: 32)
        let reference = digest(content, pieces: [1 << 20], key: key)
        for pieces in [[7, 65_536, 3], [65_536], [300_000], [1 << 20, 5], [100]] {
            XCTAssertEqual(digest(content, pieces: pieces, key: key), reference, "\(pieces)")
        }
        XCTAssertEqual(digest(content, pieces: [4096], key: key), reference)
        var changed = content
        changed[400_000] ^= 1
        XCTAssertNotEqual(digest(changed, pieces: [1 << 20], key: key), reference)
        XCTAssertNotEqual(digest(Array(content.dropLast()), pieces: [1 << 20], key: key), reference)
        XCTAssertNotEqual(digest(content, pieces: [1 << 20], key: SecureBytes.random(count: 32)), reference)
        XCTAssertNotEqual(digest(content, pieces: [1 << 20], key: nil), reference)
        XCTAssertEqual(digest([], pieces: [1], key: key), digest([], pieces: [5], key: key))
        XCTAssertNotEqual(digest(content, pieces: [1 << 20], key: key, tree: .v2SipHash), reference)
        XCTAssertEqual(
            digest(content, pieces: [7, 65_536, 3], key: key, tree: .v2SipHash),
            digest(content, pieces: [1 << 20], key: key, tree: .v2SipHash))
    }

    /// Pins the keyed constructions — Poly1305 leaves, keyed BLAKE2b root, label v3 (the vector
    /// computed in Python with `cryptography`'s Poly1305 and `hashlib`, as FORMAT.md 7.4 says);
    /// SipHash-128 leaves, label v2 (checked against a direct C computation with libsodium) —
    /// and the unkeyed one (BLAKE2b leaves, label v1): a change to any would silently stop
    /// deduplication against content already stored, so it must be a deliberate format change.
    func testDigestsArePinned() {
        let content = (0..<200_000).map { UInt8($0 % 251) }
        let key = SecureBytes(copying: (0..<32).map { UInt8($0) })
        XCTAssertEqual(
            hex(digest(content, pieces: [65_536], key: key)),
            "31ecd65b9fef9b5284f82393aa7eef6bec7870fd6d1efdc0af782c1cfebdc3d0")
        XCTAssertEqual(
            hex(digest(content, pieces: [65_536], key: key, tree: .v2SipHash)),
            "de1eddb6bc0445d740d6a097d657caa529c4289caf265bcc09b5e9499d8cebbe")
        XCTAssertEqual(
            hex(digest(content, pieces: [65_536], key: nil)),
            "4aa3bdddd15e1f28127f80061e18fd8bf2128902967324ee8679b4d25c8aa80e")
    }

    private func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}

import XCTest

@testable import CipherdexStore

/// The content hash's Poly1305 leaves (tree v3) are the same whether OpenSSL or libsodium
/// computes them, and OpenSSL's tags are RFC 8439's.
final class OpenSSLPoly1305Tests: XCTestCase {
    private func bytes(hex: String) -> [UInt8] {
        var result: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            result.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return result
    }

    private func tag(_ message: [UInt8], key: [UInt8]) throws -> [UInt8] {
        let poly1305 = try XCTUnwrap(OpenSSLPoly1305(), "this libcrypto has Poly1305 (OpenSSL 3)")
        var tag = [UInt8](repeating: 0, count: OpenSSLPoly1305.tagBytes)
        let done = message.withUnsafeBytes { m in key.withUnsafeBytes { k in poly1305.tag(m, key: k, into: &tag) } }
        XCTAssertTrue(done)
        return tag
    }

    /// RFC 8439, section 2.5.2.
    func testTheRFC8439Vector() throws {
        let key = bytes(hex: "85d6be7857556d337f4452fe42d506a80103808afb0db2fd4abff6af4149f51b")
        let message = Array("Cryptographic Forum Research Group".utf8)
        XCTAssertEqual(try tag(message, key: key), bytes(hex: "a8061dc1305136c6c22b8baf0c0127a9"))
        // The same context gives the next tag (a fresh key each time, the state cleansed between).
        XCTAssertEqual(try tag(message, key: key), bytes(hex: "a8061dc1305136c6c22b8baf0c0127a9"))
    }

    func testAShortKeyIsRefused() throws {
        let poly1305 = try XCTUnwrap(OpenSSLPoly1305())
        var tag = [UInt8](repeating: 0, count: 16)
        let short = [UInt8](repeating: 1, count: 16)
        XCTAssertFalse(
            short.withUnsafeBytes { k in [UInt8]().withUnsafeBytes { poly1305.tag($0, key: k, into: &tag) } })
    }

    /// Whole trees over content of many sizes (no leaf, a short leaf, whole leaves and a tail),
    /// fed in odd pieces: OpenSSL's leaves and libsodium's give the same digest.
    func testOpenSSLAndLibsodiumLeavesGiveTheSameTree() {
        var generator = SystemRandomNumberGenerator()
        let key = SecureBytes.random(count: 32)
        for length in [0, 1, 15, 16, 17, 65_535, 65_536, 65_537, 300_001] {
            let content = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
            var digests: [[UInt8]] = []
            for usingOpenSSL in [true, false] {
                let hash = Sodium.ContentHash(key: key, usingOpenSSL: usingOpenSSL)
                var offset = 0
                while offset < content.count {
                    let size = min(100_003, content.count - offset)
                    content.withUnsafeBytes { raw in
                        hash.update(
                            UnsafeRawBufferPointer(rebasing: raw[offset..<(offset + size)]), concurrentlyWith: {})
                    }
                    offset += size
                }
                XCTAssertEqual(hash.tree, .v3Poly1305)
                digests.append(hash.finish())
            }
            XCTAssertEqual(digests[0], digests[1], "length \(length)")
        }
    }
}

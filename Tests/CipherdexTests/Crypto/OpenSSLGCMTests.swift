import XCTest

@testable import CipherdexStore

/// Attachment chunks sealed with AES-256-GCM through OpenSSL are byte for byte what libsodium
/// seals (the format does not depend on which library ran), each opens the other's, and a
/// changed byte fails with both.
final class OpenSSLGCMTests: XCTestCase {
    private func randomBytes(_ count: Int, _ generator: inout SystemRandomNumberGenerator) -> [UInt8] {
        (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    func testOpenSSLAndLibsodiumSealTheSameBytesAndOpenEachOther() throws {
        try XCTSkipUnless(Sodium.ChunkAEAD.Algorithm.aes256gcm.isAvailable, "no AES-NI: AES-GCM is not used")
        var generator = SystemRandomNumberGenerator()
        for length in [0, 1, 15, 16, 17, 255, 4096, 65_536, 70_001] {
            for adLength in [0, 54] {
                let key = SecureBytes.random(count: 32)
                let openSSL = try XCTUnwrap(OpenSSLGCM(key: key))
                let withOpenSSL = try XCTUnwrap(Sodium.ChunkAEAD(algorithm: .aes256gcm, key: key))
                let sodiumOnly = try XCTUnwrap(Sodium.ChunkAEAD(algorithm: .aes256gcm, key: key, usingOpenSSL: false))
                let plaintext = randomBytes(length, &generator)
                let nonce = randomBytes(12, &generator)
                let ad = randomBytes(adLength, &generator)
                var sealedByOpenSSL = [UInt8](repeating: 0, count: length + 16)
                var sealedBySodium = [UInt8](repeating: 0, count: length + 16)
                plaintext.withUnsafeBytes { p in
                    nonce.withUnsafeBytes { n in
                        ad.withUnsafeBytes { a in
                            sealedByOpenSSL.withUnsafeMutableBytes {
                                XCTAssertTrue(openSSL.seal(p, into: $0, nonce: n, associatedData: a))
                            }
                            sealedBySodium.withUnsafeMutableBytes {
                                sodiumOnly.seal(p, into: $0, nonce: n, associatedData: a)
                            }
                        }
                    }
                }
                XCTAssertEqual(sealedByOpenSSL, sealedBySodium, "length \(length), AD \(adLength)")
                for (sealer, opener) in [(sealedByOpenSSL, withOpenSSL), (sealedBySodium, sodiumOnly)] {
                    var opened = [UInt8](repeating: 0, count: length)
                    let verified = sealer.withUnsafeBytes { s in
                        nonce.withUnsafeBytes { n in
                            ad.withUnsafeBytes { a in
                                opened.withUnsafeMutableBytes { opener.open(s, into: $0, nonce: n, associatedData: a) }
                            }
                        }
                    }
                    XCTAssertTrue(verified)
                    XCTAssertEqual(opened, plaintext)
                }
                // Any changed byte (ciphertext or tag), nonce or associated data fails.
                var tampered = sealedByOpenSSL
                tampered[Int.random(in: 0..<tampered.count)] ^= 0x01
                for (sealed, nonceUsed, adUsed) in [
                    (tampered, nonce, ad), (sealedByOpenSSL, [nonce[0] ^ 1] + nonce.dropFirst(), ad),
                    (sealedByOpenSSL, nonce, ad + [0]),
                ] {
                    var opened = [UInt8](repeating: 0xAA, count: length)
                    let viaOpenSSL = sealed.withUnsafeBytes { s in
                        nonceUsed.withUnsafeBytes { n in
                            adUsed.withUnsafeBytes { a in
                                opened.withUnsafeMutableBytes { openSSL.open(s, into: $0, nonce: n, associatedData: a) }
                            }
                        }
                    }
                    XCTAssertFalse(viaOpenSSL)
                    let viaContext = sealed.withUnsafeBytes { s in
                        nonceUsed.withUnsafeBytes { n in
                            adUsed.withUnsafeBytes { a in
                                opened.withUnsafeMutableBytes {
                                    withOpenSSL.open(s, into: $0, nonce: n, associatedData: a)
                                }
                            }
                        }
                    }
                    XCTAssertFalse(viaContext)
                    XCTAssertEqual(opened, [UInt8](repeating: 0, count: length), "a failed open leaves zeros")
                }
            }
        }
    }
}

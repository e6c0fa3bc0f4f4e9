import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Every tamper class is detected with its exact typed error, never wrong bytes.
final class AttachmentCipherTamperTests: AttachmentCipherTestCase {
    // MARK: Header tampering

    /// Magic, version and every other header byte (fields and tag) are checked.
    func testEveryHeaderByteFlipIsDetected() throws {
        let path = try write(randomBytes(3 * chunk + 100), id: "header")
        let original = try fileBytes(path)
        for offset in 0..<54 {
            var bytes = original
            bytes[offset] ^= 0x01
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            let expected: AttachmentError
            switch offset {
            case 0..<8: expected = .badHeader(id: "header", reason: "bad magic")
            case 8: expected = .unsupportedVersion(id: "header", version: 0)
            default: expected = .headerAuthenticationFailed(id: "header")
            }
            assertError(expected, "offset \(offset)") { _ = try self.open(path, id: "header") }
        }
    }

    /// A version byte the code does not know is reported as such.
    func testUnsupportedVersion() throws {
        let path = try write(randomBytes(10), id: "v")
        try mutate(path) { $0[8] = 2 }
        assertError(.unsupportedVersion(id: "v", version: 2)) { _ = try self.open(path, id: "v") }
    }

    /// A file written with AES-GCM cannot be read on a machine without AES-NI (simulated).
    func testAESFileOnMachineWithoutAESNI() throws {
        try XCTSkipUnless(Sodium.ChunkAEAD.Algorithm.aes256gcm.isAvailable, "needs AES-NI")
        let path = try write(randomBytes(10), id: "aes", algorithm: .aes256gcm)
        assertError(.unsupportedAlgorithm(id: "aes", algorithm: 1)) {
            _ = try AttachmentCipherReader(
                path: path, attachmentID: "aes", masterKey: self.masterKey, availableAlgorithms: [.xchacha20poly1305])
        }
    }

    /// An authentic header naming an unknown algorithm or an impossible chunk size is rejected.
    func testAuthenticHeaderWithUnknownAlgorithmOrBadChunkSize() throws {
        let path = try write(randomBytes(10), id: "forged")
        try reforgeHeader(path, id: "forged") { $0.algorithmID = 9 }
        assertError(.unsupportedAlgorithm(id: "forged", algorithm: 9)) { _ = try self.open(path, id: "forged") }
        let second = try write(randomBytes(10), id: "forged2")
        try reforgeHeader(second, id: "forged2") { $0.chunkSize = 0 }
        assertError(.badHeader(id: "forged2", reason: "chunk size 0 out of range")) {
            _ = try self.open(second, id: "forged2")
        }
    }

    /// A writer that never finished leaves a zero header that reads as unfinished.
    func testUnfinishedWriteIsRejected() throws {
        let path = directory.appendingPathComponent("unfinished").path
        do {
            let writer = try AttachmentCipherWriter(
                path: path, attachmentID: "u", masterKey: masterKey, chunkSize: chunk)
            try writer.write(randomBytes(3000))
        }
        assertError(.badHeader(id: "u", reason: "empty header (unfinished write)")) { _ = try self.open(path, id: "u") }
    }

    // MARK: Chunk tampering

    /// A flipped bit in a chunk body or tag fails that chunk, in both read APIs and algorithms.
    func testChunkBodyAndTagFlips() throws {
        for algorithm in Sodium.ChunkAEAD.Algorithm.available.sorted(by: { $0.rawValue < $1.rawValue }) {
            let path = try write(randomBytes(3 * chunk + 100), id: "body", algorithm: algorithm)
            let original = try fileBytes(path)
            try mutate(path) { $0[self.chunkStart(2) + 100] ^= 0x80 }
            assertError(.chunkAuthenticationFailed(id: "body", chunkIndex: 2)) {
                _ = try self.readAll(path, id: "body")
            }
            assertError(.chunkAuthenticationFailed(id: "body", chunkIndex: 2)) {
                _ = try self.open(path, id: "body").read(range: 0..<3000)
            }
            try Data(original).write(to: URL(fileURLWithPath: path))
            try mutate(path) { $0[self.chunkStart(1) + self.chunk + 3] ^= 0x01 }  // tag of chunk 1
            assertError(.chunkAuthenticationFailed(id: "body", chunkIndex: 1)) {
                _ = try self.readAll(path, id: "body")
            }
            try Data(original).write(to: URL(fileURLWithPath: path))
            try mutate(path) { $0[$0.count - 1] ^= 0x01 }  // tag of the final chunk
            assertError(.chunkAuthenticationFailed(id: "body", chunkIndex: 3)) {
                _ = try self.readAll(path, id: "body")
            }
        }
    }

    /// Streaming reads windows of chunks opened on two threads: a damaged chunk in the middle
    /// of a later window is reported by its own index (the lowest, when several are damaged),
    /// nothing of its window is delivered, and a file that shrinks mid-window is truncated.
    func testDamageInsideALaterWindow() throws {
        let window = AttachmentCipherReader.windowChunks
        let data = randomBytes((2 * window + 8) * chunk + 5)
        let path = try write(data, id: "windows")
        let original = try fileBytes(path)
        XCTAssertEqual(try readAll(path, id: "windows"), data)
        try mutate(path) {
            $0[self.chunkStart(window + 9) + 7] ^= 0x04
            $0[self.chunkStart(window + 5) + 7] ^= 0x04
        }
        var delivered: [UInt8] = []
        assertError(.chunkAuthenticationFailed(id: "windows", chunkIndex: UInt64(window + 5))) {
            try self.open(path, id: "windows").readAll { delivered.append(contentsOf: $0) }
        }
        XCTAssertEqual(delivered, Array(data[0..<(window * chunk)]))
        try Data(original).write(to: URL(fileURLWithPath: path))
        let reader = try open(path, id: "windows")
        XCTAssertEqual(truncate(path, off_t(chunkStart(window + 3) + 10)), 0)
        assertError(
            .truncated(
                id: "windows", expectedBytes: UInt64(original.count), actualBytes: UInt64(chunkStart(window + 3) + 10))
        ) { try reader.readAll { _ in } }
    }

    /// Flipping one bit at every byte of a small multi-chunk file never yields plaintext.
    func testEveryByteFlipIsDetected() throws {
        let data = randomBytes(100)
        let path = try write(data, id: "every", chunkSize: 32)
        let original = try fileBytes(path)
        XCTAssertEqual(original.count, 54 + 100 + 4 * 16)
        for offset in original.indices {
            for bit in [0x01, 0x80] as [UInt8] {
                var bytes = original
                bytes[offset] ^= bit
                try Data(bytes).write(to: URL(fileURLWithPath: path))
                XCTAssertThrowsError(try readAll(path, id: "every"), "offset \(offset) bit \(bit)") { error in
                    XCTAssertTrue(error is AttachmentError)
                }
            }
        }
    }

    /// Truncation at a chunk boundary, mid-chunk and mid-header is reported with sizes.
    func testTruncation() throws {
        let path = try write(randomBytes(4 * chunk), id: "trunc")  // four full chunks, last one final
        let original = try fileBytes(path)
        let full = UInt64(original.count)
        let cases: [(keep: Int, error: AttachmentError)] = [
            (chunkStart(3), .truncated(id: "trunc", expectedBytes: full, actualBytes: UInt64(chunkStart(3)))),
            (chunkStart(1), .truncated(id: "trunc", expectedBytes: full, actualBytes: UInt64(chunkStart(1)))),
            (54, .truncated(id: "trunc", expectedBytes: full, actualBytes: 54)),
            (original.count - 5, .truncated(id: "trunc", expectedBytes: full, actualBytes: full - 5)),
            (
                chunkStart(2) + 700,
                .truncated(id: "trunc", expectedBytes: full, actualBytes: UInt64(chunkStart(2) + 700))
            ),
            (30, .truncated(id: "trunc", expectedBytes: 54, actualBytes: 30)),
            (5, .truncated(id: "trunc", expectedBytes: 54, actualBytes: 5)),
            (0, .truncated(id: "trunc", expectedBytes: 54, actualBytes: 0)),
        ]
        for (keep, error) in cases {
            try Data(original[0..<keep]).write(to: URL(fileURLWithPath: path))
            assertError(error, "keep \(keep)") { _ = try self.open(path, id: "trunc") }
        }
    }

    /// A file shrinking after it was opened is still caught when the chunk is read.
    func testTruncationAfterOpen() throws {
        let path = try write(randomBytes(4 * chunk), id: "shrink")
        let reader = try open(path, id: "shrink")
        let full = UInt64(try fileBytes(path).count)
        XCTAssertEqual(truncate(path, off_t(chunkStart(2))), 0)
        assertError(.truncated(id: "shrink", expectedBytes: full, actualBytes: UInt64(chunkStart(2)))) {
            _ = try reader.read(range: UInt64(2 * self.chunk)..<UInt64(2 * self.chunk + 1))
        }
    }

    /// Appended bytes (one byte, or a whole duplicated chunk) are trailing data.
    func testAppendedBytes() throws {
        let path = try write(randomBytes(2 * chunk + 10), id: "append")
        let original = try fileBytes(path)
        let full = UInt64(original.count)
        try Data(original + [0]).write(to: URL(fileURLWithPath: path))
        assertError(.trailingData(id: "append", expectedBytes: full, actualBytes: full + 1)) {
            _ = try self.open(path, id: "append")
        }
        let duplicate = Array(original[chunkStart(0)..<chunkStart(1)])
        try Data(original + duplicate).write(to: URL(fileURLWithPath: path))
        assertError(.trailingData(id: "append", expectedBytes: full, actualBytes: full + UInt64(duplicate.count))) {
            _ = try self.open(path, id: "append")
        }
    }

    /// Swapping two chunks within a file fails at the first moved chunk, including the final one.
    func testSwappedChunksWithinFile() throws {
        let path = try write(randomBytes(4 * chunk), id: "swap")
        let original = try fileBytes(path)
        try Data(swapChunks(original, 0, 1)).write(to: URL(fileURLWithPath: path))
        assertError(.chunkAuthenticationFailed(id: "swap", chunkIndex: 0)) { _ = try self.readAll(path, id: "swap") }
        try Data(swapChunks(original, 2, 3)).write(to: URL(fileURLWithPath: path))
        assertError(.chunkAuthenticationFailed(id: "swap", chunkIndex: 2)) { _ = try self.readAll(path, id: "swap") }
        // The last flag: a non-final chunk in the final position fails on its own.
        assertError(.chunkAuthenticationFailed(id: "swap", chunkIndex: 3)) {
            _ = try self.open(path, id: "swap").read(range: UInt64(3 * self.chunk)..<UInt64(4 * self.chunk))
        }
    }

    /// A chunk copied from another attachment (same key, same plaintext, same index) fails.
    func testChunkFromAnotherAttachment() throws {
        let data = randomBytes(3 * chunk)
        let path = try write(data, id: "victim")
        let other = try fileBytes(try write(data, id: "donor"))
        try mutate(path) { bytes in
            bytes.replaceSubrange(
                self.chunkStart(1)..<self.chunkStart(2), with: other[self.chunkStart(1)..<self.chunkStart(2)])
        }
        assertError(.chunkAuthenticationFailed(id: "victim", chunkIndex: 1)) {
            _ = try self.readAll(path, id: "victim")
        }
    }

    /// The header of an earlier version of the same attachment does not fit the new chunks.
    func testHeaderFromOtherVersionOfSameAttachment() throws {
        let data = randomBytes(2 * chunk)
        let old = try fileBytes(try write(data, id: "same"))
        let path = try write(data, id: "same")
        try mutate(path) { $0.replaceSubrange(0..<54, with: old[0..<54]) }
        assertError(.chunkAuthenticationFailed(id: "same", chunkIndex: 0)) { _ = try self.readAll(path, id: "same") }
    }

    /// A whole file presented under another id, or with another master key, fails the header.
    func testWholeFileUnderOtherIdOrKey() throws {
        let path = try write(randomBytes(2000), id: "alpha")
        assertError(.headerAuthenticationFailed(id: "beta")) { _ = try self.open(path, id: "beta") }
        assertError(.headerAuthenticationFailed(id: "alpha")) {
            _ = try AttachmentCipherReader(path: path, attachmentID: "alpha", masterKey: SecureBytes.random(count: 32))
        }
    }

    /// A missing file is `notFound`.
    func testNotFound() {
        let path = directory.appendingPathComponent("missing").path
        assertError(.notFound(id: "missing")) { _ = try self.open(path, id: "missing") }
    }
}

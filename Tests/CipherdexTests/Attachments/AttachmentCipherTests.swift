import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Round trips, random access and confidentiality of the encrypted attachment file format.
final class AttachmentCipherTests: AttachmentCipherTestCase {
    // MARK: Round trips

    /// Edge sizes around the chunk size round-trip through both read APIs and both algorithms.
    func testRoundTripEdgeSizes() throws {
        for algorithm in Sodium.ChunkAEAD.Algorithm.available.sorted(by: { $0.rawValue < $1.rawValue }) {
            for size in [0, 1, chunk - 1, chunk, chunk + 1, 2 * chunk, 5 * chunk + 17] {
                let data = randomBytes(size)
                let path = try write(data, id: "edge-\(size)", algorithm: algorithm)
                let reader = try AttachmentCipherReader(path: path, attachmentID: "edge-\(size)", masterKey: masterKey)
                XCTAssertEqual(reader.length, UInt64(size))
                XCTAssertEqual(reader.algorithm, algorithm)
                XCTAssertEqual(try streamAll(reader), data, "size \(size) \(algorithm)")
                XCTAssertEqual(try reader.read(range: 0..<UInt64(size)), data, "size \(size) \(algorithm)")
                let expectedChunks = max(1, (size + chunk - 1) / chunk)
                XCTAssertEqual(reader.chunkCount, UInt64(expectedChunks))
                XCTAssertEqual(try fileBytes(path).count, 54 + size + 16 * expectedChunks)
            }
        }
    }

    /// The preferred algorithm is AES-256-GCM on a machine with AES-NI.
    func testPreferredAlgorithmIsRecordedInHeader() throws {
        let path = try write(randomBytes(10), id: "alg", algorithm: .preferred)
        XCTAssertEqual(try fileBytes(path)[9], Sodium.ChunkAEAD.Algorithm.preferred.rawValue)
        XCTAssertEqual(Array(try fileBytes(path)[0..<9]), Array("CDXATT1".utf8) + [0, 1])
    }

    /// Random sizes, chunk sizes and write splits all round-trip.
    func testRandomSizesAndWriteSplits() throws {
        for round in 0..<25 {
            let chunkSize = [1, 7, 64, 1000, 1024, 4096][round % 6]
            let size = Int(generator.next() % UInt64(chunkSize == 1 ? 300 : 20_000))
            let data = randomBytes(size)
            let id = "random-\(round)"
            let path = try write(data, id: id, chunkSize: chunkSize, randomSplits: true)
            let reader = try AttachmentCipherReader(path: path, attachmentID: id, masterKey: masterKey)
            XCTAssertEqual(try streamAll(reader), data, "round \(round)")
        }
    }

    /// Writes in windows shared with the helper thread: pieces smaller than a chunk, exactly a
    /// chunk, a whole window and many windows at once all round-trip, chunks stay in order
    /// across the two batch buffers, and the content hash fed alongside equals one computed on
    /// its own.
    func testWindowedWritesWithHashRoundTrip() throws {
        let window = AttachmentCipherWriter.batchChunks * chunk
        let data = randomBytes(5 * window + 333)
        let dedupKey = SecureBytes.random(count: 32)
        for pieces in [
            [1, chunk - 1, chunk, chunk + 1], [window], [window + 1, 3], [3 * window + 5], [data.count], [777],
        ] {
            let path = directory.appendingPathComponent("windows-\(pieces)").path
            let fd = Foundation.open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
            XCTAssertGreaterThanOrEqual(fd, 0)
            defer { close(fd) }
            let writer = try AttachmentCipherWriter(
                fileDescriptor: fd, ownsFileDescriptor: false, attachmentID: "windows", masterKey: masterKey,
                chunkSize: chunk, algorithm: .preferred)
            let hash = Sodium.ContentHash(key: dedupKey)
            var position = 0
            var index = 0
            while position < data.count {
                let end = min(data.count, position + pieces[index % pieces.count])
                try data.withUnsafeBytes { raw in
                    try writer.write(UnsafeRawBufferPointer(rebasing: raw[position..<end]), hashing: hash)
                }
                position = end
                index += 1
            }
            XCTAssertEqual(try writer.finish(synchronize: false), UInt64(data.count))
            XCTAssertEqual(try readAll(path, id: "windows"), data, "pieces \(pieces)")
            let reference = Sodium.ContentHash(key: dedupKey)
            data.withUnsafeBytes { reference.update($0, concurrentlyWith: {}) }
            XCTAssertEqual(hash.finish(), reference.finish(), "pieces \(pieces)")
        }
    }

    /// The default 64 KiB chunk size and the path initialiser work for a multi-chunk file.
    func testDefaultChunkSizeWithPathInitialiser() throws {
        let data = randomBytes(200_000)
        let path = directory.appendingPathComponent("default").path
        let writer = try AttachmentCipherWriter(path: path, attachmentID: "default", masterKey: masterKey)
        try writer.write(data)
        XCTAssertEqual(try writer.finish(), 200_000)
        let reader = try AttachmentCipherReader(path: path, attachmentID: "default", masterKey: masterKey)
        XCTAssertEqual(reader.chunkSize, 65_536)
        XCTAssertEqual(reader.chunkCount, 4)
        XCTAssertEqual(try reader.read(range: 0..<200_000), data)
    }

    /// A writer on a caller-owned descriptor overwrites older, longer content and sets the size.
    func testFileDescriptorWriterCutsOldContent() throws {
        let path = directory.appendingPathComponent("fd").path
        try Data(repeating: 0xAB, count: 50_000).write(to: URL(fileURLWithPath: path))
        let fd = Foundation.open(path, O_RDWR)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let data = randomBytes(3000)
        let writer = try AttachmentCipherWriter(
            fileDescriptor: fd, attachmentID: "fd", masterKey: masterKey, chunkSize: chunk)
        try writer.write(data)
        try writer.finish(synchronize: false)
        XCTAssertEqual(try fileBytes(path).count, 54 + 3000 + 16 * 3)
        let reader = try AttachmentCipherReader(path: path, attachmentID: "fd", masterKey: masterKey)
        XCTAssertEqual(try streamAll(reader), data)
    }

    // MARK: Random access

    /// Every range between interesting offsets (chunk boundaries ± 1) matches the plaintext.
    func testRangeReadsAcrossChunkBoundaries() throws {
        let data = randomBytes(6 * chunk + 300)
        let path = try write(data, id: "ranges")
        let reader = try AttachmentCipherReader(path: path, attachmentID: "ranges", masterKey: masterKey)
        var points: Set<Int> = [0, data.count - 1, data.count]
        for boundary in stride(from: chunk, through: data.count, by: chunk) {
            points.formUnion([boundary - 1, boundary, boundary + 1].filter { $0 <= data.count })
        }
        let sorted = points.sorted()
        for (i, low) in sorted.enumerated() {
            for high in sorted[i...] {
                let got = try reader.read(range: UInt64(low)..<UInt64(high))
                XCTAssertEqual(got, Array(data[low..<high]), "range \(low)..<\(high)")
            }
        }
        for _ in 0..<50 {
            let a = Int(generator.next() % UInt64(data.count + 1))
            let b = Int(generator.next() % UInt64(data.count + 1))
            let range = min(a, b)..<max(a, b)
            XCTAssertEqual(
                try reader.read(range: UInt64(range.lowerBound)..<UInt64(range.upperBound)), Array(data[range]))
        }
    }

    /// Ranges past the end are rejected; an empty range at the end is fine.
    func testRangeOutOfBounds() throws {
        let path = try write(randomBytes(100), id: "bounds")
        let reader = try AttachmentCipherReader(path: path, attachmentID: "bounds", masterKey: masterKey)
        XCTAssertEqual(try reader.read(range: 100..<100), [])
        assertError(.rangeOutOfBounds(id: "bounds", range: 50..<101, length: 100)) {
            _ = try reader.read(range: 50..<101)
        }
        assertError(.rangeOutOfBounds(id: "bounds", range: 200..<300, length: 100)) {
            _ = try reader.read(range: 200..<300)
        }
    }

    /// Random access does not touch damaged chunks outside the requested range.
    func testRangeReadSkipsUntouchedDamagedChunk() throws {
        let data = randomBytes(4 * chunk)
        let path = try write(data, id: "partial")
        try mutate(path) { $0[chunkStart(3) + 5] ^= 0x01 }
        let reader = try AttachmentCipherReader(path: path, attachmentID: "partial", masterKey: masterKey)
        XCTAssertEqual(try reader.read(range: 10..<UInt64(3 * chunk)), Array(data[10..<(3 * chunk)]))
        assertError(.chunkAuthenticationFailed(id: "partial", chunkIndex: 3)) {
            _ = try reader.read(range: UInt64(3 * chunk - 1)..<UInt64(3 * chunk + 1))
        }
    }

    // MARK: Confidentiality

    /// The ciphertext contains no trace of a plaintext canary, and errors do not echo content.
    func testCiphertextDoesNotContainCanary() throws {
        let canary = Array("CIPHERDEX-CANARY-7f3a9c".utf8)
        var data: [UInt8] = []
        while data.count < 5 * chunk { data += canary + randomBytes(Int(generator.next() % 50)) }
        let path = try write(data, id: "canary")
        let file = try fileBytes(path)
        XCTAssertFalse(contains(file, canary))
        XCTAssertFalse(contains(file, Array(canary[0..<8])))
        XCTAssertEqual(try readAll(path, id: "canary"), data)
        try mutate(path) { $0[self.chunkStart(1)] ^= 1 }
        do {
            _ = try readAll(path, id: "canary")
            XCTFail("expected an error")
        } catch {
            XCTAssertFalse(error.localizedDescription.contains("CANARY"))
        }
    }

    /// Every error case has a description naming the id.
    func testErrorDescriptions() {
        let errors: [AttachmentError] = [
            .notFound(id: "x"), .badHeader(id: "x", reason: "r"), .unsupportedVersion(id: "x", version: 2),
            .unsupportedAlgorithm(id: "x", algorithm: 1), .headerAuthenticationFailed(id: "x"),
            .truncated(id: "x", expectedBytes: 2, actualBytes: 1),
            .trailingData(id: "x", expectedBytes: 1, actualBytes: 2),
            .chunkAuthenticationFailed(id: "x", chunkIndex: 3), .rangeOutOfBounds(id: "x", range: 1..<5, length: 2),
            .io(id: "x", operation: "pread", errno: EIO),
        ]
        for error in errors {
            XCTAssertTrue(error.errorDescription?.contains("x") ?? false, "\(error)")
        }
    }
}

import Foundation
import XCTest

@testable import Cipherdex

/// Round trips, random access and tamper detection of the encrypted attachment file format.
final class AttachmentCipherTests: XCTestCase {
    /// Scratch directory for this test's files, removed in `tearDown`.
    private var directory: URL!
    /// The attachments master key used unless a test says otherwise.
    private var masterKey: SecureBytes!
    /// Deterministic generator so failures reproduce.
    private var generator = SplitMix64(seed: 0xC1D3_A77A)

    /// Small chunk size used by most tests for speed.
    private let chunk = 1024

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("cdx-attach-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        masterKey = SecureBytes.random(count: 32)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

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
        let writer = try AttachmentCipherWriter(fileDescriptor: fd, attachmentID: "fd", masterKey: masterKey, chunkSize: chunk)
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
            XCTAssertEqual(try reader.read(range: UInt64(range.lowerBound)..<UInt64(range.upperBound)), Array(data[range]))
        }
    }

    /// Ranges past the end are rejected; an empty range at the end is fine.
    func testRangeOutOfBounds() throws {
        let path = try write(randomBytes(100), id: "bounds")
        let reader = try AttachmentCipherReader(path: path, attachmentID: "bounds", masterKey: masterKey)
        XCTAssertEqual(try reader.read(range: 100..<100), [])
        assertError(.rangeOutOfBounds(id: "bounds", range: 50..<101, length: 100)) { _ = try reader.read(range: 50..<101) }
        assertError(.rangeOutOfBounds(id: "bounds", range: 200..<300, length: 100)) { _ = try reader.read(range: 200..<300) }
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
            let writer = try AttachmentCipherWriter(path: path, attachmentID: "u", masterKey: masterKey, chunkSize: chunk)
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
            assertError(.chunkAuthenticationFailed(id: "body", chunkIndex: 2)) { _ = try self.readAll(path, id: "body") }
            assertError(.chunkAuthenticationFailed(id: "body", chunkIndex: 2)) {
                _ = try self.open(path, id: "body").read(range: 0..<3000)
            }
            try Data(original).write(to: URL(fileURLWithPath: path))
            try mutate(path) { $0[self.chunkStart(1) + self.chunk + 3] ^= 0x01 }  // tag of chunk 1
            assertError(.chunkAuthenticationFailed(id: "body", chunkIndex: 1)) { _ = try self.readAll(path, id: "body") }
            try Data(original).write(to: URL(fileURLWithPath: path))
            try mutate(path) { $0[$0.count - 1] ^= 0x01 }  // tag of the final chunk
            assertError(.chunkAuthenticationFailed(id: "body", chunkIndex: 3)) { _ = try self.readAll(path, id: "body") }
        }
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
            (chunkStart(2) + 700, .truncated(id: "trunc", expectedBytes: full, actualBytes: UInt64(chunkStart(2) + 700))),
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
            bytes.replaceSubrange(self.chunkStart(1)..<self.chunkStart(2), with: other[self.chunkStart(1)..<self.chunkStart(2)])
        }
        assertError(.chunkAuthenticationFailed(id: "victim", chunkIndex: 1)) { _ = try self.readAll(path, id: "victim") }
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
            .truncated(id: "x", expectedBytes: 2, actualBytes: 1), .trailingData(id: "x", expectedBytes: 1, actualBytes: 2),
            .chunkAuthenticationFailed(id: "x", chunkIndex: 3), .rangeOutOfBounds(id: "x", range: 1..<5, length: 2),
            .io(id: "x", operation: "pread", errno: EIO),
        ]
        for error in errors {
            XCTAssertTrue(error.errorDescription?.contains("x") ?? false, "\(error)")
        }
    }

    // MARK: Helpers

    /// `count` pseudo-random bytes.
    private func randomBytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }

    /// Encrypts `data` into a new file named after `id` (unique per call) and returns its path.
    private func write(
        _ data: [UInt8], id: String, chunkSize: Int? = nil, algorithm: Sodium.ChunkAEAD.Algorithm = .preferred,
        randomSplits: Bool = false
    ) throws -> String {
        let path = directory.appendingPathComponent("\(id)-\(UUID().uuidString)").path
        let fd = Foundation.open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let writer = try AttachmentCipherWriter(
            fileDescriptor: fd, ownsFileDescriptor: false, attachmentID: id, masterKey: masterKey,
            chunkSize: chunkSize ?? chunk, algorithm: algorithm)
        var position = 0
        while position < data.count {
            let step = randomSplits ? Int(generator.next() % 3000) : data.count
            let end = min(data.count, position + step)
            try writer.write(Array(data[position..<end]))
            position = end
        }
        XCTAssertEqual(try writer.finish(synchronize: false), UInt64(data.count))
        return path
    }

    /// Opens a reader with the test master key.
    private func open(_ path: String, id: String) throws -> AttachmentCipherReader {
        try AttachmentCipherReader(path: path, attachmentID: id, masterKey: masterKey)
    }

    /// Decrypts a whole file through the streaming API.
    private func readAll(_ path: String, id: String) throws -> [UInt8] {
        try streamAll(open(path, id: id))
    }

    /// Collects everything `readAll(into:)` delivers.
    private func streamAll(_ reader: AttachmentCipherReader) throws -> [UInt8] {
        var collected: [UInt8] = []
        try reader.readAll { collected.append(contentsOf: $0) }
        return collected
    }

    /// The raw bytes of a file.
    private func fileBytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Rewrites a file after `change` edits its bytes.
    private func mutate(_ path: String, _ change: (inout [UInt8]) -> Void) throws {
        var bytes = try fileBytes(path)
        change(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Changes header fields and re-authenticates them with the real keys (an authentic header).
    private func reforgeHeader(_ path: String, id: String, _ change: (inout AttachmentCipherFormat.Header) -> Void) throws {
        var bytes = try fileBytes(path)
        var header = try AttachmentCipherFormat.Header.decode(Array(bytes[0..<54]), attachmentID: id)
        change(&header)
        let keys = AttachmentCipherFormat.deriveKeys(masterKey: masterKey, attachmentID: id, salt: header.salt)
        header.tag = AttachmentCipherFormat.headerTag(for: header, attachmentID: id, headerKey: keys.headerKey)
        bytes.replaceSubrange(0..<54, with: header.encoded)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// File offset of full-size chunk `index` for the test chunk size.
    private func chunkStart(_ index: Int) -> Int {
        54 + index * (chunk + 16)
    }

    /// `bytes` with full-size chunks `a` and `b` exchanged.
    private func swapChunks(_ bytes: [UInt8], _ a: Int, _ b: Int) -> [UInt8] {
        var result = bytes
        let first = bytes[chunkStart(a)..<chunkStart(a + 1)]
        let second = bytes[chunkStart(b)..<chunkStart(b + 1)]
        result.replaceSubrange(chunkStart(a)..<chunkStart(a + 1), with: second)
        result.replaceSubrange(chunkStart(b)..<chunkStart(b + 1), with: first)
        return result
    }

    /// Whether `haystack` contains `needle` as a contiguous run.
    private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// Asserts that `body` throws exactly `expected`.
    private func assertError(
        _ expected: AttachmentError, _ message: String = "", file: StaticString = #filePath, line: UInt = #line,
        _ body: () throws -> Void
    ) {
        do {
            try body()
            XCTFail("expected \(expected), nothing thrown. \(message)", file: file, line: line)
        } catch let error as AttachmentError {
            XCTAssertEqual(error, expected, message, file: file, line: line)
        } catch {
            XCTFail("expected \(expected), got \(error). \(message)", file: file, line: line)
        }
    }
}

/// A tiny deterministic PRNG (SplitMix64) for reproducible test data.
struct SplitMix64: RandomNumberGenerator {
    /// The generator state.
    private var state: UInt64

    /// Starts the sequence at `seed`.
    init(seed: UInt64) { state = seed }

    /// The next 64 pseudo-random bits.
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

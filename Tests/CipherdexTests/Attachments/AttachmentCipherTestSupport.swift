import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Shared fixture for the attachment cipher tests: a scratch directory, a master key, a
/// deterministic generator, and helpers to write, read and damage attachment files.
class AttachmentCipherTestCase: XCTestCase {
    /// Scratch directory for this test's files, removed in `tearDown`.
    var directory: URL!
    /// The attachments master key used unless a test says otherwise.
    var masterKey: SecureBytes!
    /// Deterministic generator so failures reproduce.
    var generator = SplitMix64(seed: 0xC1D3_A77A)

    /// Small chunk size used by most tests for speed.
    let chunk = 1024

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("cdx-attach-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        masterKey = SecureBytes.random(count: 32)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: directory)
    }

    // MARK: Helpers

    /// `count` pseudo-random bytes.
    func randomBytes(_ count: Int) -> [UInt8] {
        (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }

    /// Encrypts `data` into a new file named after `id` (unique per call) and returns its path.
    func write(
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
    func open(_ path: String, id: String) throws -> AttachmentCipherReader {
        try AttachmentCipherReader(path: path, attachmentID: id, masterKey: masterKey)
    }

    /// Decrypts a whole file through the streaming API.
    func readAll(_ path: String, id: String) throws -> [UInt8] {
        try streamAll(open(path, id: id))
    }

    /// Collects everything `readAll(into:)` delivers.
    func streamAll(_ reader: AttachmentCipherReader) throws -> [UInt8] {
        var collected: [UInt8] = []
        try reader.readAll { collected.append(contentsOf: $0) }
        return collected
    }

    /// The raw bytes of a file.
    func fileBytes(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Rewrites a file after `change` edits its bytes.
    func mutate(_ path: String, _ change: (inout [UInt8]) -> Void) throws {
        var bytes = try fileBytes(path)
        change(&bytes)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// Changes header fields and re-authenticates them with the real keys (an authentic header).
    func reforgeHeader(_ path: String, id: String, _ change: (inout AttachmentCipherFormat.Header) -> Void) throws {
        var bytes = try fileBytes(path)
        var header = try AttachmentCipherFormat.Header.decode(Array(bytes[0..<54]), attachmentID: id)
        change(&header)
        let keys = AttachmentCipherFormat.deriveKeys(masterKey: masterKey, attachmentID: id, salt: header.salt)
        header.tag = AttachmentCipherFormat.headerTag(for: header, attachmentID: id, headerKey: keys.headerKey)
        bytes.replaceSubrange(0..<54, with: header.encoded)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    /// File offset of full-size chunk `index` for the test chunk size.
    func chunkStart(_ index: Int) -> Int {
        54 + index * (chunk + 16)
    }

    /// `bytes` with full-size chunks `a` and `b` exchanged.
    func swapChunks(_ bytes: [UInt8], _ a: Int, _ b: Int) -> [UInt8] {
        var result = bytes
        let first = bytes[chunkStart(a)..<chunkStart(a + 1)]
        let second = bytes[chunkStart(b)..<chunkStart(b + 1)]
        result.replaceSubrange(chunkStart(a)..<chunkStart(a + 1), with: second)
        result.replaceSubrange(chunkStart(b)..<chunkStart(b + 1), with: first)
        return result
    }

    /// Whether `haystack` contains `needle` as a contiguous run.
    func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }

    /// Asserts that `body` throws exactly `expected`.
    func assertError(
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


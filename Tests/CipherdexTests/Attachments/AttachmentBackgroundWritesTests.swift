import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// The attachment writer's helper thread: batches land where they were aimed, and a failed write
/// is reported (once, typed) instead of being lost.
final class AttachmentBackgroundWritesTests: XCTestCase {
    func testQueuedWritesLandInOrderAndAFailureIsKept() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cdx-bg-\(UUID().uuidString)").path
        defer { unlink(path) }
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let background = AttachmentBackgroundWrites(buffers: 2)
        let first: [UInt8] = Array("first".utf8)
        let second: [UInt8] = Array("second".utf8)
        first.withUnsafeBytes { background.submit(fd: fd, bytes: $0, offset: 0, buffer: 0, id: "x") }
        second.withUnsafeBytes { background.submit(fd: fd, bytes: $0, offset: 5, buffer: 1, id: "x") }
        background.waitForAll()
        XCTAssertNoThrow(try background.checkFailure())
        XCTAssertEqual(try Array(Data(contentsOf: URL(fileURLWithPath: path))), first + second)

        let readOnly = open(path, O_RDONLY)
        defer { close(readOnly) }
        let failing = AttachmentBackgroundWrites(buffers: 1)
        first.withUnsafeBytes { failing.submit(fd: readOnly, bytes: $0, offset: 0, buffer: 0, id: "y") }
        failing.waitForBuffer(0)
        XCTAssertThrowsError(try failing.checkFailure()) { error in
            XCTAssertEqual(error as? AttachmentError, .io(id: "y", operation: "pwrite", errno: EBADF))
        }
    }

    /// Writes past the write-back threshold (where the helper asks the kernel to start writing)
    /// land intact and in place.
    func testWritesAcrossTheWritebackThresholdLandIntact() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cdx-wb-\(UUID().uuidString)").path
        defer { unlink(path) }
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let piece = 3 << 20
        var generator = SplitMix64(seed: 77)
        let content = (0..<(4 * piece)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        XCTAssertGreaterThan(UInt64(content.count), AttachmentBackgroundWrites.writebackBytes)
        let background = AttachmentBackgroundWrites(buffers: 2)
        content.withUnsafeBytes { raw in
            for index in 0..<4 {
                background.waitForBuffer(index % 2)
                background.submit(
                    fd: fd, bytes: UnsafeRawBufferPointer(rebasing: raw[(index * piece)..<((index + 1) * piece)]),
                    offset: UInt64(index * piece), buffer: index % 2, id: "wb")
            }
            background.waitForAll()
        }
        XCTAssertNoThrow(try background.checkFailure())
        XCTAssertEqual(try Array(Data(contentsOf: URL(fileURLWithPath: path))), content)
    }

    /// A long write drops what is safely written from the page cache as it goes (issue 16): of
    /// the first 8 MiB of a 48 MiB write, little is still cached once the write is done, while
    /// the last range is (its write-back was only started).
    func testALongWriteDropsItsWrittenPagesFromThePageCache() throws {
        #if os(Linux)
            let directory = FileManager.default.currentDirectoryPath + "/.build"
            // tmpfs keeps its pages whatever: nothing to drop there.
            try XCTSkipIf(PageCacheProbe.fileSystemType(of: directory) == "tmpfs", "\(directory) is on tmpfs")
            let path = directory + "/cdx-drop-\(UUID().uuidString)"
            defer { unlink(path) }
            let fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0o600)
            XCTAssertGreaterThanOrEqual(fd, 0)
            defer { close(fd) }
            let piece = 1 << 20
            let pieces = 48
            let buffers = (0..<2).map { index in [UInt8](repeating: UInt8(index + 1), count: piece) }
            let background = AttachmentBackgroundWrites(buffers: 2)
            for index in 0..<pieces {
                background.waitForBuffer(index % 2)
                buffers[index % 2].withUnsafeBytes { bytes in
                    background.submit(
                        fd: fd, bytes: bytes, offset: UInt64(index * piece), buffer: index % 2, id: "drop")
                }
            }
            background.waitForAll()
            XCTAssertNoThrow(try background.checkFailure())
            XCTAssertLessThan(try PageCacheProbe.residentFraction(fd, offset: 0, count: 8 << 20), 0.5)
            XCTAssertGreaterThan(
                try PageCacheProbe.residentFraction(fd, offset: (pieces - 4) * piece, count: 4 * piece), 0.5)
            // And the bytes are all there.
            var check = [UInt8](repeating: 0, count: piece)
            for index in [0, 1, 20, pieces - 1] {
                XCTAssertEqual(pread(fd, &check, piece, off_t(index * piece)), piece)
                XCTAssertEqual(check, buffers[index % 2], "piece \(index)")
            }
        #else
            throw XCTSkip("page-cache dropping is Linux-only")
        #endif
    }
}

import Foundation
import Synchronization
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `AttachmentReader.write(toFileDescriptor:)` (what `cipherdex cat` uses): the exact bytes land
/// at the descriptor's offset, and a long output drops what is safely written from the page cache
/// as it goes (issue 16).
final class AttachmentReaderOutputTests: XCTestCase {
    func testWritesExactBytesAfterWhatIsThereAndDropsWrittenPages() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        var generator = SplitMix64(seed: 16)
        let words = (0..<(5 << 20)).map { _ in generator.next() }
        let content = words.withUnsafeBytes { Data($0) }
        let token = try store.addAttachment(content)

        let output = path + "-out"
        defer { unlink(output) }
        let fd = open(output, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        let prefix = Array("already here\n".utf8)
        XCTAssertEqual(write(fd, prefix, prefix.count), prefix.count)
        try store.attachment(token.id).write(toFileDescriptor: fd)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: output)), Data(prefix) + content)

        #if os(Linux)
            if PageCacheProbe.fileSystemType(of: output) != "tmpfs" {
                // Reading the file back above cached it again: write a new one, then look.
                let again = output + "-again"
                defer { unlink(again) }
                let readable = open(again, O_RDWR | O_CREAT | O_TRUNC, 0o600)
                XCTAssertGreaterThanOrEqual(readable, 0)
                defer { close(readable) }
                try store.attachment(token.id).write(toFileDescriptor: readable)
                XCTAssertLessThan(try PageCacheProbe.residentFraction(readable, offset: 0, count: 8 << 20), 0.5)
            }
        #endif
    }

    func testWritesToADescriptorThatIsNotAFile() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        let token = try store.addAttachment(Data(repeating: 7, count: 300_000))
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]) }
        let reading = DispatchQueue.global()
        let received = DispatchGroup()
        let bytes = Mutex(Data())
        let readEnd = ends[0]
        reading.async(group: received) {
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(readEnd, &buffer, buffer.count)
                if count <= 0 { break }
                bytes.withLock { $0.append(contentsOf: buffer[0..<count]) }
            }
        }
        try store.attachment(token.id).write(toFileDescriptor: ends[1])
        close(ends[1])
        received.wait()
        XCTAssertEqual(bytes.withLock { $0 }, Data(repeating: 7, count: 300_000))
    }
}

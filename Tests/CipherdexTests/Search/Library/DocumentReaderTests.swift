import Foundation
import XCTest

@testable import Cipherdex

/// `DocumentReader.read`: a file written to while it is read (in place, its modification time set
/// back, or grown) is refused with a reason saying so, rather than indexed and stored as a mix of
/// its old and new content; a file left alone is read whole.
final class DocumentReaderTests: XCTestCase {
    func testAFileWrittenToWhileReadIsRefused() throws {
        let path = NSTemporaryDirectory() + "cipherdex-reader-" + UUID().uuidString
        defer { unlink(path) }
        let content = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 13) })
        let writes: [(name: String, offset: UInt64?, setBack: Bool)] = [
            ("in place", 50_000, false), ("in place, modification time set back", 0, true), ("appended", nil, false),
        ]
        for (name, offset, setBack) in writes {
            XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: content))
            let before = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
            // Past the file system's timestamp granularity, so the write moves the times.
            Thread.sleep(forTimeInterval: 0.02)
            XCTAssertThrowsError(
                try DocumentReader.read(path: path, limit: 1 << 20) {
                    guard let handle = FileHandle(forWritingAtPath: path) else { return XCTFail("open") }
                    if let offset { try? handle.seek(toOffset: offset) } else { _ = try? handle.seekToEnd() }
                    try? handle.write(contentsOf: Data("changed".utf8))
                    try? handle.close()
                    if setBack, let before {
                        try? FileManager.default.setAttributes([.modificationDate: before], ofItemAtPath: path)
                    }
                }, name
            ) { error in
                let reason = (error as? DocumentReader.Refusal)?.reason ?? "\(error)"
                XCTAssertTrue(reason.contains("was written to while it was read"), "\(name): \(reason)")
            }
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: content))
        XCTAssertEqual(try DocumentReader.read(path: path, limit: 1 << 20), Array(content))
    }
}

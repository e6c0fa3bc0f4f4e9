import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `FileDescriptor.openRegularFile(path:limit:)` and `FileSystem.readRegularFile(_:limit:)`:
/// anything but a regular file is refused at once, never blocking and never read without end.
final class RegularFileTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        directory = TestSupport.temporaryPath("files")
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    private func assertNotRegular(_ path: String, kind: String, line: UInt = #line) {
        let result = Watchdog.finishing(line: line) { try FileSystem.readRegularFile(path, limit: 4096) }
        guard case .failure(let error)? = result else {
            return XCTFail("expected notRegularFile, got \(String(describing: result))", line: line)
        }
        XCTAssertEqual(error as? RegularFileError, .notRegularFile(path: path, kind: kind), line: line)
    }

    func testRegularFileAndSymbolicLinkToOne() throws {
        let target = directory + "/plain"
        _ = FileManager.default.createFile(atPath: target, contents: Data("hello".utf8))
        XCTAssertEqual(try FileSystem.readRegularFile(target), Array("hello".utf8))
        let link = directory + "/link"
        XCTAssertEqual(symlink(target, link), 0)
        XCTAssertEqual(try FileSystem.readRegularFile(link), Array("hello".utf8))
        let empty = directory + "/empty"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        XCTAssertEqual(try FileSystem.readRegularFile(empty), [])
    }

    /// A /proc file reports a size of 0 yet has content: refused as `sizeUnknown` (never read as
    /// empty), while a truly empty file still reads as empty.
    func testAProcFileThatReportsZeroBytesIsSizeUnknown() throws {
        for path in ["/proc/self/status", "/proc/cpuinfo"] where FileManager.default.isReadableFile(atPath: path) {
            XCTAssertEqual(FileSystem.size(path), 0, "\(path) no longer reports 0 bytes: the test proves nothing")
            XCTAssertThrowsError(try FileDescriptor.openRegularFile(path: path, limit: 1 << 20)) { error in
                XCTAssertEqual(error as? RegularFileError, .sizeUnknown(path: path))
                XCTAssertTrue(
                    (error as? RegularFileError)?.reason.contains("reports 0 bytes but has content") == true, "\(error)"
                )
            }
        }
        let empty = directory + "/empty"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        XCTAssertEqual(try FileDescriptor.openRegularFile(path: empty, limit: 0).size, 0)
    }

    func testFIFOIsRefusedWithoutBlocking() throws {
        let fifo = directory + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let result = Watchdog.finishing(unblock: {
            // Release a reader stuck in open(2) or read(2): a writer appears and goes away.
            let writer = open(fifo, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
        }) { try FileSystem.readRegularFile(fifo, limit: 4096) }
        guard case .failure(let error)? = result else { return XCTFail("\(String(describing: result))") }
        XCTAssertEqual(error as? RegularFileError, .notRegularFile(path: fifo, kind: "a FIFO"))
        XCTAssertEqual((error as? RegularFileError)?.reason, "not a regular file (a FIFO)")
    }

    func testDirectoryDevicesAndSocketAreRefused() throws {
        assertNotRegular(directory, kind: "a directory")
        XCTAssertEqual(RegularFileError.notRegularFile(path: directory, kind: "a directory").reason, "is a directory")
        assertNotRegular("/dev/null", kind: "a character device")
        assertNotRegular("/dev/zero", kind: "a character device")
        assertNotRegular("/dev/urandom", kind: "a character device")

        let socketPath = directory + "/socket"
        let server = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(server) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(socketPath.utf8) + [0])
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(server, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        XCTAssertEqual(bound, 0)
        assertNotRegular(socketPath, kind: "a socket")
    }

    func testLimitMissingFileAndBrokenLink() throws {
        let big = directory + "/big"
        _ = FileManager.default.createFile(atPath: big, contents: Data(count: 5000))
        XCTAssertThrowsExactly(
            RegularFileError.tooLarge(path: big, size: 5000, limit: 4096),
            try FileSystem.readRegularFile(big, limit: 4096))
        XCTAssertEqual(try FileSystem.readRegularFile(big, limit: 5000).count, 5000)
        let missing = directory + "/missing"
        XCTAssertThrowsExactly(
            SystemError(operation: "open", path: missing, errno: ENOENT), try FileSystem.readRegularFile(missing))
        let broken = directory + "/broken"
        XCTAssertEqual(symlink(missing, broken), 0)
        XCTAssertThrowsExactly(
            SystemError(operation: "open", path: broken, errno: ENOENT), try FileSystem.readRegularFile(broken))
    }
}

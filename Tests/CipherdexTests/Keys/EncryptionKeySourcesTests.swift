import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Key and passphrase files: only regular files (or links to them) are read, everything else
/// is a `KeyError.unreadable` naming the path, at once.
final class EncryptionKeySourcesTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        directory = TestSupport.temporaryPath("keys")
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// Both readers of key files, by name.
    private let readers: [(name: String, read: @Sendable (String) throws -> EncryptionKey)] = [
        ("raw", { try EncryptionKey.raw(contentsOfFile: $0) }),
        ("passphrase", { try EncryptionKey.passphrase(contentsOfFile: $0) }),
    ]

    private func assertUnreadable(_ path: String, reason: String, line: UInt = #line) {
        for reader in readers {
            let read = reader.read
            let result = Watchdog.finishing(
                unblock: {
                    let writer = open(path, O_WRONLY | O_NONBLOCK)
                    if writer >= 0 { close(writer) }
                }, line: line
            ) { try read(path) }
            guard case .failure(let error)? = result else {
                return XCTFail("\(reader.name): expected unreadable, got \(String(describing: result))", line: line)
            }
            XCTAssertEqual(error as? KeyError, .unreadable(source: path, reason: reason), reader.name, line: line)
        }
    }

    func testDirectoryIsUnreadableNotACrash() {
        assertUnreadable(directory, reason: "is a directory")
        XCTAssertEqual(
            KeyError.unreadable(source: directory, reason: "is a directory").errorDescription,
            "cannot read key from \(directory): is a directory")
    }

    func testFIFOIsRefusedAtOnce() {
        let fifo = directory + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        assertUnreadable(fifo, reason: "not a regular file (a FIFO)")
    }

    func testDevicesAreRefusedWithoutReading() {
        for device in ["/dev/null", "/dev/zero", "/dev/urandom"] {
            assertUnreadable(device, reason: "not a regular file (a character device)")
        }
    }

    func testMissingAndOversizedFiles() {
        assertUnreadable(directory + "/missing", reason: "No such file or directory")
        let big = directory + "/big"
        _ = FileManager.default.createFile(atPath: big, contents: Data(count: 64 * 1024 + 1))
        XCTAssertThrowsExactly(
            KeyError.unreadable(source: big, reason: "larger than 4096 bytes (65537 bytes)"),
            try EncryptionKey.raw(contentsOfFile: big))
        XCTAssertThrowsExactly(
            KeyError.unreadable(source: big, reason: "larger than 65536 bytes (65537 bytes)"),
            try EncryptionKey.passphrase(contentsOfFile: big))
    }

    func testEmptyFileIsATypedError() {
        let empty = directory + "/empty"
        _ = FileManager.default.createFile(atPath: empty, contents: Data())
        XCTAssertThrowsExactly(
            KeyError.invalidHex("the file holds 0 bytes; expected 32 raw bytes or 64 hex digits"),
            try EncryptionKey.raw(contentsOfFile: empty))
        XCTAssertThrowsExactly(KeyError.emptyPassphrase, try EncryptionKey.passphrase(contentsOfFile: empty))
    }

    func testHexThatIsNotHexSaysSo() {
        XCTAssertThrowsExactly(
            KeyError.invalidHex("a character is not a hexadecimal digit (0-9, a-f, A-F)"),
            try EncryptionKey.raw(hex: String(repeating: "a", count: 63) + "g"))
        XCTAssertThrowsExactly(
            KeyError.invalidHex("expected 64 hex digits, got 3 characters"), try EncryptionKey.raw(hex: "abc\n"))
    }

    func testSymbolicLinkToARegularKeyFileWorks() throws {
        let hex = String(repeating: "ab", count: 32) + "\n"
        let target = directory + "/key.hex"
        _ = FileManager.default.createFile(atPath: target, contents: Data(hex.utf8))
        let link = directory + "/key-link"
        XCTAssertEqual(symlink(target, link), 0)
        let key = try EncryptionKey.raw(contentsOfFile: link)
        XCTAssertTrue(key.matches(try EncryptionKey.raw([UInt8](repeating: 0xAB, count: 32))))
        let phrase = directory + "/phrase"
        _ = FileManager.default.createFile(atPath: phrase, contents: Data("correct horse\n".utf8))
        XCTAssertEqual(symlink(phrase, directory + "/phrase-link"), 0)
        XCTAssertTrue(
            try EncryptionKey.passphrase(contentsOfFile: directory + "/phrase-link")
                .matches(try EncryptionKey.passphrase("correct horse")))
    }
}

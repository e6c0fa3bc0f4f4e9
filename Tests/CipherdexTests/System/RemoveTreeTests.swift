import Foundation
import XCTest

@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// `FileSystem.removeTree`: removes a tree through the store's own system calls, never following
/// a symbolic link, and fails with the real `errno` (not a blanket `EIO`).
final class RemoveTreeTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        directory = TestSupport.temporaryPath("tree")
        try! FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    func testRemovesNestedFoldersOddNamesAndLinksButNeverWhatALinkPointsTo() throws {
        let outside = directory + "/outside"
        try FileManager.default.createDirectory(atPath: outside + "/kept", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: outside + "/kept/file", contents: Data("keep".utf8)))
        let tree = directory + "/tree"
        try FileManager.default.createDirectory(atPath: tree + "/a/b/c", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: tree + "/a/b/c/file", contents: Data("x".utf8)))
        XCTAssertEqual(symlink(outside + "/kept", tree + "/a/link-to-folder"), 0)
        XCTAssertEqual(symlink(outside + "/kept/file", tree + "/link-to-file"), 0)
        XCTAssertEqual(symlink(tree + "/missing", tree + "/a/b/dangling"), 0)
        XCTAssertEqual(mkfifo(tree + "/a/fifo", 0o600), 0)
        // A name that is not UTF-8 (Foundation cannot spell it).
        let oddName = Array((tree + "/").utf8) + [0xFF, 0xFE, 0x00]
        let odd = oddName.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o600) }
        }
        XCTAssertGreaterThanOrEqual(odd, 0)
        close(odd)

        try FileSystem.removeTree(tree)
        XCTAssertFalse(FileSystem.exists(tree))
        XCTAssertEqual(FileManager.default.contents(atPath: outside + "/kept/file"), Data("keep".utf8))

        // A link given itself is removed as a link, its target kept; a missing path is no error.
        XCTAssertEqual(symlink(outside, directory + "/link"), 0)
        try FileSystem.removeTree(directory + "/link")
        XCTAssertFalse(FileSystem.exists(directory + "/link"))
        XCTAssertTrue(FileSystem.isDirectory(outside + "/kept"))
        try FileSystem.removeTree(directory + "/missing")
        // A plain file is removed too.
        XCTAssertTrue(FileManager.default.createFile(atPath: directory + "/plain", contents: Data()))
        try FileSystem.removeTree(directory + "/plain")
        XCTAssertFalse(FileSystem.exists(directory + "/plain"))
    }

    /// An entry that cannot be removed fails with its own `errno` and names it: here `EPERM` for
    /// an immutable file (root ignores modes; as another user the same holds for `EACCES`).
    func testAFailureCarriesTheRealErrnoAndNamesTheEntry() throws {
        let tree = directory + "/tree"
        try FileManager.default.createDirectory(atPath: tree + "/inner", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: tree + "/inner/file", contents: Data("x".utf8)))
        if getuid() != 0 {
            XCTAssertEqual(chmod(tree + "/inner", 0o500), 0)
            defer { chmod(tree + "/inner", 0o700) }
            assertFails(tree, errno: EACCES, naming: tree + "/inner/file")
            return
        }
        guard run(["/usr/bin/chattr", "+i", tree + "/inner/file"]) == 0 else {
            throw XCTSkip("cannot make a file immutable here")
        }
        defer { _ = run(["/usr/bin/chattr", "-i", tree + "/inner/file"]) }
        assertFails(tree, errno: EPERM, naming: tree + "/inner/file")
        XCTAssertThrowsError(try FileSystem.removeTree(tree)) { error in
            XCTAssertEqual((error as? SystemError).map { StoreError.classifying($0).name }, "permissionDenied")
        }
        XCTAssertTrue(FileSystem.exists(tree + "/inner/file"))
    }

    /// A folder mounted inside the tree (a bind mount: the same `st_dev`) is never entered: the
    /// walk stops there (`EBUSY` naming it) and what is on it stays; a tree that is itself a
    /// mount point is left as it is.
    func testAMountPointIsNeverEntered() throws {
        let tree = directory + "/tree"
        let elsewhere = directory + "/elsewhere"
        try FileManager.default.createDirectory(atPath: tree + "/inner", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: elsewhere + "/precious", contents: Data("x".utf8)))
        guard run(["/bin/mount", "--bind", elsewhere, tree + "/inner"]) == 0 else {
            throw XCTSkip("cannot bind-mount here")
        }
        defer { _ = run(["/bin/umount", tree + "/inner"]) }
        assertFails(tree, errno: EBUSY, naming: tree + "/inner")
        try FileSystem.removeTree(tree + "/inner")
        XCTAssertTrue(FileSystem.exists(elsewhere + "/precious"))
    }

    private func assertFails(_ path: String, errno code: Int32, naming entry: String, line: UInt = #line) {
        XCTAssertThrowsError(try FileSystem.removeTree(path), line: line) { error in
            XCTAssertEqual((error as? SystemError)?.errno, code, "\(error)", line: line)
            XCTAssertEqual((error as? SystemError)?.path, entry, "\(error)", line: line)
        }
    }

    private func run(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arguments[0])
        process.arguments = Array(arguments.dropFirst())
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

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

    /// A tree deeper than any descriptor limit (3,000 levels, past `PATH_MAX` too) is removed
    /// completely with at most `openLimit` folders open at once: the count of this process's
    /// open descriptors, taken each time a folder is entered, never grows by more than that.
    /// What a link deep inside points to is kept.
    func testADeepTreeIsRemovedWithABoundedNumberOfOpenDescriptors() throws {
        let outside = directory + "/outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: false)
        XCTAssertTrue(FileManager.default.createFile(atPath: outside + "/kept", contents: Data("keep".utf8)))
        let tree = directory + "/tree"
        try makeDeepTree(tree, depth: 3_000) { level, folder in
            if level % 500 == 0 { XCTAssertEqual(symlinkat(outside, folder, "link"), 0) }
            if level % 7 == 0 {
                let file = openat(folder, "file", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
                XCTAssertGreaterThanOrEqual(file, 0)
                close(file)
            }
        }
        let baseline = openDescriptorCount()
        var most = baseline
        var entered = 0
        try FileSystem.removeTree(tree, openLimit: 16) {
            entered += 1
            most = max(most, openDescriptorCount())
        }
        XCTAssertEqual(entered, 3_000)
        XCTAssertFalse(FileSystem.exists(tree))
        XCTAssertLessThanOrEqual(most - baseline, 16, "descriptors open at once while removing")
        XCTAssertEqual(openDescriptorCount(), baseline, "every descriptor closed afterwards")
        XCTAssertEqual(FileManager.default.contents(atPath: outside + "/kept"), Data("keep".utf8))
    }

    /// A folder whose descriptor was closed (deeper than `openLimit`) and that was replaced
    /// meanwhile is never removed: the walk stops with `ESTALE` naming it, and what was moved in
    /// is kept.
    func testAFolderReplacedWhileItsDescriptorWasClosedIsNeverRemoved() throws {
        let tree = directory + "/tree"
        try FileManager.default.createDirectory(atPath: tree + "/a/b/c/d", withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: tree + "/a/b/c/d/file", contents: Data("x".utf8)))
        var entered = 0
        var replaced = false
        XCTAssertThrowsError(
            try FileSystem.removeTree(tree, openLimit: 2) {
                // Once inside d (a, b closed): b is moved away and another folder put in its place.
                entered += 1
                guard entered == 4 else { return }
                replaced = true
                XCTAssertEqual(rename(tree + "/a/b", directory + "/moved-b"), 0)
                XCTAssertEqual(mkdir(tree + "/a/b", 0o700), 0)
                XCTAssertTrue(FileManager.default.createFile(atPath: tree + "/a/b/precious", contents: Data("p".utf8)))
            }
        ) { error in
            XCTAssertEqual((error as? SystemError)?.errno, ESTALE, "\(error)")
            // Typed for the caller: the store's deletion reports it as changedMeanwhile.
            guard let systemError = error as? SystemError,
                case .changedMeanwhile(let path, let operation) = StoreError.classifying(systemError)
            else { return XCTFail("not changedMeanwhile: \(error)") }
            XCTAssertEqual(path, tree + "/a", "b, below it, was moved away: a is not reached from it")
            XCTAssertEqual(operation, "open")
        }
        XCTAssertTrue(replaced)
        XCTAssertEqual(FileManager.default.contents(atPath: tree + "/a/b/precious"), Data("p".utf8))
    }

    /// Makes `path` and a chain of `depth` folders `d` below it with `mkdirat` (no path is ever
    /// longer than one name); `visit` gets each folder's level and open descriptor.
    private func makeDeepTree(_ path: String, depth: Int, visit: (Int, Int32) -> Void) throws {
        XCTAssertEqual(mkdir(path, 0o700), 0)
        var folder = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(folder, 0)
        for level in 1...depth {
            guard mkdirat(folder, "d", 0o700) == 0 else {
                throw SystemError(operation: "mkdirat", path: path, errno: errno)
            }
            let next = openat(folder, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            close(folder)
            guard next >= 0 else { throw SystemError(operation: "openat", path: path, errno: errno) }
            folder = next
            visit(level, folder)
        }
        close(folder)
    }

    /// How many descriptors this process has open.
    private func openDescriptorCount() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0
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

import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `cipherdex delete` end to end on stores whose folders are unusual: very deep, holding a mount
/// point, or a folder that cannot itself be removed.
final class DeleteCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned
    private var store = ""

    override func setUp() {
        cli = CLIRunner.temporary()
        store = cli.directory + "/s"
    }

    private func makeStore() throws {
        let created = try cli.run(["create", store, "--plaintext"])
        XCTAssertEqual(created.status, 0, created.stderr)
    }

    /// A folder tree 1,500 levels deep inside `attachments/` is not the store's: `delete`, under
    /// a descriptor limit far below its depth (`ulimit -n 256`), removes the store and keeps the
    /// tree with the folder holding it, and says so (it removed the whole tree).
    func testATreeInsideAttachmentsIsKeptAsNotTheStores() throws {
        try makeStore()
        try FileManager.default.createDirectory(atPath: store + "/attachments", withIntermediateDirectories: true)
        try makeDeepTree(store + "/attachments/deep", depth: 1_500)
        let limited = ["/bin/sh", "-c", "ulimit -n 256 && exec \"$@\"", "sh"]
        let deleted = try cli.run(["delete", store, "--yes"], launcher: limited)
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        XCTAssertEqual(
            deleted.stdout, "deleted \(store) (its folder was kept: it holds what is not the store's: attachments)\n")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store), ["attachments"])
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store + "/attachments"), ["deep"])
    }

    /// A mount point inside the store (a folder bound onto `staging/x`) is not the store's:
    /// `delete` removes the store and leaves it, and the folder holding it, as they are; what is
    /// on it stays (it stopped with `mountPoint` before, the store half deleted).
    func testAMountPointInsideTheStoreIsLeftAsItIs() throws {
        try makeStore()
        let point = store + "/staging/x"
        try FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
        let elsewhere = cli.directory + "/elsewhere"
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: false)
        XCTAssertTrue(FileManager.default.createFile(atPath: elsewhere + "/precious", contents: Data("p".utf8)))
        guard SmallFileSystem.run("/bin/mount", ["--bind", elsewhere, point]) == 0 else {
            throw XCTSkip("cannot bind-mount here")
        }
        defer { SmallFileSystem.run("/bin/umount", [point]) }
        let deleted = try cli.run(["delete", store, "--yes"])
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        XCTAssertEqual(
            deleted.stdout, "deleted \(store) (its folder was kept: it holds what is not the store's: staging)\n")
        XCTAssertEqual(FileManager.default.contents(atPath: elsewhere + "/precious"), Data("p".utf8))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store), ["staging"])
    }

    /// `EBUSY` on an unlink of the deletion (injected with strace: what a file bind-mounted over
    /// a store file gives) is `mountPoint` (exit 20) naming the file; `delete` run again
    /// finishes.
    func testEBUSYOnAnUnlinkIsMountPointNamingTheFile() throws {
        try assertInjectedUnlinkFailure("EBUSY", status: 20, prefix: "mountPoint: cannot remove")
    }

    /// `ESTALE` on an unlink of the deletion (what a file replaced meanwhile, or removed by
    /// another machine on a network file system, gives) is `changedMeanwhile` (exit 1) naming
    /// the file, never an untyped `system` error; `delete` run again finishes.
    func testESTALEOnAnUnlinkIsChangedMeanwhileNamingTheFile() throws {
        try assertInjectedUnlinkFailure("ESTALE", status: 1, prefix: "changedMeanwhile: cannot remove")
    }

    /// Deletes the store with `errnoName` injected into its first unlink: the error line must
    /// start with `prefix` and name a file of the store, with `status`; a second `delete`
    /// finishes.
    private func assertInjectedUnlinkFailure(_ errnoName: String, status: Int32, prefix: String) throws {
        guard FileManager.default.isExecutableFile(atPath: Self.strace) else {
            throw XCTSkip("strace is not installed (scripts/bootstrap installs it)")
        }
        try makeStore()
        let launcher = [
            Self.strace, "-f", "-qq", "-o", "/dev/null", "-e", "trace=unlink,unlinkat", "-e",
            "inject=unlink,unlinkat:error=\(errnoName):when=1",
        ]
        let refused = try cli.run(["delete", store, "--yes"], launcher: launcher)
        XCTAssertEqual(refused.status, status, refused.stderr)
        XCTAssertTrue(refused.stderr.hasPrefix("cipherdex: error: \(prefix) \(store)/"), refused.stderr)
        let deleted = try cli.run(["delete", store, "--yes"])
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store))
    }

    /// A store folder that is kept says so on the "deleted" line (exit 0: the store is gone):
    /// one holding a file of the user's, and one that cannot be removed once emptied (a mount
    /// point), with the reason.
    func testTheDeletedLineSaysWhenTheFolderStays() throws {
        try makeStore()
        XCTAssertTrue(FileManager.default.createFile(atPath: store + "/mine.txt", contents: Data("mine".utf8)))
        let kept = try cli.run(["delete", store, "--yes"])
        XCTAssertEqual(kept.status, 0, kept.stderr)
        XCTAssertEqual(
            kept.stdout, "deleted \(store) (its folder was kept: it holds what is not the store's: mine.txt)\n")

        let point = cli.directory + "/mounted"
        try FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: false)
        guard SmallFileSystem.run("/bin/mount", ["-t", "tmpfs", "-o", "size=4m,mode=0700", "tmpfs", point]) == 0 else {
            throw XCTSkip("cannot mount a tmpfs here")
        }
        defer { SmallFileSystem.run("/bin/umount", [point]) }
        XCTAssertEqual(try cli.run(["create", point, "--plaintext"]).status, 0)
        let left = try cli.run(["delete", point, "--yes"])
        XCTAssertEqual(left.status, 0, left.stderr)
        XCTAssertEqual(left.stdout, "deleted \(point) (its folder was left: it is an empty mount point)\n")
        XCTAssertEqual(left.stderr, "")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: point), [])
    }

    private static let strace = "/usr/bin/strace"

    /// Makes `path` and a chain of `depth` folders `d` below it with `mkdirat` (no path given to
    /// a system call is longer than one name).
    private func makeDeepTree(_ path: String, depth: Int) throws {
        XCTAssertEqual(mkdir(path, 0o700), 0)
        var folder = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(folder, 0)
        for _ in 0..<depth {
            guard mkdirat(folder, "d", 0o700) == 0 else { return XCTFail("mkdirat: errno \(errno)") }
            let next = openat(folder, "d", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            close(folder)
            guard next >= 0 else { return XCTFail("openat: errno \(errno)") }
            folder = next
        }
        close(folder)
    }

    /// A confirmation answered with anything but yes is `notConfirmed`, exit 1, and changes
    /// nothing (it said "not deleted" with exit 0, which a script takes for success); yes deletes.
    func testADeclinedConfirmationIsNotConfirmedAndChangesNothing() throws {
        try makeStore()
        for answer in ["n\n", "maybe\n", ""] {
            let declined = try cli.runOnTerminal("delete s", input: answer)
            XCTAssertEqual(declined.status, 1, declined.output)
            XCTAssertTrue(
                declined.output.contains("cipherdex: error: notConfirmed: not deleted: the answer was not yes"),
                declined.output)
            XCTAssertTrue(FileManager.default.fileExists(atPath: store + "/metadata.json"))
        }
        let accepted = try cli.runOnTerminal("delete s", input: "yes\n")
        XCTAssertEqual(accepted.status, 0, accepted.output)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store))
    }
}

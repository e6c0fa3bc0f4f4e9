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

    /// A folder tree 1,500 levels deep inside `attachments/` is deleted under a descriptor limit
    /// far below its depth (`ulimit -n 256`): the removal keeps a bounded number of folders open.
    func testATreeDeeperThanTheDescriptorLimitIsDeleted() throws {
        try makeStore()
        try FileManager.default.createDirectory(atPath: store + "/attachments", withIntermediateDirectories: true)
        try makeDeepTree(store + "/attachments/deep", depth: 1_500)
        let limited = ["/bin/sh", "-c", "ulimit -n 256 && exec \"$@\"", "sh"]
        let deleted = try cli.run(["delete", store, "--yes"], launcher: limited)
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        XCTAssertEqual(deleted.stdout, "deleted \(store)\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: store))
    }

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
}

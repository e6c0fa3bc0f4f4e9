import Foundation
import XCTest

/// A store (a backup) on a file system mounted read-only: the commands that read work and change
/// nothing, `restore` copies it to writable storage, and a write is `permissionDenied` (17).
final class ReadOnlyMediaCommandTests: XCTestCase {
    func testAStoreOnReadOnlyMediaIsReadAndRestored() throws {
        let cli = CLIRunner.temporary()
        let disk = try SmallFileSystem(bytes: 16 << 20)
        defer { disk.unmount() }
        let store = disk.path + "/s"
        XCTAssertEqual(try cli.run(["keygen", "--out", "k"]).status, 0)
        XCTAssertEqual(try cli.run(["create", store, "--key-file", "k"]).status, 0)
        try "the consultation mentions ocarina".write(
            toFile: cli.directory + "/visit.txt", atomically: true, encoding: .utf8)
        XCTAssertEqual(try cli.run(["add", store, "visit.txt", "--key-file", "k"]).status, 0)
        let put = try cli.run(["doc", "put", store, "c", "a", "-", "--key-file", "k"], stdin: Array(#"{"n":1}"#.utf8))
        XCTAssertEqual(put.status, 0, put.stderr)
        try disk.remountReadOnly()

        for command in [
            ["info", store], ["verify", store], ["doc", "get", store, "c", "a"], ["search", store, "ocarina"],
        ] {
            let result = try cli.run(command + ["--key-file", "k"])
            XCTAssertEqual(result.status, 0, "\(command): \(result.stderr)")
        }
        XCTAssertEqual(try cli.run(["doc", "get", store, "c", "a", "--key-file", "k"]).stdout, #"{"n":1}"# + "\n")
        let write = try cli.run(["doc", "put", store, "c", "b", "-", "--key-file", "k"], stdin: Array("{}".utf8))
        XCTAssertEqual(write.status, 17, write.stderr)
        XCTAssertTrue(write.stderr.contains("read-only"), write.stderr)
        let restore = try cli.run(["restore", store, "restored", "--key-file", "k"])
        XCTAssertEqual(restore.status, 0, restore.stderr)
        let search = try cli.run(["search", "restored", "ocarina", "--key-file", "k"])
        XCTAssertEqual(search.status, 0, search.stderr)
        XCTAssertTrue(search.stdout.contains("visit.txt"), search.stdout)
    }
}

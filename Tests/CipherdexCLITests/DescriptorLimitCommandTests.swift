import Foundation
import XCTest

/// Commands run out of file descriptors end with an error, never a trap: Dispatch made its own
/// descriptors the first time a worker thread or source started, mid-command, and trapped
/// (SIGILL, exit 132) when none was free (resources audit 3; `DescriptorHeadroom`).
final class DescriptorLimitCommandTests: XCTestCase {
    func testCommandsOutOfDescriptorsFailWithAnErrorNeverATrap() throws {
        let cli = CLIRunner.temporary()
        func path(_ name: String) -> String { cli.directory + "/" + name }
        let key = ["--key-file", path("key")]
        XCTAssertEqual(try cli.run(["keygen", "--out", path("key")]).status, 0)
        XCTAssertEqual(try cli.run(["create", path("store")] + key).status, 0)
        XCTAssertEqual(
            try cli.run(["doc", "put", path("store"), "notes", "a", "-"] + key, stdin: Array(#"{"t":1}"#.utf8)).status,
            0)
        try FileManager.default.createDirectory(atPath: path("folder"), withIntermediateDirectories: true)
        for index in 0..<5 {
            try Data("note \(index)".utf8).write(to: URL(fileURLWithPath: path("folder/f\(index).txt")))
        }
        let commands: [[String]] = [
            ["verify", path("store")], ["export", path("store"), path("exported"), "--yes"],
            ["index", path("store"), path("folder")],
        ]
        for limit in 8...14 {
            for command in commands {
                try? FileManager.default.removeItem(atPath: path("exported"))
                let result = try cli.run(
                    command + key, environment: ["SWIFT_BACKTRACE": "enable=no"],
                    launcher: ["/bin/sh", "-c", "ulimit -n \(limit); exec \"$0\" \"$@\""])
                XCTAssertNotEqual(result.status, 132, "\(command[0]) under ulimit -n \(limit) trapped")
                XCTAssertFalse(
                    [14, 15].contains(result.status),
                    "\(command[0]) under ulimit -n \(limit) called the store damaged: \(result.stderr)")
                XCTAssertTrue(
                    result.status == 0 || result.stderr.contains("cipherdex: error: "),
                    "\(command[0]) under ulimit -n \(limit): \(result.status) \(result.stderr)")
            }
        }
        XCTAssertEqual(try cli.run(["verify", path("store")] + key).status, 0)
    }

    /// A backup to a new destination run out of descriptors leaves no folder beside it: it tried
    /// eight times on any error, and could not remove what it made (resources audit 5).
    func testABackupOutOfDescriptorsLeavesNoFolderBehind() throws {
        let cli = CLIRunner.temporary()
        func path(_ name: String) -> String { cli.directory + "/" + name }
        let key = ["--key-file", path("key")]
        XCTAssertEqual(try cli.run(["keygen", "--out", path("key")]).status, 0)
        XCTAssertEqual(try cli.run(["create", path("store")] + key).status, 0)
        var failures = 0
        for limit in 6...14 {
            let result = try cli.run(
                ["backup", path("store"), path("bk")] + key, environment: ["SWIFT_BACKTRACE": "enable=no"],
                launcher: ["/bin/sh", "-c", "ulimit -n \(limit); exec \"$0\" \"$@\""])
            if result.status != 0 { failures += 1 }
            XCTAssertFalse([14, 15].contains(result.status), "ulimit -n \(limit): \(result.stderr)")
            let left = try FileManager.default.contentsOfDirectory(atPath: cli.directory).filter {
                $0.hasPrefix(".bk.backup-")
            }
            XCTAssertEqual(left, [], "ulimit -n \(limit): \(result.stderr)")
            try? FileManager.default.removeItem(atPath: path("bk"))
        }
        XCTAssertGreaterThan(failures, 0, "no limit made the backup fail: the test tested nothing")
    }

    /// A key file that cannot be opened for want of descriptors is `resourcesExhausted` (exit 22,
    /// as README and `--help` promise for too many open files), not `keyUnreadable` (exit 1):
    /// `key add` reads the new key's file once the store is open, so some limit leaves no
    /// descriptor for it (API audit 27, finding 4).
    func testAKeyFileOutOfDescriptorsIsResourcesExhausted() throws {
        let cli = CLIRunner.temporary()
        func path(_ name: String) -> String { cli.directory + "/" + name }
        XCTAssertEqual(try cli.run(["keygen", "--out", path("key")]).status, 0)
        XCTAssertEqual(try cli.run(["create", path("store"), "--key-file", path("key")]).status, 0)
        var keyFileExhausted = false
        for limit in 6...16 {
            try? FileManager.default.removeItem(atPath: path("new"))
            XCTAssertEqual(try cli.run(["keygen", "--out", path("new")]).status, 0)
            let result = try cli.run(
                ["key", "add", path("store"), "--new-key-file", path("new"), "--key-file", path("key")],
                environment: ["SWIFT_BACKTRACE": "enable=no"],
                launcher: ["/bin/sh", "-c", "ulimit -n \(limit); exec \"$0\" \"$@\""])
            XCTAssertFalse(result.stderr.contains("keyUnreadable"), "ulimit -n \(limit): \(result.stderr)")
            if result.stderr.contains("too many files open") || result.stderr.contains("Too many open files") {
                XCTAssertEqual(result.status, 22, "ulimit -n \(limit): \(result.stderr)")
            }
            if result.status == 22 && result.stderr.contains(path("new")) { keyFileExhausted = true }
        }
        XCTAssertTrue(
            keyFileExhausted, "no limit left the new key's file without a descriptor: the test tested nothing")
    }
}

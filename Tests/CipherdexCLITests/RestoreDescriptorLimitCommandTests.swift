import Foundation
import XCTest

/// `restore --yes` over a store, run out of file descriptors at every point it can be: it fails
/// with an error and the store keeps its database and every write (resources audit 1: the
/// metadata read failed with EMFILE, was taken for unreadable metadata, and the live database
/// was picked as the free generation and deleted).
final class RestoreDescriptorLimitCommandTests: XCTestCase {
    func testARestoreOutOfDescriptorsLeavesTheStoreAsItWas() throws {
        let cli = CLIRunner.temporary()
        func path(_ name: String) -> String { cli.directory + "/" + name }
        let key = ["--key-file", path("key")]
        XCTAssertEqual(try cli.run(["keygen", "--out", path("key")]).status, 0)
        XCTAssertEqual(try cli.run(["create", path("store")] + key).status, 0)
        let put = ["doc", "put", path("store"), "notes"]
        XCTAssertEqual(try cli.run(put + ["before", "-"] + key, stdin: Array(#"{"t":1}"#.utf8)).status, 0)
        XCTAssertEqual(try cli.run(["backup", path("store"), path("backup")] + key).status, 0)
        XCTAssertEqual(try cli.run(put + ["after", "-"] + key, stdin: Array(#"{"t":2}"#.utf8)).status, 0)
        var failures = 0
        for limit in 6...16 {
            let copy = path("store-\(limit)")
            let cp = Process()
            cp.executableURL = URL(fileURLWithPath: "/bin/cp")
            cp.arguments = ["-a", path("store"), copy]
            try cp.run()
            cp.waitUntilExit()
            XCTAssertEqual(cp.terminationStatus, 0)
            let restore = try cli.run(
                ["restore", path("backup"), copy, "--yes"] + key,
                environment: ["SWIFT_BACKTRACE": "enable=no"],
                launcher: ["/bin/sh", "-c", "ulimit -n \(limit); exec \"$0\" \"$@\""])
            guard restore.status != 0 else { continue }
            failures += 1
            XCTAssertFalse([14, 15].contains(restore.status), "limit \(limit): \(restore.stderr)")
            XCTAssertTrue(
                FileManager.default.fileExists(atPath: copy + "/store.db"), "limit \(limit): \(restore.stderr)")
            let after = try cli.run(["doc", "get", copy, "notes", "after"] + key)
            XCTAssertEqual(after.status, 0, "limit \(limit): \(restore.stderr) then \(after.stderr)")
            XCTAssertEqual(after.stdout, #"{"t":2}"# + "\n")
        }
        XCTAssertGreaterThan(failures, 0, "no limit made the restore fail: the test tested nothing")
    }
}

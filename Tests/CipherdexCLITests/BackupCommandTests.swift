import Foundation
import XCTest

/// `cipherdex backup` and `cipherdex restore` end to end: the backup opens with the store's key,
/// the second run is incremental, restore refuses an existing store without --yes, and a bad
/// destination is a typed error.
final class BackupCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned

    override func setUp() {
        cli = CLIRunner.temporary()
    }

    private func path(_ name: String) -> String { cli.directory + "/" + name }

    private func check(_ result: CLIRunner.Result, _ status: Int32, file: StaticString = #filePath, line: UInt = #line)
    {
        XCTAssertEqual(result.status, status, result.stderr, file: file, line: line)
    }

    func testBackupIncrementalBackupAndRestore() throws {
        let key = ["--key-file", path("key")]
        check(try cli.run(["keygen", "--out", path("key")]), 0)
        check(try cli.run(["create", path("store")] + key), 0)
        check(
            try cli.run(
                ["doc", "put", path("store"), "notes", "a", "-"] + key, stdin: Array(#"{"t":"pelican-41"}"#.utf8)), 0)
        try Data("attached text ocelot-77".utf8).write(to: URL(fileURLWithPath: path("a.txt")))
        check(try cli.run(["attach", path("store"), path("a.txt")] + key), 0)

        let first = try cli.run(["backup", path("store"), path("backup")] + key)
        check(first, 0)
        XCTAssertTrue(first.stdout.contains("1 attachments (1 copied, 0 kept"), first.stdout)
        let second = try cli.run(["backup", path("store"), path("backup")] + key)
        check(second, 0)
        XCTAssertTrue(second.stdout.contains("(0 copied, 1 kept from the previous backup)"), second.stdout)
        let got = try cli.run(["doc", "get", path("backup"), "notes", "a"] + key)
        check(got, 0)
        XCTAssertEqual(got.stdout, #"{"t":"pelican-41"}"# + "\n")
        check(try cli.run(["verify", path("backup")] + key), 0)
        check(try cli.run(["info", path("backup")]), 10)

        // Restore: a new path, then over the store (refused without --yes, which changes nothing).
        let fresh = try cli.run(["restore", path("backup"), path("restored")] + key)
        check(fresh, 0)
        XCTAssertFalse(fresh.stdout.contains("now opens with the backup's keys"), fresh.stdout)
        check(try cli.run(["doc", "get", path("restored"), "notes", "a"] + key), 0)
        check(try cli.run(["doc", "rm", path("store"), "notes", "a"] + key), 0)
        let refused = try cli.run(["restore", path("backup"), path("store")] + key)
        check(refused, 1)
        XCTAssertTrue(refused.stderr.hasPrefix("cipherdex: error: destinationExists:"), refused.stderr)
        check(try cli.run(["doc", "get", path("store"), "notes", "a"] + key), 1)
        let replaced = try cli.run(["restore", path("backup"), path("store"), "--yes"] + key)
        check(replaced, 0)
        XCTAssertTrue(
            replaced.stdout.contains("\(path("store")) now opens with the backup's keys (a key removed"),
            replaced.stdout)
        let restored = try cli.run(["doc", "get", path("store"), "notes", "a"] + key)
        check(restored, 0)
        XCTAssertEqual(restored.stdout, #"{"t":"pelican-41"}"# + "\n")
    }

    /// KEY opens BACKUP: a wrong, missing or unexpected key names the backup (exit status of the
    /// key error kept), and an unencrypted backup restored over an encrypted store says the store
    /// is now unencrypted.
    func testRestoreNamesTheBackupInKeyErrorsAndSaysWhenTheStoreBecomesUnencrypted() throws {
        let key = ["--key-file", path("key")]
        check(try cli.run(["keygen", "--out", path("key")]), 0)
        check(try cli.run(["keygen", "--out", path("other")]), 0)
        check(try cli.run(["create", path("store")] + key), 0)
        check(try cli.run(["backup", path("store"), path("backup")] + key), 0)
        let wrong = try cli.run(["restore", path("backup"), path("new"), "--key-file", path("other")])
        check(wrong, 12)
        XCTAssertTrue(
            wrong.stderr.hasPrefix("cipherdex: error: keyInvalid: the key does not open the backup \(path("backup"))"),
            wrong.stderr)
        check(try cli.run(["restore", path("backup"), path("new")]), 10)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("new")))

        check(try cli.run(["create", path("plain"), "--plaintext"]), 0)
        check(try cli.run(["backup", path("plain"), path("plainBackup")]), 0)
        let unexpected = try cli.run(["restore", path("plainBackup"), path("new")] + key)
        check(unexpected, 11)
        XCTAssertTrue(
            unexpected.stderr.contains("the backup \(path("plainBackup")) is not encrypted"), unexpected.stderr)
        let replaced = try cli.run(["restore", path("plainBackup"), path("store"), "--yes"])
        check(replaced, 0)
        XCTAssertTrue(
            replaced.stdout.contains("\(path("store")) is now UNENCRYPTED, as the backup is"), replaced.stdout)
        check(try cli.run(["info", path("store")]), 0)
    }

    func testBadDestinationsAreTypedErrors() throws {
        check(try cli.run(["create", path("store"), "--plaintext"]), 0)
        try Data("x".utf8).write(to: URL(fileURLWithPath: path("file")))
        let file = try cli.run(["backup", path("store"), path("file")])
        check(file, 1)
        XCTAssertTrue(file.stderr.hasPrefix("cipherdex: error: destinationNotAStore:"), file.stderr)
        check(try cli.run(["create", path("other"), "--plaintext"]), 0)
        let other = try cli.run(["backup", path("store"), path("other")])
        check(other, 1)
        XCTAssertTrue(other.stderr.hasPrefix("cipherdex: error: destinationIsAnotherStore:"), other.stderr)
        check(try cli.run(["restore", path("missing"), path("new")]), 1)
        check(try cli.run(["backup", path("store")]), 64)
    }

    /// A restore's refused destination is said as a restore's ("cannot restore to"), not as a
    /// backup's ("cannot hold a backup").
    func testARestoresRefusedDestinationIsWordedAsARestore() throws {
        check(try cli.run(["create", path("store"), "--plaintext"]), 0)
        check(try cli.run(["backup", path("store"), path("backup")]), 0)
        try FileManager.default.createDirectory(atPath: path("real"), withIntermediateDirectories: false)
        XCTAssertEqual(symlink(path("real"), path("link")), 0)
        let restored = try cli.run(["restore", path("backup"), path("link")])
        check(restored, 1)
        XCTAssertTrue(
            restored.stderr.hasPrefix("cipherdex: error: destinationNotAStore: cannot restore to \(path("link")): "),
            restored.stderr)
        XCTAssertFalse(restored.stderr.contains("backup"), restored.stderr)
    }
}

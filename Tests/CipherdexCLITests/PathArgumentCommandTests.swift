import Foundation
import XCTest

/// File paths that made Foundation's `lastPathComponent` trap (`///o//`; found by
/// `FuzzCLIArguments`): `add` and `attach` refuse them with a typed error instead of dying.
final class PathArgumentCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned

    override func setUpWithError() throws {
        cli = CLIRunner.temporary()
        try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "k"]).status, 0)
    }

    func testSlashHeavyPathsAreTypedErrors() throws {
        for path in ["///o//", "////////////////o////////"] {
            for command in [["add", "s", path], ["attach", "s", path]] {
                let result = try cli.run(command + ["--key-file", "k"])
                XCTAssertFalse(result.signaled, "\(command) died: \(result.stderr)")
                XCTAssertEqual(result.status, 1, "\(command): \(result.stderr)")
                XCTAssertTrue(result.stderr.hasPrefix("cipherdex: error: "), result.stderr)
            }
        }
        // The same name through a real file: the UID is its last component.
        try FileManager.default.createDirectory(atPath: cli.directory + "/dir", withIntermediateDirectories: true)
        try Data("text in o".utf8).write(to: URL(fileURLWithPath: cli.directory + "/dir/o.txt"))
        let added = try cli.run(["add", "s", cli.directory + "///dir/o.txt//", "--key-file", "k"])
        XCTAssertFalse(added.signaled, added.stderr)
        let again = try cli.run(["add", "s", "dir/o.txt", "--key-file", "k"])
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertTrue(again.stdout.hasPrefix("o.txt: finished"), again.stdout)
    }

    /// An empty STORE, and a new store's missing parent folder, are the library's typed errors
    /// (exit 1, the code naming the case); nothing is created.
    func testAnEmptyStorePathOrAMissingParentFolderIsTyped() throws {
        for command in [
            ["info", ""], ["verify", ""], ["create", "", "--plaintext"], ["doc", "get", "", "c", "a"],
            ["encrypt", "", "--new-key-env", "K"], ["decrypt", "", "--yes", "--key-env", "K"],
        ] {
            let result = try cli.run(command)
            XCTAssertEqual(result.status, 1, "\(command): \(result.stderr)")
            XCTAssertEqual(
                result.stderr, "cipherdex: error: invalidPath: invalid store path \"\": the path is empty\n",
                "\(command)")
        }
        let created = try cli.run(["create", "no/store", "--plaintext"])
        XCTAssertEqual(created.status, 1, created.stderr)
        XCTAssertTrue(created.stderr.hasPrefix("cipherdex: error: parentFolderMissing: "), created.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: cli.directory + "/no"))
    }

    /// A store path that is a loop of symbolic links is invalidPath for every command, not
    /// "no store here" for one and an untyped error for another.
    func testALoopOfSymbolicLinksIsInvalidPath() throws {
        XCTAssertEqual(symlink("l2", cli.directory + "/l1"), 0)
        XCTAssertEqual(symlink("l1", cli.directory + "/l2"), 0)
        for command in [["info", "l1"], ["create", "l1", "--plaintext"], ["verify", "l1"]] {
            let result = try cli.run(command)
            XCTAssertEqual(result.status, 1, "\(command): \(result.stderr)")
            XCTAssertEqual(
                result.stderr,
                "cipherdex: error: invalidPath: invalid store path \"l1\": its symbolic links form a loop\n",
                "\(command)")
        }
    }

    /// A path with a line break or terminal escape is shown on one line in success reports, as in
    /// error messages (file-system audit 7e: `created … at` printed them raw, forging a line).
    func testPathsInReportsAreShownOnOneLine() throws {
        let path = "new\nforged line\u{1B}[7m"
        let created = try cli.run(["create", path, "--key-file", "k"])
        XCTAssertEqual(created.status, 0, created.stderr)
        XCTAssertEqual(created.stdout, "created encrypted store at new forged line [7m\n")
        let backedUp = try cli.run(["backup", path, "b\u{1B}x", "--key-file", "k"])
        XCTAssertEqual(backedUp.status, 0, backedUp.stderr)
        XCTAssertTrue(backedUp.stdout.hasPrefix("backed up "), backedUp.stdout)
        XCTAssertFalse(backedUp.stdout.dropLast().contains { $0.isNewline || $0 == "\u{1B}" }, backedUp.stdout)
        let exported = try cli.run(["export", path, "e\nx", "--yes", "--key-file", "k"])
        XCTAssertEqual(exported.status, 0, exported.stderr)
        XCTAssertTrue(exported.stdout.hasSuffix(" to e x (plaintext)\n"), exported.stdout)
        let info = try cli.run(["info", path, "--key-file", "k"])
        XCTAssertTrue(info.stdout.hasPrefix("store:        "), info.stdout)
        XCTAssertFalse(info.stdout.contains("\u{1B}"), info.stdout)
    }
}

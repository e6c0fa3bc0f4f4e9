import Foundation
import XCTest

/// Faults of the environment injected with `strace -e inject=…` into single system calls on the
/// store's files: each is reported as what it is (a permission 17, a full disk 18, a failing disk
/// 19), never as damage (15, which README answers with "restore from a backup") nor untyped (1),
/// and leaves the store as it was.
final class EnvironmentFaultCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned
    private var store = ""
    private let environment = ["CDX_KEY": String(repeating: "c3", count: 32)]
    private static let strace = "/usr/bin/strace"

    override func setUpWithError() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.strace) else {
            throw XCTSkip("strace is not installed (scripts/bootstrap installs it)")
        }
        cli = CLIRunner.temporary()
        store = cli.directory + "/s"
        XCTAssertEqual(try run(["create", store]).status, 0)
        XCTAssertEqual(try run(["doc", "put", store, "notes", "a", try document(1)]).status, 0)
    }

    private func run(_ arguments: [String], launcher: [String] = []) throws -> CLIRunner.Result {
        try cli.run(arguments + ["--key-env", "CDX_KEY"], environment: environment, launcher: launcher)
    }

    private func document(_ version: Int) throws -> String {
        let file = cli.directory + "/a\(version).json"
        try Data("{\"v\": \(version)}".utf8).write(to: URL(fileURLWithPath: file))
        return file
    }

    /// `strace` injecting `error` into call `when` of `syscall` on `path` only.
    private func injecting(_ syscall: String, _ error: String, when: String, on path: String) -> [String] {
        [
            Self.strace, "-f", "-qq", "-o", "/dev/null", "-P", path, "-e", "trace=\(syscall)",
            "-e", "inject=\(syscall):error=\(error):when=\(when)",
        ]
    }

    /// Runs `arguments` under `launcher`; checks the exit status and code, and that the store's
    /// files are unchanged.
    private func assertFails(
        _ arguments: [String], launcher: [String], status: Int32, code: String, _ context: String,
        file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let before = CLIRunner.tree(store)
        let result = try run(arguments, launcher: launcher)
        XCTAssertEqual(result.status, status, "\(context): \(result.stderr)", file: file, line: line)
        XCTAssertTrue(
            result.stderr.hasPrefix("cipherdex: error: \(code): "), "\(context): \(result.stderr)", file: file,
            line: line)
        XCTAssertEqual(CLIRunner.tree(store), before, "\(context) changed the store", file: file, line: line)
    }

    /// A `-wal` that cannot be opened or created is that cause (SQLite's read-only retry of the
    /// missing log used to leave ENOSPC's or EACCES's place to ENOENT, and the open said damage).
    func testAWriteAheadLogThatCannotBeOpenedIsTheEnvironment() throws {
        for (error, status, code) in [
            ("EACCES", Int32(17), "permissionDenied"), ("ENOSPC", 18, "diskFull"), ("EDQUOT", 18, "diskFull"),
            ("EIO", 19, "ioError"),
        ] {
            try assertFails(
                ["doc", "get", store, "notes", "a"],
                launcher: injecting("openat", error, when: "1", on: store + "/store.db-wal"), status: status,
                code: code, "\(error) opening store.db-wal")
        }
    }

    /// The writer's read-write open of the database failing for another reason than permission
    /// is not turned into a read-only database (which said permissionDenied on the first write).
    func testAFailedReadWriteOpenOfTheDatabaseKeepsItsCause() throws {
        for (error, status, code) in [
            ("ENOSPC", Int32(18), "diskFull"), ("EIO", 19, "ioError"), ("EMFILE", 22, "resourcesExhausted"),
        ] {
            try assertFails(
                ["doc", "put", store, "notes", "a", try document(2)],
                launcher: injecting("openat", error, when: "2", on: store + "/store.db"), status: status, code: code,
                "\(error) on the second open of store.db")
        }
    }

    /// A failed read of the database's salt (the open's second read of store.db) is a failing
    /// disk: SQLCipher took it for a new database, and the open said the key did not decrypt it.
    func testAFailedReadOfTheDatabaseHeaderIsAnIOError() throws {
        for when in ["2", "2+"] {
            try assertFails(
                ["doc", "get", store, "notes", "a"],
                launcher: injecting("pread64", "EIO", when: when, on: store + "/store.db"), status: 19, code: "ioError",
                "EIO on pread64 \(when) of store.db")
        }
    }

    /// An integrity check that cannot read a page ("unable to get the page. error code=266") is
    /// a failing disk, not a problem of the store.
    func testVerifyThatCannotReadAPageIsAnIOError() throws {
        let log = cli.directory + "/calibration.txt"
        let calibration = try run(
            ["verify", store],
            launcher: [Self.strace, "-f", "-qq", "-o", log, "-P", store + "/store.db", "-e", "trace=pread64"])
        XCTAssertEqual(calibration.status, 0, calibration.stderr)
        let reads = try String(contentsOfFile: log, encoding: .utf8).split(separator: "\n").filter {
            $0.contains("pread64(")
        }.count
        // The integrity check makes the last reads but one or two (the tables' reads are cached).
        for when in [reads - 2, reads - 1] {
            let result = try run(
                ["verify", store], launcher: injecting("pread64", "EIO", when: String(when), on: store + "/store.db"))
            XCTAssertNotEqual(result.status, 15, "EIO on read \(when) of \(reads): \(result.stdout) \(result.stderr)")
            if result.status != 0 {
                XCTAssertEqual(result.status, 19, "EIO on read \(when) of \(reads): \(result.stderr)")
                XCTAssertTrue(result.stderr.hasPrefix("cipherdex: error: ioError: "), result.stderr)
            }
        }
        XCTAssertEqual(try run(["verify", store]).status, 0)
    }

    /// A sync interrupted by a signal (EINTR from fdatasync) is retried: the write succeeds.
    func testAnInterruptedSyncIsRetried() throws {
        for when in 1...3 {
            let result = try run(
                ["doc", "put", store, "notes", "a", try document(10 + when)],
                launcher: [
                    Self.strace, "-f", "-qq", "-o", "/dev/null", "-e", "trace=fdatasync",
                    "-e", "inject=fdatasync:error=EINTR:when=\(when)",
                ])
            XCTAssertEqual(result.status, 0, "EINTR on fdatasync \(when): \(result.stderr)")
            let read = try run(["doc", "get", store, "notes", "a"])
            XCTAssertEqual(read.stdout.filter { !$0.isWhitespace }, "{\"v\":\(10 + when)}")
        }
    }

    /// `delete` failing after its tombstone's rename (the folder's fsync) says the store is
    /// deleted and to delete it again, never "nothing committed is lost"; the second delete
    /// finishes.
    func testADeleteFailingAfterItsTombstoneSaysTheStoreIsDeleted() throws {
        for (error, status) in [("EIO", Int32(19)), ("ENOSPC", 18)] {
            let launcher = [
                Self.strace, "-f", "-qq", "-o", "/dev/null", "-e", "trace=fsync", "-e",
                "inject=fsync:error=\(error):when=1",
            ]
            let result = try cli.run(["delete", store, "--yes"], launcher: launcher)
            XCTAssertEqual(result.status, status, "\(error): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("is deleted"), result.stderr)
            XCTAssertTrue(result.stderr.contains("delete it again"), result.stderr)
            XCTAssertFalse(result.stderr.contains("nothing committed is lost"), result.stderr)
            let again = try cli.run(["delete", store, "--yes"])
            XCTAssertEqual(again.status, 0, again.stderr)
            XCTAssertFalse(FileManager.default.fileExists(atPath: store))
            try setUpWithError()
        }
    }

    /// When only `delete`'s last folder sync failed, every file of the store is gone: the delete
    /// run again, as the message asks, says the directory is empty, not just "no store".
    func testADeleteRunAgainAfterItsLastSyncFailedSaysNothingIsLeft() throws {
        let launcher = [
            Self.strace, "-f", "-qq", "-o", "/dev/null", "-e", "trace=fsync", "-e", "inject=fsync:error=EIO:when=3",
        ]
        let result = try cli.run(["delete", store, "--yes"], launcher: launcher)
        XCTAssertEqual(result.status, 19, result.stderr)
        XCTAssertTrue(result.stderr.contains("delete it again"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store), [])
        let again = try cli.run(["delete", store, "--yes"])
        XCTAssertTrue(again.stderr.contains("the directory is empty: nothing of a store is left"), again.stderr)
    }
}

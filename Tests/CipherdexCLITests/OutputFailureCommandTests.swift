import Foundation
import XCTest

/// A standard output that cannot be written (a full disk, a closed pipe with SIGPIPE ignored) is a
/// typed error, never a trap; what the command did stays done, and a recovery key nobody could see
/// is taken back.
final class OutputFailureCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned
    private var store = ""
    private let key = ["--key-env", "CIPHERDEX_TEST_KEY"]
    private let environment = ["CIPHERDEX_TEST_KEY": String(repeating: "5a", count: 32)]
    /// Runs the command with its standard output on /dev/full.
    private let toFullDisk = ["/bin/sh", "-c", "exec \"$0\" \"$@\" >/dev/full"]

    override func setUp() {
        cli = CLIRunner.temporary()
        store = cli.directory + "/s"
    }

    func testAFullStandardOutputIsDiskFullAndTheChangeStays() throws {
        XCTAssertEqual(try cli.run(["create", store] + key, environment: environment).status, 0)
        for command in [
            ["--version"], ["--help"], ["info", "--help"], ["keygen"], ["info", store] + key,
            ["key", "add", store, "--recovery"] + key,
        ] {
            let result = try cli.run(
                command, environment: environment, stdin: Array("{\"n\": 1}".utf8), launcher: toFullDisk)
            XCTAssertFalse(result.signaled, "\(command)")
            XCTAssertEqual(result.status, 18, "\(command): \(result.stderr)")
            // (An unseen recovery key's error also says its slot was removed again, on its one line.)
            let recovery = command.contains("--recovery")
            XCTAssertTrue(
                result.stderr.hasPrefix("cipherdex: error: diskFull: ") && result.stderr.contains("standard output"),
                result.stderr)
            XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
            XCTAssertEqual(recovery, result.stderr.contains("so its slot 2 was removed again"), result.stderr)
            XCTAssertFalse(result.stderr.contains("Fatal error"), result.stderr)
        }
        let slots = try cli.run(["key", "list", store] + key, environment: environment)
        XCTAssertEqual(slots.stdout.split(separator: "\n").count, 1, "the unseen recovery key's slot: \(slots.stdout)")
    }

    /// A command whose change is committed before its report is written says so when the report
    /// cannot be written: `outputFailed` (exit 21), "the change is in effect; do not run the
    /// command again", never `diskFull`'s "the write did not happen ... retry" (which, after a
    /// key change, a script would follow and lock itself out).
    func testACommittedChangeWhoseReportCannotBeWrittenIsOutputFailed() throws {
        XCTAssertEqual(try cli.run(["create", store] + key, environment: environment).status, 0)
        let newKey = ["CIPHERDEX_NEW_KEY": String(repeating: "6b", count: 32)]
        let both = environment.merging(newKey) { a, _ in a }
        let cases: [([String], String)] = [
            (["doc", "put", store, "notes", "one", "-"] + key, "the document notes/one is stored"),
            (["doc", "rm", store, "notes", "one"] + key, "the document notes/one is removed"),
            (["rekey", store] + key + ["--new-key-env", "CIPHERDEX_NEW_KEY"], "only the new key opens it"),
        ]
        for (command, done) in cases {
            let result = try cli.run(
                command, environment: both, stdin: Array("{\"n\": 1}".utf8), launcher: toFullDisk)
            XCTAssertFalse(result.signaled, "\(command)")
            XCTAssertEqual(result.status, 21, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("cipherdex: error: outputFailed: "), result.stderr)
            XCTAssertTrue(result.stderr.contains(done), result.stderr)
            XCTAssertTrue(result.stderr.contains("do not run the command again"), result.stderr)
        }
        let opened = try cli.run(["info", store, "--key-env", "CIPHERDEX_NEW_KEY"], environment: newKey)
        XCTAssertEqual(opened.status, 0, opened.stderr)
    }

    /// A pipe whose reader is gone: a command that changed nothing ends quietly by SIGPIPE (as
    /// `cipherdex search … | head` expects), one whose change is committed says so, exit 21
    /// (the signal ended `rekey` without a word, its new key the only one that opens the store).
    func testAClosedPipeAfterACommittedChangeIsOutputFailed() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            throw XCTSkip("python3 is not installed")
        }
        // Standard output a pipe whose read end is closed, SIGPIPE at its default (Python ignores it).
        let toClosedPipe = [
            "/usr/bin/python3", "-c",
            "import os, signal, sys; r, w = os.pipe(); os.close(r); os.dup2(w, 1); "
                + "signal.signal(signal.SIGPIPE, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])",
        ]
        XCTAssertEqual(try cli.run(["create", store] + key, environment: environment).status, 0)
        let both = environment.merging(["CIPHERDEX_NEW_KEY": String(repeating: "6b", count: 32)]) { a, _ in a }
        for command in [
            ["doc", "put", store, "notes", "one", "-"] + key,
            ["rekey", store] + key + ["--new-key-env", "CIPHERDEX_NEW_KEY"],
        ] {
            let result = try cli.run(command, environment: both, stdin: Array("{}".utf8), launcher: toClosedPipe)
            XCTAssertFalse(result.signaled, "\(command): \(result.status)")
            XCTAssertEqual(result.status, 21, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("cipherdex: error: outputFailed: "), result.stderr)
        }
        let info = try cli.run(
            ["info", store, "--key-env", "CIPHERDEX_NEW_KEY"], environment: both, launcher: toClosedPipe)
        XCTAssertTrue(info.signaled || info.status == 141, "info: \(info.status) \(info.stderr)")
        XCTAssertEqual(info.stderr, "")
    }

    /// `cat` on a full standard output is `diskFull` (18) like every other command's output (it
    /// was an untyped `io`, exit 1).
    func testCatToAFullStandardOutputIsDiskFull() throws {
        XCTAssertEqual(try cli.run(["create", store] + key, environment: environment).status, 0)
        let source = cli.directory + "/a.bin"
        XCTAssertTrue(FileManager.default.createFile(atPath: source, contents: Data(repeating: 7, count: 200_000)))
        let attached = try cli.run(["attach", store, source] + key, environment: environment)
        XCTAssertEqual(attached.status, 0, attached.stderr)
        let id = attached.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let result = try cli.run(["cat", store, id] + key, environment: environment, launcher: toFullDisk)
        XCTAssertEqual(result.status, 18, result.stderr)
        XCTAssertTrue(
            result.stderr.hasPrefix("cipherdex: error: diskFull: ") && result.stderr.contains("standard output"),
            result.stderr)
    }

    /// An error naming a path or argument holding control characters prints them as spaces on
    /// one line (an escape sequence in a name was played by the terminal).
    func testErrorMessagesCarryNoControlCharacters() throws {
        let result = try cli.run(["status", "X\u{1B}]0;pwned\u{07}\nY\u{9B}31m"])
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("cipherdex: error: notAStore: X ]0;pwned  Y 31m"), result.stderr)
        XCTAssertEqual(result.stderr.filter { $0 == "\n" }.count, 1, result.stderr)
        XCTAssertFalse(
            result.stderr.unicodeScalars.dropLast().contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
    }

    /// With SIGPIPE at its default (a shell's pipe to a command that has exited), a recovery key
    /// printed into a closed pipe is an error and its slot is taken back: the signal does not end
    /// the process first.
    func testARecoveryKeyIntoAClosedPipeIsTakenBack() throws {
        XCTAssertEqual(try cli.run(["create", store] + key, environment: environment).status, 0)
        let launcher = [
            "/usr/bin/python3", "-c",
            "import os, signal, sys; signal.signal(signal.SIGPIPE, signal.SIG_DFL); r, w = os.pipe(); "
                + "os.close(r); os.dup2(w, 1); os.execv(sys.argv[1], sys.argv[1:])",
        ]
        guard FileManager.default.isExecutableFile(atPath: launcher[0]) else { throw XCTSkip("needs python3") }
        let result = try cli.run(
            ["key", "add", store, "--recovery"] + key, environment: environment, launcher: launcher)
        XCTAssertFalse(result.signaled, result.stderr)
        XCTAssertEqual(result.status, 1, result.stderr)
        // One error line saying both (a note line came first).
        XCTAssertTrue(result.stderr.hasPrefix("cipherdex: error: io: cannot write to standard output: "), result.stderr)
        XCTAssertTrue(
            result.stderr.contains("; the recovery key could not be shown, so its slot 2 was removed again"),
            result.stderr)
        XCTAssertEqual(result.stderr.split(separator: "\n").count, 1, result.stderr)
        let slots = try cli.run(["key", "list", store] + key, environment: environment)
        XCTAssertEqual(slots.stdout.split(separator: "\n").count, 1, slots.stdout)
    }

    func testAClosedPipeIsAnIOErrorNotATrap() throws {
        let process = Process()
        process.executableURL = CLIRunner.productsDirectory.appendingPathComponent("cipherdex")
        process.arguments = ["--help"]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try output.fileHandleForReading.close()
        signal(SIGPIPE, SIG_IGN)  // inherited: the child gets EPIPE rather than the signal
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .exit)
        XCTAssertEqual(process.terminationStatus, 1, text)
        XCTAssertTrue(text.hasPrefix("cipherdex: error: io: cannot write to standard output: "), text)
    }

    /// Started with standard input and output closed (`<&- >&-`), a command never prints into a
    /// store file that took descriptor 1 (the lock file, held open, received documents, the
    /// bytes of attachments and recovery keys in plaintext, with exit 0): the output fails as not
    /// written, and the lock file stays empty.
    func testClosedStandardStreamsNeverReceiveStoreFiles() throws {
        XCTAssertEqual(try cli.run(["create", store] + key, environment: environment).status, 0)
        let put = try cli.run(
            ["doc", "put", store, "patients", "ada", "-"] + key, environment: environment,
            stdin: Array(#"{"diagnosis":"TOPSECRET-7731"}"#.utf8))
        XCTAssertEqual(put.status, 0, put.stderr)
        let closed = ["/bin/sh", "-c", "exec \"$0\" \"$@\" <&- >&-"]
        let got = try cli.run(
            ["doc", "get", store, "patients", "ada"] + key, environment: environment, launcher: closed)
        XCTAssertEqual(got.status, 1, got.stderr)
        XCTAssertTrue(got.stderr.hasPrefix("cipherdex: error: io: cannot write to standard output: "), got.stderr)
        let recovery = try cli.run(
            ["key", "add", store, "--recovery"] + key, environment: environment, launcher: closed)
        XCTAssertEqual(recovery.status, 1, recovery.stderr)
        let lock = try XCTUnwrap(FileManager.default.contents(atPath: store + "/cipherdex.lock"))
        XCTAssertEqual(lock.count, 0, String(decoding: lock, as: UTF8.self))
        let slots = try cli.run(["key", "list", store] + key, environment: environment)
        XCTAssertEqual(slots.stdout.split(separator: "\n").count, 1, slots.stdout)
    }
}

import Foundation
import XCTest

/// The store commands end to end, through the real executable: exit statuses, error lines, key
/// sources.
final class StoreCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned

    override func setUp() {
        cli = CLIRunner.temporary()
    }

    private func path(_ name: String) -> String { cli.directory + "/" + name }

    private func files(_ store: String) -> [String: Data] {
        var result: [String: Data] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path(store))) ?? [] {
            result[name] = FileManager.default.contents(atPath: path(store) + "/" + name)
        }
        return result
    }

    func testKeygenWritesModeSixHundredAndHex() throws {
        let printed = try cli.run(["keygen"])
        XCTAssertEqual(printed.status, 0)
        XCTAssertNotNil(printed.stdout.range(of: "^[0-9a-f]{64}\n$", options: .regularExpression))
        XCTAssertEqual(try cli.run(["keygen", "--out", "k"]).status, 0)
        let attributes = try FileManager.default.attributesOfItem(atPath: path("k"))
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual(attributes[.size] as? NSNumber, 65)
        let again = try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(again.status, 1, "an existing key file is never overwritten")
    }

    func testExitStatusesForEachOpenError() throws {
        try cli.run(["keygen", "--out", "k1"])
        try cli.run(["keygen", "--out", "k2"])
        XCTAssertEqual(try cli.run(["create", "enc", "--key-file", "k1"]).status, 0)
        XCTAssertEqual(try cli.run(["create", "plain", "--plaintext"]).status, 0)
        let before = files("enc")

        let required = try cli.run(["info", "enc"])
        XCTAssertEqual(required.status, 10)
        XCTAssertTrue(required.stderr.hasPrefix("cipherdex: error: keyRequired: "), required.stderr)
        XCTAssertEqual(try cli.run(["info", "plain", "--key-file", "k1"]).status, 11)
        let invalid = try cli.run(["info", "enc", "--key-file", "k2"])
        XCTAssertEqual(invalid.status, 12)
        XCTAssertTrue(invalid.stderr.hasPrefix("cipherdex: error: keyInvalid: "), invalid.stderr)
        XCTAssertEqual(invalid.stderr.split(separator: "\n").count, 1, "errors are one line")
        XCTAssertEqual(files("enc"), before, "failed opens change nothing")

        var metadata = String(decoding: FileManager.default.contents(atPath: path("enc/metadata.json"))!, as: UTF8.self)
        metadata = metadata.replacingOccurrences(of: "\"formatVersion\" : 1", with: "\"formatVersion\" : 7")
        _ = FileManager.default.createFile(atPath: path("enc/metadata.json"), contents: Data(metadata.utf8))
        XCTAssertEqual(try cli.run(["info", "enc", "--key-file", "k1"]).status, 13)
        _ = FileManager.default.createFile(atPath: path("enc/metadata.json"), contents: Data("{".utf8))
        XCTAssertEqual(try cli.run(["info", "enc", "--key-file", "k1"]).status, 14)
        _ = FileManager.default.createFile(atPath: path("enc/metadata.json"), contents: before["metadata.json"]!)
        var database = before["store.db"]!
        database[100] ^= 0x01
        _ = FileManager.default.createFile(atPath: path("enc/store.db"), contents: database)
        XCTAssertEqual(try cli.run(["info", "enc", "--key-file", "k1"]).status, 15)
        _ = FileManager.default.createFile(atPath: path("enc/store.db"), contents: before["store.db"]!)
        XCTAssertEqual(try cli.run(["verify", "enc", "--key-file", "k1"]).status, 0)
    }

    func testUsageErrorsExitSixtyFour() throws {
        let bare = try cli.run([])
        XCTAssertEqual(bare.status, 64)
        XCTAssertEqual(bare.stdout, "", "a usage error's help goes to standard error")
        XCTAssertTrue(bare.stderr.hasPrefix("cipherdex — an encrypted, searchable document store"), bare.stderr)
        XCTAssertEqual(try cli.run(["frobnicate"]).status, 64)
        XCTAssertEqual(try cli.run(["create"]).status, 64)
        XCTAssertEqual(try cli.run(["create", "s"]).status, 64, "a KEY or --plaintext is required")
        XCTAssertEqual(try cli.run(["create", "s", "--key", "00"]).status, 64, "no bare key material")
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "a", "--key-env", "B"]).status, 64)
        XCTAssertEqual(try cli.run(["delete", "s"]).status, 64, "delete without a terminal needs --yes")
        // An empty path is one usage error, whichever command gets it (each said something else).
        XCTAssertEqual(try cli.run(["create", "s", "--plaintext"]).status, 0)
        for command in [["backup", "s", ""], ["export", "s", "", "--yes"], ["index", "s", ""], ["add", "s", ""]] {
            let result = try cli.run(command)
            XCTAssertEqual(result.status, 64, "\(command)")
            XCTAssertTrue(result.stderr.hasSuffix(" is an empty path\n"), "\(command): \(result.stderr)")
        }
        for command in [["delete", "", "--yes"], ["restore", "", "x"], ["restore", "s", ""]] {
            let result = try cli.run(command)
            XCTAssertEqual(result.status, 1, "\(command)")
            XCTAssertTrue(result.stderr.hasPrefix("cipherdex: error: invalidPath: "), "\(command): \(result.stderr)")
        }
        // A missing argument whose value was read as an option says how to give it.
        let dashed = try cli.run(["search", "s", "-alpha"])
        XCTAssertEqual(dashed.status, 64)
        XCTAssertTrue(dashed.stderr.contains("goes after --: -- -alpha"), dashed.stderr)
        let parent = try cli.run(["backup", "s", path("missing/b")])
        XCTAssertTrue(parent.stderr.contains("its parent folder \(path("missing")) does not exist"), parent.stderr)
        for command in ["keygen", "create", "info", "verify", "rekey", "delete"] {
            let help = try cli.run([command, "--help"])
            XCTAssertEqual(help.status, 0)
            XCTAssertTrue(help.stdout.contains("USAGE: cipherdex \(command)"), command)
        }
    }

    /// `-h` and `--help` after `--`, or as an option's value, are arguments like any other: the
    /// command runs (it printed help, did nothing and exited 0); before `--`, even where the
    /// command's arguments are incomplete, they ask for help.
    func testHelpAfterDoubleDashOrAsAValueIsAnArgument() throws {
        XCTAssertEqual(try cli.run(["create", "s", "--plaintext"]).status, 0)
        _ = FileManager.default.createFile(atPath: path("d.json"), contents: Data(#"{"n":1}"#.utf8))
        _ = FileManager.default.createFile(atPath: path("--help"), contents: Data(#"{"n":2}"#.utf8))
        XCTAssertEqual(try cli.run(["doc", "put", "s", "notes", "--", "-h", "d.json"]).status, 0)
        XCTAssertEqual(try cli.run(["doc", "put", "s", "notes", "x", "--", "--help"]).status, 0)
        XCTAssertEqual(try cli.run(["doc", "get", "s", "notes", "--", "-h"]).stdout, #"{"n":1}"# + "\n")
        XCTAssertEqual(try cli.run(["doc", "get", "s", "notes", "x"]).stdout, #"{"n":2}"# + "\n")
        let attached = try cli.run(["attach", "s", "--", "--help"])
        XCTAssertEqual(attached.status, 0, attached.stderr)
        XCTAssertFalse(attached.stdout.contains("USAGE"), attached.stdout)
        let extra = try cli.run(["info", "s", "--", "--help"])
        XCTAssertEqual(extra.status, 64)
        XCTAssertTrue(extra.stderr.hasSuffix("unexpected argument --help\n"), extra.stderr)
        for command in [
            ["doc", "put", "--help"], ["doc", "put", "s", "notes", "-h"], ["attach", "s", "-h"], ["info", "", "-h"],
        ] {
            let help = try cli.run(command)
            XCTAssertEqual(help.status, 0, "\(command)")
            XCTAssertTrue(help.stdout.hasPrefix("USAGE: cipherdex "), "\(command): \(help.stdout)")
        }
    }

    func testKeySourcesAndRekey() throws {
        let hex = String(repeating: "ab", count: 32)
        _ = FileManager.default.createFile(atPath: path("raw.key"), contents: Data(repeating: 0xAB, count: 32))
        _ = FileManager.default.createFile(atPath: path("pass"), contents: Data("my passphrase\n".utf8))
        XCTAssertEqual(try cli.run(["create", "s", "--key-env", "CDX_KEY"], environment: ["CDX_KEY": hex]).status, 0)
        // The same key as raw bytes in a file.
        XCTAssertEqual(try cli.run(["info", "s", "--key-file", "raw.key"]).status, 0)
        let rekey = try cli.run(
            ["rekey", "s", "--key-file", "raw.key", "--new-passphrase-env", "CDX_PASS"],
            environment: ["CDX_PASS": "my passphrase"])
        XCTAssertEqual(rekey.status, 0, rekey.stderr)
        XCTAssertEqual(try cli.run(["info", "s", "--key-file", "raw.key"]).status, 12)
        let info = try cli.run(["info", "s", "--passphrase-file", "pass", "--json"])
        XCTAssertEqual(info.status, 0)
        let json = try JSONSerialization.jsonObject(with: Data(info.stdout.utf8)) as! [String: Any]
        XCTAssertEqual(json["encrypted"] as? Bool, true)
        XCTAssertEqual(json["generation"] as? Int, 2)
        XCTAssertFalse(info.stdout.contains(hex))
        _ = FileManager.default.createFile(atPath: path("short.key"), contents: Data(repeating: 1, count: 31))
        let short = try cli.run(["info", "s", "--key-file", "short.key"])
        XCTAssertEqual(short.status, 1)
        XCTAssertTrue(short.stderr.contains("invalidHex") || short.stderr.contains("invalidLength"), short.stderr)
        // The option a malformed key came from is named: KEY or NEWKEY, the file or the variable.
        XCTAssertTrue(short.stderr.contains(": KEY (--key-file short.key): "), short.stderr)
        let newKey = try cli.run(["rekey", "s", "--passphrase-file", "pass", "--new-key-file", "short.key"])
        XCTAssertEqual(newKey.status, 1)
        XCTAssertTrue(newKey.stderr.contains(": NEWKEY (--new-key-file short.key): "), newKey.stderr)
        let variable = try cli.run(["info", "s", "--key-env", "CDX_KEY"], environment: ["CDX_KEY": "abc"])
        XCTAssertTrue(
            variable.stderr.hasPrefix("cipherdex: error: invalidHex: KEY (--key-env CDX_KEY): "), variable.stderr)
    }

    /// A directory, FIFO or device as a key or passphrase file: exit 1 with a `keyUnreadable`
    /// line at once (it used to be a segmentation fault, or to block forever on the FIFO).
    func testKeyFileThatIsNotARegularFile() throws {
        try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "k"]).status, 0)
        try FileManager.default.createDirectory(atPath: path("dir"), withIntermediateDirectories: false)
        XCTAssertEqual(mkfifo(path("fifo"), 0o600), 0)
        let cases = [
            ("dir", "is a directory"), ("fifo", "not a regular file (a FIFO)"),
            ("/dev/zero", "not a regular file (a character device)"),
        ]
        for (number, (file, reason)) in cases.enumerated() {
            for option in ["--key-file", "--passphrase-file"] {
                for arguments in [["create", "new-\(number)\(option)"], ["info", "s"]] {
                    let result = try runFinishing(arguments + [option, file], unblocking: path("fifo"))
                    XCTAssertEqual(result.status, 1, "\(arguments) \(option) \(file): \(result.stderr)")
                    XCTAssertEqual(
                        result.stderr, "cipherdex: error: keyUnreadable: cannot read key from \(file): \(reason)\n")
                }
            }
        }
    }

    /// `cli.run` that fails after 20 s instead of hanging, then opens `fifo` for writing so a
    /// child stuck on it gets end of file and exits.
    private func runFinishing(_ arguments: [String], unblocking fifo: String) throws -> CLIRunner.Result {
        let box = RunBox()
        let done = DispatchSemaphore(value: 0)
        let runner = cli
        Thread {
            box.result = Result { try runner.run(arguments) }
            done.signal()
        }.start()
        if done.wait(timeout: .now() + 20) == .timedOut {
            XCTFail("cipherdex \(arguments) did not finish within 20 s")
            let writer = open(fifo, O_WRONLY | O_NONBLOCK)
            if writer >= 0 { close(writer) }
            done.wait()
        }
        return try box.result!.get()
    }

    func testDeleteWithYes() throws {
        XCTAssertEqual(try cli.run(["create", "s", "--plaintext"]).status, 0)
        XCTAssertEqual(try cli.run(["delete", "s", "--yes"]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("s")))
        XCTAssertEqual(try cli.run(["delete", "s", "--yes"]).status, 1)
    }

    func testRekeyKilledAtRandomInstantsLeavesOneWorkingKey() throws {
        // Real processes killed with SIGKILL while they rotate the key back and forth.
        try cli.run(["keygen", "--out", "a"])
        try cli.run(["keygen", "--out", "b"])
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "a"]).status, 0)
        var current = "a"
        for attempt in 0..<12 {
            let next = current == "a" ? "b" : "a"
            let process = Process()
            process.executableURL = CLIRunner.productsDirectory.appendingPathComponent("cipherdex")
            process.arguments = ["rekey", "s", "--key-file", current, "--new-key-file", next]
            process.currentDirectoryURL = URL(fileURLWithPath: cli.directory)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            usleep(UInt32(attempt) * 2_500)  // from before startup to after the rename
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let oldWorks = try cli.run(["info", "s", "--key-file", current]).status == 0
            let newWorks = try cli.run(["info", "s", "--key-file", next]).status == 0
            XCTAssertTrue(oldWorks != newWorks, "exactly one key must open the store (attempt \(attempt))")
            if newWorks { current = next }
        }
    }

    /// A passphrase whose bytes are not UTF-8 is the same key from a file and from an
    /// environment variable, and bytes that differ are a different key (none is repaired into
    /// U+FFFD).
    func testAPassphraseThatIsNotUTF8IsTheSameKeyFromEverySource() throws {
        _ = FileManager.default.createFile(atPath: path("latin1"), contents: Data([0x63, 0x61, 0x66, 0xE9, 0x0A]))
        XCTAssertEqual(try cli.run(["create", "s", "--passphrase-file", "latin1"]).status, 0)
        let executable = CLIRunner.productsDirectory.appendingPathComponent("cipherdex").path
        func info(withPassphraseBytes octal: String) throws -> Int32 {
            // A child's environment can only be given bytes that are not UTF-8 through a shell.
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = [
                "-c", "P=$(printf '\(octal)'); export P; exec \"$0\" info s --passphrase-env P", executable,
            ]
            process.currentDirectoryURL = URL(fileURLWithPath: cli.directory)
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            process.waitUntilExit()
            return process.terminationStatus
        }
        XCTAssertEqual(try info(withPassphraseBytes: "caf\\351"), 0, "the file's bytes")
        XCTAssertEqual(try info(withPassphraseBytes: "caf\\377"), 12, "other bytes are another key")
        XCTAssertEqual(try info(withPassphraseBytes: "caf\\357\\277\\275"), 12, "U+FFFD is another key")
    }
}

/// The result of a run on a watchdog thread (written before the semaphore signal, read after it).
private final class RunBox: @unchecked Sendable {
    var result: Result<CLIRunner.Result, Error>?
}

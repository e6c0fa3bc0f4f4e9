import Foundation
import XCTest

/// `doc`, `attach`, `cat` and `detach` end to end, plus memory and crash behaviour of attach.
final class DocumentCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned

    override func setUpWithError() throws {
        cli = CLIRunner.temporary()
        try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "k"]).status, 0)
    }

    private func run(_ arguments: [String], stdin: [UInt8]? = nil) throws -> CLIRunner.Result {
        try cli.run(arguments + ["--key-file", "k"], stdin: stdin)
    }

    func testDocPutGetFindRemove() throws {
        XCTAssertEqual(
            try run(
                ["doc", "put", "s", "people", "ada", "-"],
                stdin: Array(#"{"name":"Ada","age":36,"address":{"city":"London"}}"#.utf8)
            ).status, 0)
        _ = FileManager.default.createFile(
            atPath: cli.directory + "/bob.json",
            contents: Data(#"{"name":"Bob","age":9,"flag":true,"address":{"city":"Paris"}}"#.utf8))
        XCTAssertEqual(try run(["doc", "put", "s", "people", "bob", "bob.json"]).status, 0)
        XCTAssertEqual(
            try run(["doc", "get", "s", "people", "ada"]).stdout,
            #"{"address":{"city":"London"},"age":36,"name":"Ada"}"# + "\n")
        XCTAssertEqual(try run(["doc", "find", "s", "people", "--where", "age>10"]).stdout, "ada\n")
        XCTAssertEqual(try run(["doc", "find", "s", "people", "--where", "age<=9"]).stdout, "bob\n")
        XCTAssertEqual(try run(["doc", "find", "s", "people", "--where", "address.city=Paris"]).stdout, "bob\n")
        XCTAssertEqual(try run(["doc", "find", "s", "people", "--where", "flag=true"]).stdout, "bob\n")
        XCTAssertEqual(try run(["doc", "find", "s", "people", "--where", "name=\"Ada\""]).stdout, "ada\n")
        let json = try run(["doc", "find", "s", "people", "--where", "age>=0", "--json"])
        let array = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [[String: Any]]
        XCTAssertEqual(array.map { $0["id"] as? String }, ["ada", "bob"])
        XCTAssertEqual(try run(["doc", "rm", "s", "people", "bob"]).status, 0)
        XCTAssertEqual(try run(["doc", "get", "s", "people", "bob"]).status, 1)
        let bad = try run(["doc", "put", "s", "people", "x", "-"], stdin: Array("{not json".utf8))
        XCTAssertEqual(bad.status, 1)
        XCTAssertTrue(bad.stderr.hasPrefix("cipherdex: error: invalidJSON: "), bad.stderr)
        XCTAssertFalse(bad.stderr.contains("not json"), "errors never echo the document")
        XCTAssertTrue(try run(["doc", "get", "s", "nothing", "x"]).stderr.contains("unknownCollection"))
        XCTAssertEqual(try run(["doc", "find", "s", "people", "--where", "novalue"]).status, 64)
    }

    /// Input without end is refused once past 256 MiB (standard input from /dev/zero grew
    /// memory until killed), and a FIFO or device as FILE at once; nothing is stored.
    /// `doc put … -` reads its input before it opens the store: other commands are not locked
    /// out while someone types the document.
    func testDocPutDoesNotHoldTheStoreWhileItsInputIsTyped() throws {
        let process = Process()
        process.executableURL = CLIRunner.productsDirectory.appendingPathComponent("cipherdex")
        process.arguments = ["doc", "put", "s", "c", "typed", "-", "--key-file", "k"]
        process.currentDirectoryURL = URL(fileURLWithPath: cli.directory)
        let input = Pipe()
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        usleep(300_000)
        let info = try run(["info", "s"])
        XCTAssertEqual(info.status, 0, "the store is not held while the input is typed: \(info.stderr)")
        try input.fileHandleForWriting.write(contentsOf: Data(#"{"typed":true}"#.utf8))
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0)
        XCTAssertEqual(try run(["doc", "get", "s", "c", "typed"]).stdout, #"{"typed":true}"# + "\n")
    }

    func testDocPutInputIsBoundedAndMustBeARegularFile() throws {
        let endless = try cli.run(
            ["doc", "put", "s", "c", "x", "-", "--key-file", "k"],
            launcher: ["/bin/sh", "-c", "exec \"$0\" \"$@\" </dev/zero"])
        XCTAssertEqual(endless.status, 1, endless.stderr)
        XCTAssertTrue(endless.stderr.hasPrefix("cipherdex: error: documentTooLarge: standard input "), endless.stderr)
        XCTAssertEqual(mkfifo(cli.directory + "/fifo", 0o600), 0)
        for file in ["/dev/zero", cli.directory + "/fifo", cli.directory] {
            let started = Date()
            let result = try run(["doc", "put", "s", "c", "x", file])
            XCTAssertEqual(result.status, 1, result.stderr)
            XCTAssertTrue(result.stderr.hasPrefix("cipherdex: error: io: cannot read \(file): "), result.stderr)
            XCTAssertLessThan(Date().timeIntervalSince(started), 1)
        }
        XCTAssertEqual(try run(["doc", "get", "s", "c", "x"]).status, 1)
    }

    func testAttachCatRangeDetach() throws {
        var content = [UInt8](repeating: 0, count: 200_000)
        for index in content.indices { content[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 8) }
        _ = FileManager.default.createFile(atPath: cli.directory + "/file.bin", contents: Data(content))
        XCTAssertEqual(
            try run(["doc", "put", "s", "notes", "n1", "-"], stdin: Array(#"{"title":"t"}"#.utf8)).status, 0)
        let attached = try run(["attach", "s", "file.bin", "--doc", "notes/n1"])
        XCTAssertEqual(attached.status, 0, attached.stderr)
        let id = attached.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(id.count, 32)
        XCTAssertEqual(try run(["cat", "s", id]).stdoutBytes, content)
        XCTAssertEqual(try run(["cat", "s", id, "--range", "65530-65545"]).stdoutBytes, Array(content[65530...65545]))
        XCTAssertEqual(try run(["cat", "s", id, "--range", "199990-"]).stdoutBytes, Array(content[199990...]))
        XCTAssertEqual(try run(["cat", "s", id, "--range", "5-300000"]).stdoutBytes, Array(content[5...]))
        // START and END are digits only, as the help says (`+0-5` was taken for `0-5`).
        for signed in ["+0-5", "0-+5", " 0-5"] {
            XCTAssertEqual(try run(["cat", "s", id, "--range", signed]).status, 64, signed)
        }
        XCTAssertTrue(try run(["doc", "get", "s", "notes", "n1"]).stdout.contains(id))
        let json = try run(["attach", "s", "file.bin", "--json"])
        XCTAssertTrue(json.stdout.contains("\"cipherdexAttachment\":\"\(id)\""), "identical content is stored once")
        XCTAssertEqual(try run(["attach", "s", "file.bin", "--doc", "notes/missing"]).status, 1)
        XCTAssertEqual(try run(["detach", "s", id]).status, 0)
        XCTAssertFalse(try run(["doc", "get", "s", "notes", "n1"]).stdout.contains(id))
        let missing = try run(["cat", "s", id])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.hasPrefix("cipherdex: error: attachmentNotFound: "), missing.stderr)
    }

    /// Bounds up to 2^64-1 are clamped (END) or refused (START) without an arithmetic trap.
    /// `!=`, `==` and `=>` are no operators: a usage error (exit 64) rather than the field `a!` or
    /// the string "=1"; a value that begins with = is matched when written as a JSON string.
    func testWhereRefusesOperatorsItDoesNotHave() throws {
        XCTAssertEqual(
            try run(["doc", "put", "s", "c", "d1", "-"], stdin: Array(#"{"a":"=1","a!":1}"#.utf8)).status, 0)
        for clause in ["a!=1", "a==1", "a=>1", "a<=<1"] {
            let result = try run(["doc", "find", "s", "c", "--where", clause])
            XCTAssertEqual(result.status, 64, "\(clause): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("no != or =="), result.stderr)
        }
        XCTAssertEqual(try run(["doc", "find", "s", "c", "--where", #"a="=1""#]).stdout, "d1\n")
    }

    /// A document id holding C1 controls or a line separator is shown escaped on a terminal (a
    /// pseudo-terminal from util-linux `script`), so U+009B cannot start a control sequence there,
    /// and exactly as it is through a pipe.
    func testIdsWithControlCharactersAreEscapedOnATerminalOnly() throws {
        let id = "a\u{9B}31mb\u{85}c\u{2028}d"
        XCTAssertEqual(try run(["doc", "put", "s", "c", id, "-"], stdin: Array("{}".utf8)).status, 0)
        XCTAssertEqual(try run(["doc", "find", "s", "c"]).stdout, id + "\n", "a pipe gets the exact id")
        let shown = try cli.runOnTerminal("doc find s c --key-file k")
        XCTAssertEqual(shown.status, 0, shown.output)
        XCTAssertEqual(shown.output, #"a\u{9B}31mb\u{85}c\u{2028}d"# + "\r\n")
    }

    func testCatRangeWithHugeBounds() throws {
        let content = [UInt8]((0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        _ = FileManager.default.createFile(atPath: cli.directory + "/small.bin", contents: Data(content))
        let attached = try run(["attach", "s", "small.bin"])
        XCTAssertEqual(attached.status, 0, attached.stderr)
        let id = attached.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let max = "18446744073709551615"
        let whole = try run(["cat", "s", id, "--range", "0-" + max])
        XCTAssertEqual(whole.status, 0, whole.stderr)
        XCTAssertEqual(whole.stdoutBytes, content)
        XCTAssertEqual(try run(["cat", "s", id, "--range", "4990-" + max]).stdoutBytes, Array(content[4990...]))
        for range in [max + "-", "18446744073709551614-" + max, max + "-" + max, "5000-", "5000-" + max] {
            let result = try run(["cat", "s", id, "--range", range])
            XCTAssertEqual(result.status, 1, "\(range): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("cipherdex: error: rangeOutOfBounds: "), result.stderr)
            XCTAssertEqual(result.stdoutBytes, [])
        }
        // The message names the first byte asked for and the last there is (not "range 5000..<5000").
        XCTAssertEqual(
            try run(["cat", "s", id, "--range", "5000-"]).stderr,
            "cipherdex: error: rangeOutOfBounds: attachment \(id): no byte at offset 5000 to start from "
                + "(its length is 5000 bytes, the last at offset 4999)\n")
        XCTAssertEqual(try run(["cat", "s", id, "--range", "18446744073709551616-"]).status, 64)
        // An END of any number of digits past the last byte means the last, as in HTTP (it said
        // "END must be … not before START"); an END that is not digits says so.
        XCTAssertEqual(
            try run(["cat", "s", id, "--range", "4990-99999999999999999999999"]).stdoutBytes, Array(content[4990...]))
        let letters = try run(["cat", "s", id, "--range", "1-1x"])
        XCTAssertEqual(letters.status, 64)
        XCTAssertTrue(letters.stderr.contains("--range END must be a byte offset (digits only)"), letters.stderr)
        let backwards = try run(["cat", "s", id, "--range", "2-1"])
        XCTAssertTrue(backwards.stderr.contains("--range END must not be before START"), backwards.stderr)
    }

    func testOneGibibyteAttachmentKeepsMemoryFlat() throws {
        try XCTSkipIf(CLIRunner.underSanitizer, "memory bounds are not measurable under a sanitizer")
        let big = cli.directory + "/big.bin"
        _ = FileManager.default.createFile(atPath: big, contents: nil)
        let handle = FileHandle(forWritingAtPath: big)!
        try handle.truncate(atOffset: 1 << 30)  // sparse: reads as zeros, costs no disk
        try handle.close()
        // GNU time forks (not vfork), so %M is the command's own peak RSS, not this process's.
        func measured(_ command: String, then pipe: String = "cat") throws -> (output: String, peakMiB: Double) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/sh")
            process.arguments = ["-c", "/usr/bin/time -f %M -o rss.txt " + command + " | " + pipe + " > out.txt"]
            process.currentDirectoryURL = URL(fileURLWithPath: cli.directory)
            try process.run()
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0, command)
            let output = String(
                decoding: FileManager.default.contents(atPath: cli.directory + "/out.txt")!, as: UTF8.self)
            let rss = String(decoding: FileManager.default.contents(atPath: cli.directory + "/rss.txt")!, as: UTF8.self)
            let kib =
                Double(rss.split(separator: "\n").last.map { String($0).trimmingCharacters(in: .whitespaces) } ?? "")
                ?? .infinity
            return (output.trimmingCharacters(in: .whitespacesAndNewlines), kib / 1024)
        }
        let binary = "'\(CLIRunner.productsDirectory.path)/cipherdex'"
        let attach = try measured("\(binary) attach s big.bin --key-file k")
        XCTAssertEqual(attach.output.count, 32)
        XCTAssertLessThan(attach.peakMiB, 64, "attach of 1 GiB: peak RSS")
        let cat = try measured("\(binary) cat s \(attach.output) --key-file k", then: "wc -c")
        XCTAssertEqual(cat.output, "\(1 << 30)")
        XCTAssertLessThan(cat.peakMiB, 64, "cat of 1 GiB: peak RSS")
    }

    func testAttachKilledMidWriteLeavesNoPartialAttachment() throws {
        XCTAssertEqual(
            try run(["doc", "put", "s", "notes", "n1", "-"], stdin: Array(#"{"title":"kept"}"#.utf8)).status, 0)
        let big = cli.directory + "/big.bin"
        _ = FileManager.default.createFile(atPath: big, contents: nil)
        let handle = FileHandle(forWritingAtPath: big)!
        try handle.truncate(atOffset: 512 << 20)
        try handle.close()
        let process = Process()
        process.executableURL = CLIRunner.productsDirectory.appendingPathComponent("cipherdex")
        process.arguments = ["attach", "s", "big.bin", "--key-file", "k"]
        process.currentDirectoryURL = URL(fileURLWithPath: cli.directory)
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        // Wait until the staged ciphertext is growing, then kill.
        let staging = cli.directory + "/s/staging"
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let files = (try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? []
            if let name = files.first,
                ((try? FileManager.default.attributesOfItem(atPath: staging + "/" + name)[.size]) as? NSNumber)?
                    .intValue ?? 0 > 1 << 20
            {
                break
            }
            usleep(2_000)
        }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertFalse(
            ((try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? []).isEmpty,
            "the kill must land mid-write")
        let verify = try run(["verify", "s"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertTrue(verify.stdout.contains("attachments checked:  0"))
        XCTAssertFalse(FileManager.default.fileExists(atPath: staging), "staging is cleaned at the next open")
        XCTAssertEqual(
            ((try? FileManager.default.contentsOfDirectory(atPath: cli.directory + "/s/attachments")) ?? []), [])
        XCTAssertEqual(try run(["doc", "get", "s", "notes", "n1"]).stdout, #"{"title":"kept"}"# + "\n")
    }
}

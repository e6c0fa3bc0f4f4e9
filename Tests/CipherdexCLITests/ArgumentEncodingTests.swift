import Foundation
import XCTest

/// Arguments that are not valid UTF-8 are refused (exit 64), never repaired into U+FFFD, so two
/// different byte strings can never name one document or collection.
final class ArgumentEncodingTests: XCTestCase {
    private var cli = CLIRunner.unassigned

    override func setUpWithError() throws {
        cli = CLIRunner.temporary()
        try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "k"]).status, 0)
    }

    /// Runs `cipherdex` through `/bin/sh`, whose `printf` turns `\ooo` escapes in `script`'s
    /// `$(printf …)` substitutions into raw bytes; `$CIPHERDEX` names the binary.
    private func shell(_ script: String, stdin: [UInt8]? = nil) throws -> CLIRunner.Result {
        let binary = CLIRunner.productsDirectory.appendingPathComponent("cipherdex").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", script]
        process.currentDirectoryURL = URL(fileURLWithPath: cli.directory)
        process.environment = ProcessInfo.processInfo.environment.merging(["CIPHERDEX": binary]) { $1 }
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        try process.run()
        if let stdin { input.fileHandleForWriting.write(Data(stdin)) }
        try input.fileHandleForWriting.close()
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return CLIRunner.Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self), stdoutBytes: Array(outData))
    }

    func testInvalidUTF8IDsDoNotAliasAndAreRefused() throws {
        let put = try shell(
            #"printf '{"v":1}' | "$CIPHERDEX" doc put s notes "$(printf 'a\377')" - --key-file k"#)
        XCTAssertEqual(put.status, 64, put.stderr)
        XCTAssertEqual(put.stderr, "cipherdex: error: usage: argument 5 is not valid UTF-8\n")
        let other = try shell(
            #"printf '{"v":2}' | "$CIPHERDEX" doc put s notes "$(printf 'a\376')" - --key-file k"#)
        XCTAssertEqual(other.status, 64, other.stderr)
        // Nothing was stored under the repaired id either.
        XCTAssertEqual(try cli.run(["doc", "get", "s", "notes", "a\u{FFFD}", "--key-file", "k"]).status, 1)
        let find = try cli.run(["doc", "find", "s", "notes", "--key-file", "k"])
        XCTAssertTrue(find.stderr.contains("unknownCollection"), find.stderr)
    }

    func testEveryKindOfArgumentIsChecked() throws {
        let cases: [(script: String, stderr: String)] = [
            (#""$CIPHERDEX" doc get s "$(printf 'n\300\200')" x --key-file k"#, "argument 4 is not valid UTF-8"),
            (
                #""$CIPHERDEX" doc find s notes --where "$(printf 'a=\355\240\200')" --key-file k"#,
                "argument 6 (after --where) is not valid UTF-8"
            ),
            (
                #""$CIPHERDEX" attach s f --doc "$(printf 'n/\377')" --key-file k"#,
                "argument 5 (after --doc) is not valid UTF-8"
            ),
            (#""$CIPHERDEX" info "$(printf 's\377')""#, "argument 2 is not valid UTF-8"),
            (#""$CIPHERDEX" "$(printf 'doc\377')""#, "argument 1 is not valid UTF-8"),
        ]
        for (script, message) in cases {
            let result = try shell(script)
            XCTAssertEqual(result.status, 64, script + " " + result.stderr)
            XCTAssertEqual(result.stderr, "cipherdex: error: usage: \(message)\n", script)
        }
    }

    func testValidMultibyteArgumentsStillWork() throws {
        let put = try shell(
            #"printf '{"v":1}' | "$CIPHERDEX" doc put s notes "$(printf 'caf\303\251')" - --key-file k"#)
        XCTAssertEqual(put.status, 0, put.stderr)
        XCTAssertEqual(try cli.run(["doc", "get", "s", "notes", "café", "--key-file", "k"]).stdout, #"{"v":1}"# + "\n")
    }
}

import Foundation
import XCTest

/// Under a file-size limit (`ulimit -f`) the CLI ignores SIGXFSZ: a write past the limit is
/// `fileTooLarge` (exit 18) with the command's own clean-up, never a silent death by the signal
/// (exit 153) that left an export's partial plaintext behind.
final class FileSizeLimitCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned
    private var store = ""
    private let key = ["--key-env", "CIPHERDEX_TEST_KEY"]
    private let environment = ["CIPHERDEX_TEST_KEY": String(repeating: "5a", count: 32)]
    /// Runs the command with a file-size limit of 1 MiB (`/bin/sh`'s `ulimit -f` counts 512-byte
    /// blocks in dash, 1 KiB ones in bash: 1 or 2 MiB, under every write these tests make).
    private let limited = ["/bin/sh", "-c", "ulimit -f 2048 && exec \"$0\" \"$@\""]

    override func setUp() {
        cli = CLIRunner.temporary()
        store = cli.directory + "/s"
    }

    private func run(_ arguments: [String], limited: Bool = false, stdin: [UInt8]? = nil) throws -> CLIRunner.Result {
        try cli.run(arguments + key, environment: environment, stdin: stdin, launcher: limited ? self.limited : [])
    }

    /// A store with a 4 MiB attachment; returns its id.
    private func makeStore() throws -> String {
        XCTAssertEqual(try run(["create", store]).status, 0)
        let source = cli.directory + "/big.bin"
        let content = Data((0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
        XCTAssertTrue(FileManager.default.createFile(atPath: source, contents: content))
        let attached = try run(["attach", store, source])
        XCTAssertEqual(attached.status, 0, attached.stderr)
        return attached.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private func assertFileTooLarge(
        _ result: CLIRunner.Result, naming path: String, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertFalse(result.signaled, "killed by signal \(result.status)", file: file, line: line)
        XCTAssertEqual(result.status, 18, result.stderr, file: file, line: line)
        XCTAssertTrue(
            result.stderr.hasPrefix("cipherdex: error: fileTooLarge: cannot write \(path)"), result.stderr,
            file: file, line: line)
    }

    func testAnExportPastTheLimitIsFileTooLargeAndLeavesNoPlaintext() throws {
        let id = try makeStore()
        let destination = cli.directory + "/export"
        let result = try run(["export", store, destination, "--yes"], limited: true)
        assertFileTooLarge(result, naming: destination + "/attachments/" + id)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination), "the failed export's plaintext")
        // Without the limit the same export succeeds.
        XCTAssertEqual(try run(["export", store, destination, "--yes"]).status, 0)
    }

    func testADocumentPutPastTheLimitIsFileTooLargeAndTheStoreIsIntact() throws {
        _ = try makeStore()
        let document = Array(("{\"text\": \"" + String(repeating: "y", count: 3 << 20) + "\"}").utf8)
        let result = try run(["doc", "put", store, "notes", "big", "-"], limited: true, stdin: document)
        assertFileTooLarge(result, naming: store + "/store.db")
        XCTAssertEqual(try run(["doc", "get", store, "notes", "big"]).status, 1, "the refused write is not there")
        let verified = try run(["verify", store])
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr)
        XCTAssertEqual(try run(["doc", "put", store, "notes", "big", "-"], stdin: document).status, 0)
    }

    /// `keygen --out` past the limit (`ulimit -f 0`) is `fileTooLarge` naming the file, and
    /// leaves no empty key file (it left one, exit 1 "io", and a rerun said "File exists").
    func testKeygenPastTheLimitLeavesNoKeyFile() throws {
        let out = cli.directory + "/new.key"
        let result = try cli.run(
            ["keygen", "--out", out], launcher: ["/bin/sh", "-c", "ulimit -f 0 && exec \"$0\" \"$@\""])
        assertFileTooLarge(result, naming: out)
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        XCTAssertEqual(try cli.run(["keygen", "--out", out]).status, 0)
        XCTAssertEqual(try cli.run(["keygen", "--out", out]).status, 1, "an existing key file is refused")
        let missing = try cli.run(["keygen", "--out", cli.directory + "/no/such/k"])
        XCTAssertTrue(missing.stderr.hasPrefix("cipherdex: error: parentFolderMissing: "), missing.stderr)
        XCTAssertEqual(try cli.run(["keygen", "--out", ""]).status, 64)
        XCTAssertEqual(try cli.run(["doc", "put", store, "c", "d", ""]).status, 64)
    }
}

import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `attach` of a FIFO, directory or device (with and without `--doc`), and `cat`/`verify` of an
/// attachment whose file was replaced by one: a typed error line naming the path or id within a
/// second (each run is under `timeout 5`, so a regression that blocks fails instead of hanging).
final class AttachmentFaultCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned
    private var store = ""
    private let key = ["--key-env", "CIPHERDEX_TEST_KEY"]
    private let environment = ["CIPHERDEX_TEST_KEY": String(repeating: "3c", count: 32)]

    override func setUpWithError() throws {
        cli = CLIRunner.temporary()
        store = cli.directory + "/s"
        XCTAssertEqual(try run(["create", store]).status, 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: cli.directory + "/doc.json", contents: Data("{}".utf8)))
        XCTAssertEqual(try run(["doc", "put", store, "notes", "one", cli.directory + "/doc.json"]).status, 0)
    }

    private func run(_ arguments: [String]) throws -> CLIRunner.Result {
        try cli.run(arguments + key, environment: environment, launcher: ["/usr/bin/timeout", "5"])
    }

    private func assertFailsAtOnce(
        _ arguments: [String], code: String, status: Int32 = 1, naming subject: String, file: StaticString = #filePath,
        line: UInt = #line
    ) throws {
        let started = Date()
        let result = try run(arguments)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.5, "\(arguments) took too long", file: file, line: line)
        XCTAssertEqual(result.status, status, "\(arguments): \(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stderr.hasPrefix("cipherdex: error: \(code): "), result.stderr, file: file, line: line)
        XCTAssertTrue(result.stderr.contains(subject), "\(result.stderr) names \(subject)", file: file, line: line)
    }

    func testAttachingAFIFODirectoryOrDeviceIsRefusedAtOnce() throws {
        let fifo = cli.directory + "/fifo"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        for source in [fifo, cli.directory, "/dev/zero"] {
            try assertFailsAtOnce(["attach", store, source], code: "sourceNotRegularFile", naming: source)
            try assertFailsAtOnce(
                ["attach", store, source, "--doc", "notes/one"], code: "sourceNotRegularFile", naming: source)
        }
        let document = try run(["doc", "get", store, "notes", "one"])
        XCTAssertEqual(document.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "{}", "nothing was attached")
    }

    func testCatAndVerifyOfAnAttachmentReplacedByAFIFOAreTypedAtOnce() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: cli.directory + "/a.txt", contents: Data("kept".utf8)))
        let id = try run(["attach", store, cli.directory + "/a.txt"]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let file = store + "/attachments/" + id
        let saved = try XCTUnwrap(FileManager.default.contents(atPath: file))
        try FileManager.default.removeItem(atPath: file)
        XCTAssertEqual(mkfifo(file, 0o600), 0)
        try assertFailsAtOnce(["cat", store, id], code: "notRegularFile", naming: file)
        try assertFailsAtOnce(["verify", store], code: "storeCorrupted", status: 15, naming: "problem")
        let report = try run(["verify", store])
        XCTAssertTrue(report.stdout.contains(id), report.stdout)
        try FileManager.default.removeItem(atPath: file)
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: saved))
        XCTAssertEqual(try run(["cat", store, id]).stdout, "kept")
        XCTAssertEqual(try run(["verify", store]).status, 0)
    }
}

import CipherdexPDFWriter
import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `add` and `index` on awkward input: oversized files, and folders with entries that cannot be
/// indexed.
final class SearchInputCommandTests: XCTestCase {
    private var cli = CLIRunner.temporary()

    override func setUpWithError() throws {
        cli = CLIRunner.temporary()
        try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "k"]).status, 0)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: cli.directory)
    }

    private func run(_ arguments: [String], launcher: [String] = []) throws -> CLIRunner.Result {
        try cli.run(arguments + ["--key-file", "k"], launcher: launcher)
    }

    private func path(_ name: String) -> String { cli.directory + "/" + name }

    /// "Maximum resident set size (kbytes): N" from GNU time's `-v` report, in bytes.
    private func maximumResident(_ stderr: String) -> Int? {
        for line in stderr.split(separator: "\n") where line.contains("Maximum resident set size (kbytes):") {
            return line.split(separator: ":").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }.map { $0 * 1024 }
        }
        return nil
    }

    func testOversizedFileFailsQuicklyWithBoundedMemory() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/time") else { throw XCTSkip("no GNU time") }
        let size: Int64 = 3 << 30
        let fd = open(path("big.pdf"), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertEqual(ftruncate(fd, off_t(size)), 0, "a sparse file: no disk space used")
        close(fd)
        // The address-space cap only keeps a regression from taking the machine's memory.
        let start = Date()
        let result = try run(["add", "s", "big.pdf"], launcher: ["/usr/bin/time", "-v", "/usr/bin/prlimit", "--as=\(2 << 30)", "--"])
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
        XCTAssertEqual(result.status, 1, result.stderr)
        XCTAssertEqual(
            result.stdout,
            "big.pdf: failed: the document is \(size) bytes, larger than the limit of \(256 << 20) bytes (Configuration.maximumDocumentSize)\n")
        XCTAssertTrue(result.stderr.contains("cipherdex: error: indexingFailed: 1 of 1 file(s) could not be indexed"), result.stderr)
        let resident = try XCTUnwrap(maximumResident(result.stderr), result.stderr)
        XCTAssertLessThan(resident, 100 << 20, "peak resident set \(resident >> 20) MiB")
    }
}

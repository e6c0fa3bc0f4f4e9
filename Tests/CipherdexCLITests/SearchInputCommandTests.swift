import CipherdexPDFWriter
import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `add` and `index` on awkward input: oversized files, and folders with entries that cannot be
/// indexed.
final class SearchInputCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned

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
        try XCTSkipIf(CLIRunner.underSanitizer, "memory bounds are not measurable under a sanitizer")
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

    func testIndexReportsAndCountsSkippedEntriesAndExitsOne() throws {
        // Root reads any folder whatever its mode: run every command as nobody.
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else {
            throw XCTSkip("needs root and setpriv to run as nobody")
        }
        let nobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--"]
        XCTAssertEqual(chmod(cli.directory, 0o777), 0)
        try FileManager.default.removeItem(atPath: path("s"))
        try FileManager.default.removeItem(atPath: path("k"))
        XCTAssertEqual(try cli.run(["keygen", "--out", "k"], launcher: nobody).status, 0)
        let created = try run(["create", "s"], launcher: nobody)
        XCTAssertEqual(created.status, 0, created.stderr)
        for directory in ["f", "f/sub", "f/locked"] {
            try FileManager.default.createDirectory(atPath: path(directory), withIntermediateDirectories: true)
        }
        for name in ["f/a.txt", "f/sub/b.txt", "f/locked/c.txt"] {
            XCTAssertTrue(FileManager.default.createFile(atPath: path(name), contents: Data("walrus \(name)".utf8)))
        }
        let badName = Array(path("f/bad").utf8) + [0xFF] + Array(".txt".utf8) + [0]
        let fd = badName.withUnsafeBufferPointer { $0.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT, 0o644) } }
        XCTAssertGreaterThanOrEqual(fd, 0)
        close(fd)

        let first = try run(["index", "s", "f"], launcher: nobody)
        XCTAssertEqual(first.status, 1, first.stderr)
        XCTAssertEqual(first.stdout, """
            bad\\xFF.txt: skipped: the file's name is not valid UTF-8
            added 3, changed 0, removed 0, unchanged 0, failed 0, locked 0, skipped 1

            """)
        XCTAssertEqual(first.stderr, "cipherdex: error: syncIncomplete: 1 entry of the folder could not be indexed (listed above)\n")

        XCTAssertEqual(chmod(path("f/locked"), 0), 0)
        defer { chmod(path("f/locked"), 0o755) }
        let second = try run(["index", "s", "f"], launcher: nobody)
        XCTAssertEqual(second.status, 1, second.stderr)
        XCTAssertEqual(second.stdout, """
            bad\\xFF.txt: skipped: the file's name is not valid UTF-8
            locked: skipped: cannot read the folder: Permission denied
            added 0, changed 0, removed 0, unchanged 2, failed 0, locked 0, skipped 2

            """)
        XCTAssertTrue(second.stderr.contains("syncIncomplete: 2 entries"), second.stderr)
        let status = try run(["status", "s", "locked/c.txt"], launcher: nobody)
        XCTAssertEqual(status.status, 0, "a document in a folder that could not be read is kept: \(status.stderr)")

        XCTAssertEqual(chmod(path("f"), 0), 0)
        defer { chmod(path("f"), 0o755) }
        let unreadable = try run(["index", "s", "f"], launcher: nobody)
        XCTAssertEqual(unreadable.status, 1)
        XCTAssertTrue(unreadable.stderr.hasPrefix("cipherdex: error: unreadable: cannot read "), unreadable.stderr)
        XCTAssertEqual(unreadable.stdout, "", "nothing is taken for deleted")
    }
}

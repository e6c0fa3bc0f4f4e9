import CipherdexTestSupport
import Foundation
import XCTest

/// `add` and `index` with `--passwords` and `--password-file`: protected PDFs are unlocked, the
/// passwords never stored nor printed.
final class SearchPasswordCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned
    /// A corpus PDF encrypted with AES-128 whose user password is `foo`.
    private var protectedPDF = ""

    override func setUpWithError() throws {
        // Found where every corpus test finds it (`PDFCorpus`: a clone elsewhere, as CI's, skipped
        // these tests).
        guard let corpus = PDFCorpus.directory else { throw XCTSkip("PDF corpus not found") }
        protectedPDF = corpus + "/pdfminer__encryption__aes-128.pdf"
        guard FileManager.default.fileExists(atPath: protectedPDF) else { throw XCTSkip("PDF corpus not found") }
        cli = CLIRunner.temporary()
        try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "k"]).status, 0)
        try FileManager.default.createDirectory(atPath: cli.directory + "/docs/sub", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: protectedPDF, toPath: cli.directory + "/docs/sub/secret.pdf")
    }

    private func run(_ arguments: [String]) throws -> CLIRunner.Result {
        try cli.run(arguments + ["--key-file", "k"])
    }

    private func write(_ name: String, _ text: String) {
        _ = FileManager.default.createFile(atPath: cli.directory + "/" + name, contents: Data(text.utf8))
    }

    /// No file of the store, and nothing printed, holds the password. (Only a long password is
    /// looked for in the store's files: a 3-byte one turns up in random ciphertext by chance.)
    private func assertPasswordNowhere(
        _ password: String, _ outputs: [CLIRunner.Result], file: StaticString = #filePath, line: UInt = #line
    ) {
        for output in outputs {
            XCTAssertFalse(output.stdout.contains(password) || output.stderr.contains(password), file: file, line: line)
        }
        guard password.utf8.count >= 16 else { return }
        let enumerator = FileManager.default.enumerator(atPath: cli.directory + "/s")!
        while let relative = enumerator.nextObject() as? String {
            let bytes = FileManager.default.contents(atPath: cli.directory + "/s/" + relative) ?? Data()
            XCTAssertNil(bytes.range(of: Data(password.utf8)), "\(relative) holds the password", file: file, line: line)
        }
    }

    func testPasswordTableUnlocksByUIDFileNameOrStar() throws {
        let locked = try run(["add", "s", protectedPDF])
        XCTAssertEqual(locked.status, 0, locked.stderr)
        XCTAssertTrue(locked.stdout.contains("locked"), locked.stdout)
        let tried = "a-wrong-password-0f3c9a7e51d2"
        write("wrong.tsv", "pdfminer__encryption__aes-128.pdf\t\(tried)\n")
        let wrong = try run(["add", "s", protectedPDF, "--passwords", "wrong.tsv"])
        XCTAssertTrue(
            wrong.stdout.contains(": locked (the password given does not open it; not indexed)"), wrong.stdout)
        XCTAssertTrue(locked.stdout.contains(": locked (password-protected, not indexed)"), locked.stdout)
        // index lists such a file too (a locked file without a password is only counted).
        write("wrongstar.tsv", "*\t\(tried)\n")
        let wrongIndex = try run(["index", "s", "docs", "--passwords", "wrongstar.tsv"])
        XCTAssertTrue(
            wrongIndex.stdout.contains("sub/secret.pdf: locked (the password given does not open it; not indexed)"),
            wrongIndex.stdout)
        XCTAssertTrue(wrongIndex.stdout.contains("locked 1"), wrongIndex.stdout)
        _ = try run(["remove", "s", "sub/secret.pdf"])
        assertPasswordNowhere(tried, [wrong, wrongIndex])
        write("table.tsv", "other.pdf\tbar\r\npdfminer__encryption__aes-128.pdf\tfoo\n\n")
        let added = try run(["add", "s", protectedPDF, "--passwords", "table.tsv"])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stdout.contains("finished"), added.stdout)
        // In a folder the UID is the relative path; its file name or `*` matches too.
        write("star.tsv", "*\tfoo\n")
        write("path.tsv", "sub/secret.pdf\tfoo\n")
        for table in ["path.tsv", "star.tsv"] {
            _ = try run(["remove", "s", "sub/secret.pdf"])  // absent the first time
            let indexed = try run(["index", "s", "docs", "--passwords", table])
            XCTAssertEqual(indexed.status, 0, indexed.stdout + indexed.stderr)
            XCTAssertTrue(indexed.stdout.contains("locked 0"), indexed.stdout)
        }
        let search = try run(["search", "s", "secret"])
        XCTAssertTrue(search.stdout.contains("sub/secret.pdf"), search.stdout)
        assertPasswordNowhere("foo", [added, search])
    }

    func testOnePasswordForAll() throws {
        write("password", "foo\n")
        let indexed = try run(["index", "s", "docs", "--password-file", "password"])
        XCTAssertEqual(indexed.status, 0, indexed.stdout + indexed.stderr)
        XCTAssertTrue(indexed.stdout.contains("added 1") && indexed.stdout.contains("locked 0"), indexed.stdout)
        assertPasswordNowhere("foo", [indexed])
    }

    func testMalformedPasswordOptionsAreUsageErrorsThatPrintNoPassword() throws {
        write("bad.tsv", "good.pdf\tx\nno-tab-here-s3cret\n")
        let bad = try run(["add", "s", protectedPDF, "--passwords", "bad.tsv"])
        XCTAssertEqual(bad.status, 64)
        XCTAssertTrue(bad.stderr.contains("line 2"), bad.stderr)
        XCTAssertFalse(bad.stderr.contains("s3cret"))
        write("password", "foo")
        XCTAssertEqual(
            try run(["add", "s", protectedPDF, "--passwords", "bad.tsv", "--password-file", "password"]).status, 64)
        XCTAssertEqual(mkfifo(cli.directory + "/fifo", 0o600), 0)
        let started = Date()
        let fifo = try run(["add", "s", protectedPDF, "--password-file", "fifo"])
        XCTAssertEqual(fifo.status, 1, fifo.stderr)
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
    }
}

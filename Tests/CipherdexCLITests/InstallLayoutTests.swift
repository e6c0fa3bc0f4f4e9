import CipherdexPDFWriter
import CipherdexTestSupport
import Foundation
import XCTest

/// The CLI as `make install` lays it out (bin/cipherdex, its own PDF helper), run from anywhere
/// and after it was moved, a standalone helper named by `CIPHERDEX_EXTRACT_HELPER`, and no
/// helper at all, which says exactly what to do.
final class InstallLayoutTests: XCTestCase {
    private func copyExecutable(_ name: String, to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: CLIRunner.productsDirectory.appendingPathComponent(name).path, toPath: directory + "/" + name)
    }

    /// Runs the copied `executable arguments…` in `directory`, with `CIPHERDEX_EXTRACT_HELPER`
    /// set to `helper` (empty: unset, the default lookup).
    private func run(_ executable: String, _ arguments: [String], in directory: String, helper: String = "") throws
        -> CLIRunner.Result
    {
        let cli = CLIRunner(directory: directory)
        return try cli.run(arguments, environment: ["CIPHERDEX_EXTRACT_HELPER": helper], executable: executable)
    }

    /// `make install`'s layout is `bin/cipherdex` alone: the CLI is its own PDF helper (re-run in
    /// helper mode), from any directory.
    func testInstalledLayoutIsItsOwnHelperFromAnyDirectory() throws {
        // A sanitizer build cannot be its own helper (its shadow memory does not fit the cap).
        try XCTSkipIf(CLIRunner.underSanitizer, "a sanitizer build uses the standalone helper")
        let prefix = TemporaryDirectory.make(prefix: "cipherdex-prefix-")
        try copyExecutable("cipherdex", to: prefix + "/bin")
        let work = CLIRunner.temporary().directory
        _ = FileManager.default.createFile(
            atPath: work + "/a.pdf", contents: Data(makePDF(pages: ["installed and found"], title: "a")))
        let cipherdex = prefix + "/bin/cipherdex"
        let version = try run(cipherdex, ["--version"], in: work)
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(version.stdout.contains("extraction helper: built in"), version.stdout)
        XCTAssertEqual(try run(cipherdex, ["create", "s", "--plaintext"], in: work).status, 0)
        let added = try run(cipherdex, ["add", "s", "a.pdf"], in: work)
        XCTAssertEqual(added.status, 0, added.stdout + added.stderr)
        XCTAssertTrue(added.stdout.contains("a.pdf: finished"), added.stdout)
        XCTAssertTrue(try run(cipherdex, ["search", "s", "installed"], in: work).stdout.contains("a.pdf"))
        // Moved after it started nothing: a copy of the copy, elsewhere, indexes too.
        let moved = TemporaryDirectory.make(prefix: "cipherdex-moved-")
        try FileManager.default.createDirectory(atPath: moved, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: cipherdex, toPath: moved + "/cipherdex")
        _ = FileManager.default.createFile(
            atPath: work + "/b.pdf", contents: Data(makePDF(pages: ["moved binary"], title: "b")))
        let again = try run(moved + "/cipherdex", ["add", "s", "b.pdf"], in: work)
        XCTAssertEqual(again.status, 0, again.stdout + again.stderr)
        XCTAssertTrue(try run(moved + "/cipherdex", ["search", "s", "moved"], in: work).stdout.contains("b.pdf"))
    }

    /// A standalone helper named by `CIPHERDEX_EXTRACT_HELPER` is used; one that is not there
    /// means no helper: `add` and `index` of PDFs fail at once, saying what to do, before
    /// anything is stored.
    func testAMissingHelperSaysWhatToDoBeforeStoringAnything() throws {
        let alone = TemporaryDirectory.make(prefix: "cipherdex-alone-")
        try copyExecutable("cipherdex", to: alone)
        try copyExecutable("cipherdex-extract", to: alone + "/libexec")
        let work = CLIRunner.temporary().directory
        _ = FileManager.default.createFile(
            atPath: work + "/a.pdf", contents: Data(makePDF(pages: ["no helper here"], title: "a")))
        let cipherdex = alone + "/cipherdex"
        let standalone = alone + "/libexec/cipherdex-extract"
        XCTAssertTrue(
            try run(cipherdex, ["--version"], in: work, helper: standalone).stdout.contains(
                "extraction helper: " + standalone))
        let missing = "/nonexistent/cipherdex-extract"
        XCTAssertTrue(
            try run(cipherdex, ["--version"], in: work, helper: missing).stdout.contains("extraction helper: not found")
        )
        XCTAssertEqual(try run(cipherdex, ["create", "s", "--plaintext"], in: work).status, 0)
        for arguments in [["add", "s", "a.pdf"], ["index", "s", "."]] {
            let result = try run(cipherdex, arguments, in: work, helper: missing)
            XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
            XCTAssertTrue(result.stderr.contains("extractionHelperMissing"), result.stderr)
            XCTAssertTrue(result.stderr.contains(missing + ", which is not an executable file"), result.stderr)
            XCTAssertTrue(result.stderr.contains("swift build --product cipherdex-extract"), result.stderr)
        }
        let status = try run(cipherdex, ["status", "s", "--json"], in: work)
        XCTAssertEqual(status.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "[]", "nothing was queued")
        // Text files need no helper.
        _ = FileManager.default.createFile(atPath: work + "/b.txt", contents: Data("plain words".utf8))
        XCTAssertEqual(try run(cipherdex, ["add", "s", "b.txt"], in: work, helper: missing).status, 0)
        // The standalone helper, named, indexes the PDF.
        let added = try run(cipherdex, ["add", "s", "a.pdf"], in: work, helper: standalone)
        XCTAssertEqual(added.status, 0, added.stdout + added.stderr)
        XCTAssertTrue(try run(cipherdex, ["search", "s", "helper"], in: work).stdout.contains("a.pdf"))
    }
}

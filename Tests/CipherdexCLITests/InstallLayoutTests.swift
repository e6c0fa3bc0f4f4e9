import CipherdexPDFWriter
import Foundation
import XCTest

/// The CLI as `make install` lays it out (bin/ and libexec/cipherdex/), run from anywhere, and a
/// copied CLI without its helper, which says exactly what to build.
final class InstallLayoutTests: XCTestCase {
    private func copyExecutable(_ name: String, to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: CLIRunner.productsDirectory.appendingPathComponent(name).path, toPath: directory + "/" + name)
    }

    /// Runs the copied `executable arguments…` in `directory`, without `CIPHERDEX_EXTRACT_HELPER`.
    private func run(_ executable: String, _ arguments: [String], in directory: String) throws -> CLIRunner.Result {
        let cli = CLIRunner(directory: directory)
        return try cli.run(arguments, environment: ["CIPHERDEX_EXTRACT_HELPER": ""], executable: executable)
    }

    func testInstalledLayoutFindsItsHelperFromAnyDirectory() throws {
        let prefix = NSTemporaryDirectory() + "cipherdex-prefix-" + UUID().uuidString
        try copyExecutable("cipherdex", to: prefix + "/bin")
        try copyExecutable("cipherdex-extract", to: prefix + "/libexec/cipherdex")
        let work = CLIRunner.temporary().directory
        _ = FileManager.default.createFile(
            atPath: work + "/a.pdf", contents: Data(makePDF(pages: ["installed and found"], title: "a")))
        let cipherdex = prefix + "/bin/cipherdex"
        let version = try run(cipherdex, ["--version"], in: work)
        XCTAssertEqual(version.status, 0)
        XCTAssertTrue(
            version.stdout.contains("extraction helper: " + prefix + "/bin/../libexec/cipherdex/cipherdex-extract"),
            version.stdout)
        XCTAssertEqual(try run(cipherdex, ["create", "s", "--plaintext"], in: work).status, 0)
        let added = try run(cipherdex, ["add", "s", "a.pdf"], in: work)
        XCTAssertEqual(added.status, 0, added.stdout + added.stderr)
        XCTAssertTrue(
            added.stdout.contains("a.pdf: finished (1 pages)") || added.stdout.contains("a.pdf: finished"), added.stdout
        )
        XCTAssertTrue(try run(cipherdex, ["search", "s", "installed"], in: work).stdout.contains("a.pdf"))
    }

    func testACLIWithoutItsHelperSaysWhatToBuildBeforeStoringAnything() throws {
        let alone = NSTemporaryDirectory() + "cipherdex-alone-" + UUID().uuidString
        try copyExecutable("cipherdex", to: alone)
        let work = CLIRunner.temporary().directory
        _ = FileManager.default.createFile(
            atPath: work + "/a.pdf", contents: Data(makePDF(pages: ["no helper here"], title: "a")))
        let cipherdex = alone + "/cipherdex"
        XCTAssertTrue(try run(cipherdex, ["--version"], in: work).stdout.contains("extraction helper: not found"))
        XCTAssertEqual(try run(cipherdex, ["create", "s", "--plaintext"], in: work).status, 0)
        for arguments in [["add", "s", "a.pdf"], ["index", "s", "."]] {
            let result = try run(cipherdex, arguments, in: work)
            XCTAssertEqual(result.status, 1, result.stdout + result.stderr)
            XCTAssertTrue(result.stderr.contains("extractionHelperMissing"), result.stderr)
            XCTAssertTrue(result.stderr.contains("swift build --product cipherdex-extract"), result.stderr)
        }
        let status = try run(cipherdex, ["status", "s", "--json"], in: work)
        XCTAssertEqual(status.stdout.trimmingCharacters(in: .whitespacesAndNewlines), "[]", "nothing was queued")
        // Text files need no helper.
        _ = FileManager.default.createFile(atPath: work + "/b.txt", contents: Data("plain words".utf8))
        XCTAssertEqual(try run(cipherdex, ["add", "s", "b.txt"], in: work).status, 0)
    }
}

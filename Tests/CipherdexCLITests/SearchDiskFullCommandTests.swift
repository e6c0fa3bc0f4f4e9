import CipherdexPDFWriter
import Foundation
import XCTest

/// `add` and `index` on a store whose disk is full: exit 1 with `indexWriteFailed`, never
/// "finished" or "unknown" with exit 0; after freeing space the same commands succeed.
final class SearchDiskFullCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned
    private var disk: SmallFileSystem?
    private var store = ""

    override func setUpWithError() throws {
        cli = CLIRunner.temporary()
        let disk = try SmallFileSystem(bytes: 8 << 20)
        self.disk = disk
        store = disk.path + "/s"
        try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(try cli.run(["create", store, "--key-file", "k"]).status, 0)
    }

    override func tearDown() {
        disk?.unmount()
    }

    private func run(_ arguments: [String]) throws -> CLIRunner.Result {
        try cli.run(arguments + ["--key-file", "k"])
    }

    private func writePDF(_ name: String, _ pages: [String]) throws {
        let path = cli.directory + "/" + name
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(makePDF(pages: pages, title: name))))
    }

    func testAddOnAFullDiskExitsOneAndSucceedsOnceThereIsRoom() throws {
        let disk = try XCTUnwrap(disk)
        try writePDF(
            "gannets.pdf", (0..<10).map { "page \($0) about gannets " + String(repeating: "booby \($0) ", count: 80) })
        try disk.fill(leaving: 96 << 10)
        let full = try run(["add", store, "gannets.pdf"])
        XCTAssertEqual(full.status, 1, full.stdout + full.stderr)
        XCTAssertTrue(full.stdout.hasPrefix("gannets.pdf: failed: could not write the index: disk full"), full.stdout)
        XCTAssertTrue(full.stderr.hasPrefix("cipherdex: error: indexWriteFailed: "), full.stderr)
        XCTAssertTrue(full.stderr.contains("disk full"), full.stderr)

        disk.free()
        let added = try run(["add", store, "gannets.pdf"])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual(added.stdout, "gannets.pdf: finished (10 pages)\n")
        let found = try run(["search", store, "gannets"])
        XCTAssertEqual(found.status, 0, found.stderr)
        XCTAssertTrue(found.stdout.hasPrefix("gannets.pdf  page "), found.stdout)
    }

    func testIndexOnAFullDiskExitsOneAndTheNextRunIndexesEverything() throws {
        let disk = try XCTUnwrap(disk)
        for index in 0..<30 {
            try writePDF(
                "folder/d\(index).pdf",
                ["document \(index) about shearwaters " + String(repeating: "petrel \(index) ", count: 80)])
        }
        try disk.fill(leaving: 96 << 10)
        let full = try run(["index", store, cli.directory + "/folder"])
        XCTAssertEqual(full.status, 1, full.stdout + full.stderr)
        XCTAssertTrue(full.stderr.hasPrefix("cipherdex: error: indexWriteFailed: "), full.stderr)
        XCTAssertTrue(full.stdout.contains(": failed: could not write the index: disk full"), full.stdout)
        XCTAssertFalse(full.stdout.contains("failed 0"), full.stdout)

        disk.free()
        let again = try run(["index", store, cli.directory + "/folder"])
        XCTAssertEqual(again.status, 0, again.stdout + again.stderr)
        XCTAssertTrue(again.stdout.hasSuffix(", failed 0, locked 0\n"), again.stdout)
        let json = try run(["search", store, "shearwaters", "--json"])
        XCTAssertEqual(json.status, 0, json.stderr)
        let documents = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])[
            "documents"]
        XCTAssertEqual((documents as? [String: Any])?.count, 30)
    }

    /// `index` and `add` whose index could not be written and whose report cannot be written
    /// either (a log on the same full disk) never say "the change is in effect; do not run the
    /// command again" (`outputFailed`): running them again once there is room is the advice.
    func testAnUnwrittenIndexWithAnUnwritableReportIsNotOutputFailed() throws {
        let disk = try XCTUnwrap(disk)
        for index in 0..<10 {
            try writePDF(
                "folder/d\(index).pdf",
                ["document \(index) about fulmars " + String(repeating: "prion \(index) ", count: 80)])
        }
        try disk.fill(leaving: 96 << 10)
        let toFullDisk = ["/bin/sh", "-c", "exec \"$0\" \"$@\" >/dev/full"]
        for command in [
            ["index", store, cli.directory + "/folder"], ["add", store, cli.directory + "/folder/d0.pdf"],
        ] {
            let result = try cli.run(command + ["--key-file", "k"], launcher: toFullDisk)
            XCTAssertFalse(result.signaled, "\(command[0])")
            XCTAssertNotEqual(result.status, 21, "\(command[0]): \(result.stderr)")
            XCTAssertFalse(result.stderr.contains("do not run the command again"), result.stderr)
            XCTAssertTrue([1, 18].contains(result.status), "\(command[0]): \(result.status) \(result.stderr)")
        }
    }
}

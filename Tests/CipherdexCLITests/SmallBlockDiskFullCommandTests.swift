import Foundation
import XCTest

/// A store on a nearly full ext4 of 1 KiB blocks. SQLite extends the wal-index (`-shm`, mapped
/// with mmap) by writing one byte per 4 KiB page, which leaves three blocks of each page holes;
/// on a full disk a write through the mapping to a hole raised SIGBUS, and every command on the
/// store (`info` and `search` too) crashed until space was freed. Now each command exits 0 or
/// with `diskFull` (18), and what it reported done is there once space is freed.
final class SmallBlockDiskFullCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned
    private var disk: SmallFileSystem?

    override func setUpWithError() throws {
        cli = CLIRunner.temporary()
        disk = try SmallFileSystem(ext4Bytes: 6 << 20, blockSize: 1024)
        try cli.run(["keygen", "--out", "k"])
    }

    override func tearDown() {
        disk?.unmount()
    }

    private func run(_ arguments: [String]) throws -> CLIRunner.Result {
        try cli.run(arguments + ["--key-file", "k"])
    }

    func testCommandsOnANearlyFullDiskOfSmallBlocksExitDiskFullNeverCrash() throws {
        let disk = try XCTUnwrap(disk)
        let store = disk.path + "/s"
        XCTAssertEqual(try run(["create", store]).status, 0)
        let document = cli.directory + "/d.json"
        try Data(#"{"note": "a small document"}"#.utf8).write(to: URL(fileURLWithPath: document))
        XCTAssertEqual(try run(["doc", "put", store, "notes", "first", document]).status, 0)
        var stored = ["first"]
        for (index, free) in [16, 24, 32, 40, 48, 56, 64].map({ $0 << 10 }).enumerated() {
            try disk.fill(leaving: free)
            defer { disk.free() }
            let id = "d\(index)"
            let put = try run(["doc", "put", store, "notes", id, document])
            XCTAssertFalse(put.signaled, "doc put with \(free) bytes free: \(put.stderr)")
            XCTAssertTrue([0, 18].contains(put.status), "doc put with \(free) bytes free: \(put.status) \(put.stderr)")
            if put.status == 0 { stored.append(id) }
            if put.status == 18 { XCTAssertTrue(put.stderr.contains("error: diskFull: "), put.stderr) }
            for command in [["info", store], ["search", store, "note"], ["doc", "get", store, "notes", "first"]] {
                let result = try run(command)
                XCTAssertFalse(result.signaled, "\(command[0]) with \(free) bytes free: \(result.stderr)")
                XCTAssertTrue([0, 18].contains(result.status), "\(command[0]): \(result.status) \(result.stderr)")
            }
        }
        for id in stored {
            XCTAssertEqual(try run(["doc", "get", store, "notes", id]).status, 0, id)
        }
        XCTAssertEqual(try run(["doc", "put", store, "notes", "after", document]).status, 0)
        XCTAssertEqual(try run(["verify", store]).status, 0)
    }

    /// A create into an existing empty folder that fails (the disk is full) leaves the folder as
    /// it found it: empty and with its mode (it was left private, 0700).
    func testAFailedCreateInAnEmptyFolderLeavesItsMode() throws {
        let disk = try XCTUnwrap(disk)
        let folder = disk.path + "/empty"
        XCTAssertEqual(mkdir(folder, 0o755), 0)
        XCTAssertEqual(chmod(folder, 0o755), 0)
        for free in [2, 8, 16, 32].map({ $0 << 10 }) {
            try disk.fill(leaving: free)
            defer { disk.free() }
            let result = try run(["create", folder])
            if result.status == 0 { break }
            XCTAssertEqual(result.status, 18, "\(free) bytes free: \(result.stderr)")
            var info = stat()
            XCTAssertEqual(stat(folder, &info), 0)
            XCTAssertEqual(info.st_mode & 0o7777, 0o755, "\(free) bytes free")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder), [], "\(free) bytes free")
        }
    }
}

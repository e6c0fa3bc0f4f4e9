import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// A folder sync reports what it cannot index — names that are not valid UTF-8, folders it
/// cannot read — instead of leaving it out without a word.
final class SearchFolderSkipTests: XCTestCase {
    private var store: Store!
    private var folder = ""

    override func setUpWithError() throws {
        (store, _) = try SearchLibraryTestSupport.store()
        folder = TestSupport.temporaryPath("folder")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        store?.close()
        // `rm -r` removes a tree deeper than PATH_MAX; FileManager cannot.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/rm")
        process.arguments = ["-rf", folder]
        try? process.run()
        process.waitUntilExit()
    }

    /// Creates `name` (raw bytes) in the directory `fd` with `text`.
    private func createFile(in fd: Int32, name: [UInt8], text: String) {
        let file = (name + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { openat(fd, $0.baseAddress!, O_WRONLY | O_CREAT | O_TRUNC, 0o644) }
        }
        XCTAssertGreaterThanOrEqual(file, 0)
        _ = Array(text.utf8).withUnsafeBytes { write(file, $0.baseAddress!, $0.count) }
        close(file)
    }

    /// Creates the directory `name` (raw bytes) in `fd` and opens it.
    private func createDirectory(in fd: Int32, name: [UInt8]) -> Int32 {
        (name + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { name -> Int32 in
                XCTAssertEqual(mkdirat(fd, name.baseAddress!, 0o755), 0)
                return openat(fd, name.baseAddress!, O_RDONLY | O_DIRECTORY)
            }
        }
    }

    /// An entry named like a document that is not a regular file (a FIFO, a link to nothing) is
    /// reported, not left out in silence; links to folders and out of the folder are not
    /// followed, and other names are not documents.
    func testEntriesNamedLikeDocumentsThatAreNotFilesAreReported() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/a.txt", contents: Data("kept zqalpha".utf8)))
        XCTAssertEqual(mkfifo(folder + "/f.pdf", 0o600), 0)
        XCTAssertEqual(mkfifo(folder + "/pipe", 0o600), 0)
        XCTAssertEqual(symlink(folder + "-missing-target", folder + "/dangling.md"), 0)
        let outside = TestSupport.temporaryPath("outside")
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        XCTAssertTrue(FileManager.default.createFile(atPath: outside + "/o.txt", contents: Data("outside".utf8)))
        XCTAssertEqual(symlink(outside + "/o.txt", folder + "/out.txt"), 0)
        XCTAssertEqual(symlink(outside, folder + "/linked"), 0)
        let summary = try store.library.sync(folder: folder)
        store.library.waitUntilIdle()
        XCTAssertEqual(summary.added, ["a.txt"])
        XCTAssertEqual(
            summary.skipped,
            [
                .init(path: "dangling.md", reason: "not a regular file (a FIFO, device, socket or link to nothing)"),
                .init(path: "f.pdf", reason: "not a regular file (a FIFO, device, socket or link to nothing)"),
            ], "links out of the folder are not followed, and not reported (every sync would be incomplete)")
    }

    func testNamesThatAreNotUTF8AndUnreadableFoldersAreReported() throws {
        let root = open(folder, O_RDONLY | O_DIRECTORY)
        defer { close(root) }
        createFile(in: root, name: Array("good.txt".utf8), text: "walrus good")
        createFile(in: root, name: Array("bad".utf8) + [0xFF] + Array("é.txt".utf8), text: "walrus bad")
        createFile(in: root, name: [0xC3, 0x28] + Array(".md".utf8), text: "walrus bad too")
        createFile(in: root, name: [0xFE] + Array(".jpg".utf8), text: "not a candidate anyway")
        let odd = createDirectory(in: root, name: Array("dir".utf8) + [0x80])
        createFile(in: odd, name: Array("inside.txt".utf8), text: "walrus inside")
        close(odd)
        // A folder whose path is longer than PATH_MAX cannot be opened, even by root.
        var deep = createDirectory(in: root, name: Array("deep".utf8))
        var deepPath = "deep"
        for level in 0..<20 {
            let name = String(repeating: Character(String(level % 10)), count: 250)
            let next = createDirectory(in: deep, name: Array(name.utf8))
            close(deep)
            deep = next
            deepPath += "/" + name
        }
        createFile(in: deep, name: Array("lost.txt".utf8), text: "walrus lost")
        close(deep)

        let summary = try store.library.sync(folder: folder)
        store.library.waitUntilIdle()
        XCTAssertEqual(summary.added, ["good.txt"])
        XCTAssertEqual(summary.skipped.count, 4, "\(summary.skipped)")
        guard summary.skipped.count == 4 else { return }
        XCTAssertEqual(summary.skipped[0], .init(path: "\\xC3(.md", reason: "the file's name is not valid UTF-8"))
        XCTAssertEqual(summary.skipped[1], .init(path: "bad\\xFFé.txt", reason: "the file's name is not valid UTF-8"))
        XCTAssertEqual(summary.skipped[2].reason, "cannot read the folder: File name too long")
        XCTAssertTrue(summary.skipped[2].path.hasPrefix("deep/0000"), summary.skipped[2].path)
        XCTAssertTrue(deepPath.hasPrefix(summary.skipped[2].path + "/"), "the first folder that could not be opened")
        XCTAssertEqual(summary.skipped[3], .init(path: "dir\\x80", reason: "the folder's name is not valid UTF-8"))
        XCTAssertEqual(try store.library.search("walrus").documents, ["good.txt": [0]])
    }
}

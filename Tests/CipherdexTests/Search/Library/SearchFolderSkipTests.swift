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

    /// A folder reached through a link whose target's path is not valid UTF-8 is refused, and a
    /// link in the folder to such a name is skipped, said: both were resolved through Foundation's
    /// `URL`, which put U+FFFD in place of the bad byte, so a look-alike folder of that name was
    /// indexed instead, and the link became a made-up UID that failed (file-system audit 3, 7c).
    func testPathsResolvedFromTheirBytesNeverALookAlike() throws {
        let root = open(folder, O_RDONLY | O_DIRECTORY)
        defer { close(root) }
        let bad = createDirectory(in: root, name: Array("bad".utf8) + [0xFF])
        let inner = createDirectory(in: bad, name: Array("f".utf8))
        createFile(in: inner, name: Array("right.txt".utf8), text: "zqright")
        close(inner)
        close(bad)
        let lookAlike = createDirectory(in: root, name: Array("bad\u{FFFD}".utf8))
        let other = createDirectory(in: lookAlike, name: Array("f".utf8))
        createFile(in: other, name: Array("wrong.txt".utf8), text: "zqwrong")
        close(other)
        close(lookAlike)
        let link = createDirectory(in: root, name: Array("links".utf8))
        let target = Array("../bad".utf8) + [0xFF] + Array("/f".utf8) + [0]
        target.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { XCTAssertEqual(symlinkat($0.baseAddress!, link, "folder"), 0) }
        }
        close(link)
        XCTAssertThrowsError(try store.library.sync(folder: folder + "/links/folder")) { error in
            XCTAssertEqual((error as? SearchError)?.name, "unreadable", "\(error)")
            XCTAssertTrue("\(error.localizedDescription)".contains("bad\\xFF/f, is not valid UTF-8"), "\(error)")
        }
        XCTAssertEqual(try store.library.search("zqwrong").rankedUIDs, [])

        // A link inside a synced folder to a name that is not valid UTF-8.
        let synced = createDirectory(in: root, name: Array("synced".utf8))
        createFile(in: synced, name: Array("bad".utf8) + [0xFF] + Array(".txt".utf8), text: "zqtarget")
        let name = Array("bad".utf8) + [0xFF] + Array(".txt".utf8) + [0]
        name.withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                XCTAssertEqual(symlinkat($0.baseAddress!, synced, "good.txt"), 0)
            }
        }
        close(synced)
        let summary = try store.library.sync(folder: folder + "/synced")
        store.library.waitUntilIdle()
        XCTAssertEqual(summary.added, [])
        XCTAssertEqual(
            summary.skipped,
            [
                .init(path: "bad\\xFF.txt", reason: "the file's name is not valid UTF-8"),
                .init(path: "good.txt", reason: "the link leads to a name that is not valid UTF-8"),
            ])
    }

    /// A modification time recorded a last bit apart (builds before 2026-12-01 computed it through
    /// `Date`) is the same time: the file is unchanged, not read again (upgrade audit 4).
    func testATimeALastBitApartIsUnchanged() throws {
        XCTAssertTrue(FileManager.default.createFile(atPath: folder + "/a.txt", contents: Data("zqtime".utf8)))
        XCTAssertEqual(try store.library.sync(folder: folder).added, ["a.txt"])
        store.library.waitUntilIdle()
        try store.write { db in
            let recorded = try XCTUnwrap(
                db.scalar("SELECT source_mtime FROM search_documents WHERE uid = 'a.txt'")?.doubleValue)
            try db.execute(
                "UPDATE search_documents SET source_mtime = ? WHERE uid = 'a.txt'", [.real(recorded.nextUp)])
        }
        XCTAssertEqual(try store.library.sync(folder: folder).unchanged, ["a.txt"])
    }
}

import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// Every kind of file in place of an attachment's file, and as the file to add: each is a typed
/// `AttachmentError` naming the id or path within a second (never a read that blocks on a FIFO
/// or runs forever on `/dev/zero`), and once the fault is gone everything committed is there.
final class AttachmentFileFaultTests: XCTestCase {
    private var path = ""
    private var mounts: [String] = []

    override func setUp() {
        path = TestSupport.temporaryPath()
    }

    override func tearDown() {
        for point in mounts.reversed() { Mounts.unmount(point) }
        mounts = []
    }

    private static let content = Data("attachment content that matters".utf8)

    /// What replaces the file: each is made at `target`, which does not exist.
    private static let kinds = ["fifo", "directory", "symlink to /dev/zero", "device", "empty", "huge sparse"]

    private func make(_ kind: String, at target: String) throws {
        switch kind {
        case "fifo": XCTAssertEqual(mkfifo(target, 0o600), 0)
        case "directory": try FileManager.default.createDirectory(atPath: target, withIntermediateDirectories: false)
        case "symlink to /dev/zero": XCTAssertEqual(symlink("/dev/zero", target), 0)
        case "device": XCTAssertEqual(mknod(target, S_IFCHR | 0o600, dev_t((1 << 8) | 5)), 0)
        case "empty": XCTAssertTrue(FileManager.default.createFile(atPath: target, contents: nil))
        default:
            XCTAssertTrue(FileManager.default.createFile(atPath: target, contents: nil))
            XCTAssertEqual(truncate(target, 10 << 30), 0)
        }
    }

    /// Runs `body` under a watchdog and expects an `AttachmentError` named one of `names` whose
    /// message names `subject`, within a second.
    private func assertAttachmentError(
        _ names: Set<String>, naming subject: String, unblocking fifo: String? = nil, file: StaticString = #filePath,
        line: UInt = #line, _ body: @escaping @Sendable () throws -> Void
    ) {
        let started = Date()
        let result = Watchdog.finishing(
            within: 5,
            unblock: {
                guard let fifo else { return }
                let fd = open(fifo, O_WRONLY | O_NONBLOCK)
                if fd >= 0 { close(fd) }
            }, file: file, line: line, body)
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.0, "the error took too long", file: file, line: line)
        switch result {
        case .failure(let error as AttachmentError)?:
            XCTAssertTrue(names.contains(error.name), "\(error)", file: file, line: line)
            XCTAssertTrue(
                error.errorDescription!.contains(subject), "\(error) names \(subject)", file: file, line: line)
        case .failure(let error)?: XCTFail("expected one of \(names), got \(error)", file: file, line: line)
        case .success?: XCTFail("expected one of \(names), nothing was thrown", file: file, line: line)
        case nil: break
        }
    }

    // MARK: In place of a stored attachment's file

    func testEveryKindOfFileInPlaceOfAnAttachmentIsATypedErrorAtOnce() throws {
        for key in [TestSupport.rawKey(1), nil] {
            setUp()
            let store = try Store.open(TestSupport.configuration(path, key: key))
            defer { store.close() }
            let id = try store.addAttachment(Self.content).id
            let target = path + "/attachments/" + id
            let saved = try XCTUnwrap(FileManager.default.contents(atPath: target))
            try FileManager.default.removeItem(atPath: target)
            for kind in Self.kinds {
                try make(kind, at: target)
                // Empty or sparse: the wrong size (or a header of zeros), refused unread.
                let expected: Set<String> =
                    ["empty", "huge sparse"].contains(kind)
                    ? ["badHeader", "truncated", "trailingData"] : ["notRegularFile"]
                let fifo = kind == "fifo" ? target : nil
                assertAttachmentError(expected, naming: id, unblocking: fifo) { _ = try store.attachment(id).readAll() }
                assertAttachmentError(expected, naming: id, unblocking: fifo) {
                    _ = try store.attachment(id).read(range: 0..<1)
                }
                let started = Date()
                let report = try store.verify()
                XCTAssertLessThan(Date().timeIntervalSince(started), 1.0, "verify took too long with \(kind)")
                XCTAssertEqual(report.problems.count, 1, "\(kind): \(report.problems)")
                XCTAssertTrue(report.problems.first?.contains(id) == true, "\(report.problems)")
                try FileManager.default.removeItem(atPath: target)
            }
            _ = FileManager.default.createFile(atPath: target, contents: saved)
            XCTAssertEqual(try store.attachmentData(id), Self.content)
            XCTAssertEqual(try store.verify().problems, [])
        }
    }

    func testANonRegularAttachmentFileNamesItsPathAndKind() throws {
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        let id = try store.addAttachment(Self.content).id
        let target = path + "/attachments/" + id
        try FileManager.default.removeItem(atPath: target)
        XCTAssertEqual(mkfifo(target, 0o600), 0)
        XCTAssertThrowsError(try store.attachment(id)) { error in
            XCTAssertEqual(error as? AttachmentError, .notRegularFile(id: id, path: target, kind: "a FIFO"))
        }
    }

    // MARK: As the file to add

    func testOnlyARegularFileCanBeAddedAndNothingIsStoredOtherwise() throws {
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        let sources = TestSupport.temporaryPath("sources")
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
        for kind in ["fifo", "directory", "symlink to /dev/zero", "device"] {
            let source = sources + "/" + kind.split(separator: " ").first!
            try make(kind, at: source)
            let fifo = kind == "fifo" ? source : nil
            assertAttachmentError(["sourceNotRegularFile"], naming: source, unblocking: fifo) {
                _ = try store.addAttachment(fromFile: source)
            }
            assertAttachmentError(["sourceNotRegularFile"], naming: source, unblocking: fifo) {
                _ = try store.transaction { try $0.addAttachment(fromFile: source) }
            }
        }
        XCTAssertEqual(try store.attachmentTokens(), [])
        XCTAssertEqual(FileSystem.contents(of: path + "/staging"), [])
        // A link to a regular file is followed.
        let real = sources + "/real.txt"
        _ = FileManager.default.createFile(atPath: real, contents: Self.content)
        XCTAssertEqual(symlink(real, sources + "/link.txt"), 0)
        let token = try store.addAttachment(fromFile: sources + "/link.txt")
        XCTAssertEqual(try store.attachmentData(token.id), Self.content)
    }

    /// A missing source (or one under a missing folder, or under a file) is `sourceNotFound`, and
    /// one this process may not read `sourceUnreadable`, from every form of `addAttachment(fromFile:)`
    /// (they were `StoreError.system`, "open failed …", and `permissionDenied`, a store's case).
    func testAMissingOrUnreadableSourceIsTypedAndNothingIsStored() async throws {
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        let sources = TestSupport.temporaryPath("sources")
        try FileManager.default.createDirectory(atPath: sources, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: sources + "/plain.txt", contents: Self.content)
        // Root reads any file whose mode forbids it; not a write-only sysctl.
        let unreadable = getuid() == 0 ? "/proc/sys/vm/compact_memory" : sources + "/secret.txt"
        if getuid() != 0 {
            _ = FileManager.default.createFile(atPath: unreadable, contents: Self.content)
            XCTAssertEqual(chmod(unreadable, 0), 0)
        }
        var expected: [(String, AttachmentError)] = [
            (sources + "/missing.pdf", .sourceNotFound(path: sources + "/missing.pdf")),
            (sources + "/no/such/folder.pdf", .sourceNotFound(path: sources + "/no/such/folder.pdf")),
            (sources + "/plain.txt/inside", .sourceNotFound(path: sources + "/plain.txt/inside")),
        ]
        if access(unreadable, F_OK) == 0 && access(unreadable, R_OK) != 0 {
            let reason = "permission denied: its mode, or a folder above it that may not be searched"
            expected.append((unreadable, .sourceUnreadable(path: unreadable, reason: reason)))
        }
        for (source, wanted) in expected {
            XCTAssertThrowsError(try store.addAttachment(fromFile: source)) {
                XCTAssertEqual($0 as? AttachmentError, wanted)
            }
            XCTAssertThrowsError(try store.transaction { try $0.addAttachment(fromFile: source) }) {
                XCTAssertEqual($0 as? AttachmentError, wanted)
            }
            do {
                _ = try await store.addAttachmentAsync(fromFile: source)
                XCTFail("\(source) was added")
            } catch {
                XCTAssertEqual(error as? AttachmentError, wanted)
            }
        }
        XCTAssertEqual(
            AttachmentError.sourceNotFound(path: "/scans/a.pdf").errorDescription,
            "cannot add /scans/a.pdf as an attachment: there is no such file; nothing was stored")
        XCTAssertEqual(try store.attachmentTokens(), [])
        XCTAssertEqual(FileSystem.contents(of: path + "/staging"), [])
    }

    /// A /proc file reports 0 bytes yet has content: adding it is `sourceSizeUnknown` and stores
    /// nothing (it was stored as an empty attachment); an empty regular file is still added.
    func testAProcFileIsSourceSizeUnknownAndNothingIsStored() throws {
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        for source in ["/proc/self/status", "/proc/cpuinfo"] where FileManager.default.isReadableFile(atPath: source) {
            XCTAssertThrowsError(try store.addAttachment(fromFile: source)) { error in
                XCTAssertEqual(error as? AttachmentError, .sourceSizeUnknown(path: source))
            }
            XCTAssertThrowsError(try store.transaction { try $0.addAttachment(fromFile: source) }) { error in
                XCTAssertEqual(error as? AttachmentError, .sourceSizeUnknown(path: source))
            }
        }
        XCTAssertEqual(try store.attachmentTokens(), [])
        XCTAssertEqual(FileSystem.contents(of: path + "/staging"), [])
        let empty = path + "-empty"
        defer { unlink(empty) }
        XCTAssertTrue(FileManager.default.createFile(atPath: empty, contents: Data()))
        XCTAssertEqual(try store.addAttachment(fromFile: empty).length, 0)
    }

    /// A source that shrinks after it was opened is `sourceChanged` (a prefix of it was stored,
    /// and the add succeeded); so is one that grows, or is overwritten in place while it is read
    /// (its bytes were stored as a mix of its old and new content, a file it never held), or whose
    /// modification time is set back after such a write (its change time still moves).
    func testASourceWrittenToWhileReadIsSourceChanged() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let file = path + "-source"
        defer { unlink(file) }
        let content = Data((0..<(3 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: content))
        let shrinking = try AttachmentSourceFile(path: file, layout: StoreLayout(directory: path))
        XCTAssertEqual(truncate(file, 1000), 0)
        var streamed = 0
        XCTAssertThrowsError(try shrinking.stream { streamed += $0.count }) {
            XCTAssertEqual($0 as? AttachmentError, .sourceChanged(path: file, expectedBytes: 3 << 20, readBytes: 1000))
        }
        let writes: [(name: String, write: (FileHandle) throws -> Void)] = [
            ("appended", { try $0.seekToEnd() }),
            ("overwritten", { try $0.seek(toOffset: 2 << 20) }),
            ("overwritten, modification time set back", { try $0.seek(toOffset: 0) }),
        ]
        for (name, seek) in writes {
            XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: content))
            let before = try FileManager.default.attributesOfItem(atPath: file)[.modificationDate] as? Date
            let source = try AttachmentSourceFile(path: file, layout: StoreLayout(directory: path))
            // Past the file system's timestamp granularity, so the write moves the times.
            Thread.sleep(forTimeInterval: 0.02)
            var halfRead = false
            XCTAssertThrowsError(
                try source.stream { _ in
                    guard !halfRead else { return }
                    halfRead = true
                    let handle = try XCTUnwrap(FileHandle(forWritingAtPath: file))
                    try seek(handle)
                    try handle.write(contentsOf: Data(repeating: 1, count: 5000))
                    try handle.close()
                    if name.hasSuffix("set back"), let before {
                        try FileManager.default.setAttributes([.modificationDate: before], ofItemAtPath: file)
                    }
                }, name
            ) {
                XCTAssertEqual(
                    $0 as? AttachmentError, .sourceChanged(path: file, expectedBytes: 3 << 20, readBytes: 3 << 20), name
                )
                XCTAssertTrue($0.localizedDescription.contains("was written to while it was read"), name)
            }
        }
        // Untouched, it is read whole.
        XCTAssertTrue(FileManager.default.createFile(atPath: file, contents: content))
        var read = Data()
        try AttachmentSourceFile(path: file, layout: StoreLayout(directory: path)).stream {
            read.append(contentsOf: $0)
        }
        XCTAssertEqual(read, content)
    }

    func testAHugeSparseSourceOnASmallDiskIsDiskFullAtOnce() throws {
        let disk = try Mounts.tmpfs(size: 8 << 20)
        mounts.append(disk)
        let store = try Store.open(TestSupport.configuration(disk + "/store", key: TestSupport.rawKey(1)))
        defer { store.close() }
        let kept = try store.addAttachment(Self.content)
        let source = TestSupport.temporaryPath("sparse.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: source, contents: nil))
        XCTAssertEqual(truncate(source, 10 << 30), 0)
        defer { unlink(source) }
        let started = Date()
        XCTAssertThrowsCase("diskFull", try store.addAttachment(fromFile: source))
        XCTAssertLessThan(Date().timeIntervalSince(started), 1.0)
        XCTAssertEqual(try store.attachmentTokens().map(\.id), [kept.id])
        XCTAssertEqual(try store.verify().problems, [])
    }

    func testAFullDiskWhileStagingIsDiskFullNamingTheStagingFile() throws {
        let disk = try Mounts.tmpfs(size: 8 << 20)
        mounts.append(disk)
        let store = try Store.open(TestSupport.configuration(disk + "/store", key: TestSupport.rawKey(1)))
        defer { store.close() }
        let kept = try store.addAttachment(Self.content)
        let filler = try Mounts.fill(disk, leaving: 256 << 10)
        // A stream of unknown length cannot be checked up front: the write itself fails.
        XCTAssertThrowsCase(
            "diskFull", try store.addAttachment(from: (0..<8).lazy.map { _ in Data(count: 1 << 20) }))
        XCTAssertEqual(FileSystem.contents(of: disk + "/store/staging"), [])
        try FileManager.default.removeItem(atPath: filler)
        XCTAssertEqual(try store.attachmentData(kept.id), Self.content)
        XCTAssertEqual(try store.verify().problems, [])
    }

    /// An attachment staged in full whose database write fails on a full disk leaves no staged
    /// copy (it stayed in `staging/` until the next open, keeping the disk full: file-system
    /// audit 2), and a retry once space is freed succeeds in the same process.
    func testAFullDiskAtTheCommitLeavesNoStagedCopy() throws {
        let disk = try Mounts.tmpfs(size: 2 << 20)
        mounts.append(disk)
        let store = try Store.open(TestSupport.configuration(disk + "/store", key: TestSupport.rawKey(1)))
        defer { store.close() }
        let content = Data((0..<1_500_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        XCTAssertThrowsCase("diskFull", try store.addAttachment(content))
        XCTAssertEqual(FileSystem.contents(of: disk + "/store/staging"), [])
        XCTAssertEqual(try store.attachmentTokens(), [])
        XCTAssertEqual(try store.verify().problems, [])
    }

    /// The same inside a transaction: its commit fails on the full disk, and the staged copy goes.
    func testAFullDiskAtATransactionsCommitLeavesNoStagedCopy() throws {
        let disk = try Mounts.tmpfs(size: 2 << 20)
        mounts.append(disk)
        let store = try Store.open(TestSupport.configuration(disk + "/store", key: TestSupport.rawKey(1)))
        defer { store.close() }
        let content = Data((0..<1_500_000).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        XCTAssertThrowsCase("diskFull", try store.transaction { try $0.addAttachment(content) })
        XCTAssertEqual(FileSystem.contents(of: disk + "/store/staging"), [])
        XCTAssertEqual(try store.attachmentTokens(), [])
        XCTAssertEqual(try store.verify().problems, [])
    }
}

import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// Memory stays bounded whatever the input: a document over `maximumDocumentSize` fails at once
/// without being read, and one under it is held in memory once (not copied for the helper).
final class SearchDocumentSizeTests: XCTestCase {
    private var store: Store!
    private var files = ""

    override func setUpWithError() throws {
        (store, _) = try SearchLibraryTestSupport.store(isolated: true)
        files = TestSupport.temporaryPath("files")
        try FileManager.default.createDirectory(atPath: files, withIntermediateDirectories: true)
    }

    override func tearDown() {
        store?.close()
        try? FileManager.default.removeItem(atPath: files)
    }

    /// A sparse file of `size` bytes (no disk space used).
    @discardableResult
    private func sparseFile(_ name: String, size: Int64) throws -> String {
        let path = files + "/" + name
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        XCTAssertEqual(ftruncate(fd, off_t(size)), 0)
        return path
    }

    /// Peak resident set of this process since the last `resetPeakResident()`, in bytes.
    private func peakResident() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }
        return 0
    }

    private func currentResident() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
        }
        return 0
    }

    /// Resets VmHWM to the current resident set (`echo 5 > /proc/self/clear_refs`).
    private func resetPeakResident() throws {
        guard (try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)) != nil else {
            throw XCTSkip("cannot reset the peak resident set")
        }
    }

    func testOversizedFileFailsAtOnceWithoutBeingRead() throws {
        let limit = SearchLibrary.Configuration().maximumDocumentSize
        XCTAssertEqual(limit, 256 << 20)
        try sparseFile("big.pdf", size: 3 << 30)
        let start = Date()
        try store.library.add(fileAt: files + "/big.pdf")
        try store.library.waitUntilIndexed()
        XCTAssertLessThan(Date().timeIntervalSince(start), 2)
        XCTAssertEqual(
            try store.library.status(of: "big.pdf"),
            .failed(reason: "the document is \(3 << 30) bytes, larger than the limit of \(limit) bytes (Configuration.maximumDocumentSize)"))
        XCTAssertEqual(try store.attachmentTokens(), [], "nothing of it is stored")

        store.library.configure { $0.maximumDocumentSize = 1000 }
        try Data(repeating: 65, count: 1001).write(to: URL(fileURLWithPath: files + "/a.txt"))
        try Data(repeating: 66, count: 1000).write(to: URL(fileURLWithPath: files + "/b.txt"))
        let summary = try store.library.sync(folder: files)
        XCTAssertEqual(summary.added, ["a.txt", "b.txt"])
        try store.library.waitUntilIndexed()
        guard case .failed(let reason) = try store.library.status(of: "a.txt") else { return XCTFail() }
        XCTAssertTrue(reason.contains("1001 bytes, larger than the limit of 1000 bytes"), reason)
        XCTAssertEqual(try store.library.status(of: "b.txt"), .finished(pageCount: 1))
        try store.library.add(data: Data(count: 1001), uid: "data.txt", fileExtension: "txt")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.status(of: "data.txt").name, "failed")
    }

    func testADocumentUnderTheLimitIsHeldOnceNotCopiedForTheHelper() throws {
        let size = 96 << 20
        store.library.configure { $0.maximumDocumentSize = size + 1 }
        let folder = files + "/folder"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = folder + "/zeros.pdf"
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        defer { close(fd) }
        XCTAssertEqual(ftruncate(fd, off_t(size)), 0)
        try resetPeakResident()
        let before = currentResident()
        _ = try store.library.sync(folder: folder)
        try store.library.waitUntilIndexed()
        let growth = peakResident() - before
        guard case .failed(let reason) = try store.library.status(of: "zeros.pdf") else { return XCTFail() }
        XCTAssertTrue(reason.hasPrefix("unsupportedFormat"), reason)
        XCTAssertEqual(store.library.state.withLock { store.library.pdfPool }?.statistics.requests, 1, "sent to a helper")
        XCTAssertLessThan(growth, size + size / 2, "peak growth \(growth >> 20) MiB for a \(size >> 20) MiB document")
    }
}

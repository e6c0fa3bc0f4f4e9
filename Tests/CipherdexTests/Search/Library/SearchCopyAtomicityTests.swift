import CipherdexExtraction
import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// The copy `library.add` stores is recorded in the transaction of its index entry, never
/// before: a crash while the document is extracted leaves no attachment that nothing holds
/// (found by the crash harness, `cipherdex-crash run --operations libraryAdd`).
final class SearchCopyAtomicityTests: XCTestCase {
    /// An extractor that waits until released, so the test can look at the store mid-indexing.
    private final class GatedExtractor: TextExtractor, @unchecked Sendable {
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)

        func extract(data: [UInt8], fileExtension: String, password: String?) throws -> ExtractedDocument {
            entered.signal()
            release.wait()
            return ExtractedDocument(title: "gated", pages: [ExtractedPage(index: 0, text: "gated zqword text")])
        }
    }

    /// An extractor that always fails.
    private struct FailingExtractor: TextExtractor {
        func extract(data: [UInt8], fileExtension: String, password: String?) throws -> ExtractedDocument {
            throw ExtractionError.damaged(reason: "always")
        }
    }

    private var paths: [String] = []

    override func tearDown() {
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }

    func testACrashDuringExtractionLeavesNoUnheldCopy() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        let crashImage = TestSupport.temporaryPath("crash-image")
        paths += [path, crashImage]
        let gate = GatedExtractor()
        store.library.configure { $0.extractors["gated"] = gate }
        try store.library.add(data: Data("the content".utf8), uid: "doc", fileExtension: "gated")
        XCTAssertEqual(gate.entered.wait(timeout: .now() + 10), .success)

        // Mid-extraction: the copy is sealed but not recorded, so a crash now (this image of
        // the files) leaves nothing of the document.
        XCTAssertEqual(try store.attachmentTokens().count, 0)
        try FileManager.default.copyItem(atPath: path, toPath: crashImage)
        gate.release.signal()
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.status(of: "doc"), .finished(pageCount: 1))
        let tokens = try store.attachmentTokens()
        XCTAssertEqual(tokens.count, 1)
        XCTAssertEqual(try store.attachmentData(tokens[0].id), Data("the content".utf8))
        XCTAssertEqual(try store.library.search("zqword").documents, ["doc": [0]])
        store.close()

        let reopened = try Store.open(TestSupport.configuration(crashImage, key: TestSupport.rawKey(7)))
        defer { reopened.close() }
        XCTAssertEqual(try reopened.attachmentTokens().count, 0)
        XCTAssertEqual(try reopened.library.status(of: "doc"), .unknown)
        XCTAssertEqual(try reopened.verify().problems, [])
    }

    func testIdenticalContentIsStoredOnceAndAFailedDocumentKeepsItsCopy() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        paths.append(path)
        defer { store.close() }
        store.library.configure { $0.extractors["fail"] = FailingExtractor() }
        let existing = try store.addAttachment(Data("shared".utf8))
        try store.library.add(data: Data("shared".utf8), uid: "same.txt", fileExtension: "txt")
        try store.library.add(data: Data("other".utf8), uid: "bad", fileExtension: "fail")
        store.library.waitUntilIdle()
        XCTAssertEqual(try store.library.status(of: "same.txt"), .finished(pageCount: 1))
        XCTAssertEqual(try store.library.status(of: "bad").name, "failed")
        let ids = Set(try store.attachmentTokens().map(\.id))
        XCTAssertEqual(ids.count, 2)
        XCTAssertTrue(ids.contains(existing.id))
        XCTAssertEqual((try? FileManager.default.contentsOfDirectory(atPath: path + "/staging")) ?? [], [])
        XCTAssertEqual(try store.verify().problems, [])
    }
}

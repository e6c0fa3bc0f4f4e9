import CipherdexExtraction
import Foundation
import Synchronization
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// The `passwordProvider`'s password reaches an extractor (a PDF helper, which parses untrusted
/// PDFs) only for a document that is locked without it (leak audit 27: with `--password-file`,
/// every PDF's helper was sent the password, unprotected PDFs' too).
final class SearchPasswordTests: XCTestCase {
    /// The passwords each document's extractions were given, by document text.
    private final class Recorder: Sendable {
        let passwords = Mutex<[String: [String?]]>([:])
    }

    /// Records the password of every call; a document starting with `locked` opens with `pw` only.
    private struct RecordingExtractor: TextExtractor {
        let recorder: Recorder
        func extract(data: [UInt8], fileExtension: String, password: String?) throws -> ExtractedDocument {
            let text = String(decoding: data, as: UTF8.self)
            recorder.passwords.withLock { $0[text, default: []].append(password) }
            if text.hasPrefix("locked"), password != "pw" { throw ExtractionError.locked }
            return ExtractedDocument(title: nil, pages: [ExtractedPage(index: 0, text: text)])
        }
    }

    /// With a provider that has a password for every document, the unprotected one is extracted
    /// once without it; the locked one first without it, then with it, and is indexed.
    func testThePasswordGoesOnlyToALockedDocumentsExtraction() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        defer {
            store.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        let recorder = Recorder()
        store.library.configure {
            $0.extractors["rec"] = RecordingExtractor(recorder: recorder)
            $0.passwordProvider = { _ in "pw" }
        }
        try store.library.add(data: Data("plain zqopen".utf8), uid: "open.rec", fileExtension: "rec")
        try store.library.add(data: Data("locked zqshut".utf8), uid: "shut.rec", fileExtension: "rec")
        try store.library.waitUntilIndexed()
        let seen = recorder.passwords.withLock { $0 }
        XCTAssertEqual(seen["plain zqopen"], [nil])
        XCTAssertEqual(seen["locked zqshut"], [nil, "pw"])
        XCTAssertEqual(try store.library.search("zqopen").documents, ["open.rec": [0]])
        XCTAssertEqual(try store.library.search("zqshut").documents, ["shut.rec": [0]])
    }

    /// A locked document whose provider has no password is extracted once, and stays locked.
    func testALockedDocumentWithoutAPasswordIsTriedOnce() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        defer {
            store.close()
            try? FileManager.default.removeItem(atPath: path)
        }
        let recorder = Recorder()
        store.library.configure {
            $0.extractors["rec"] = RecordingExtractor(recorder: recorder)
            $0.passwordProvider = { _ in nil }
        }
        try store.library.add(data: Data("locked zqnone".utf8), uid: "none.rec", fileExtension: "rec")
        store.library.waitUntilIdle()
        XCTAssertEqual(recorder.passwords.withLock { $0["locked zqnone"] }, [nil])
        XCTAssertEqual(try store.library.status(of: "none.rec"), .locked)
    }
}

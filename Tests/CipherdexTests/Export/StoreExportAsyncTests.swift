import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `Store.exportAsync(to:)`: the same files as `export(to:)`, and a cancellation that leaves no
/// partial plaintext.
final class StoreExportAsyncTests: XCTestCase {
    func testExportAsyncWritesWhatExportDoesAndACancelledOneLeavesNothing() async throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        let notes = try store.createCollection("notes")
        for number in 0..<600 {
            try notes.insert(JSONValue.object(["n": .number(JSONNumber(number))]), id: "note-\(number)")
        }
        _ = try store.addAttachment(Data(repeating: 9, count: 100_000), contentType: "application/octet-stream")
        let file = TestSupport.temporaryPath("visit.txt")
        try "the consultation mentions hurdygurdy".write(toFile: file, atomically: true, encoding: .utf8)
        try store.library.add(fileAt: file, uid: "visit")
        try store.library.waitUntilIndexed()

        let synchronous = TestSupport.temporaryPath("export-sync")
        let asynchronous = TestSupport.temporaryPath("export-async")
        let expected = try store.export(to: synchronous)
        let summary = try await store.exportAsync(to: asynchronous)
        XCTAssertEqual(summary, expected)
        XCTAssertEqual(summary.documents, 600)
        XCTAssertEqual(TestSupport.snapshot(asynchronous), TestSupport.snapshot(synchronous))

        // A cancellation met inside the work, after documents were written: nothing is left,
        // neither the directory the export made nor what it wrote into an empty one given to it.
        let cancelled = WorkCancellation()
        cancelled.cancel()
        let made = TestSupport.temporaryPath("export-made")
        XCTAssertThrowsError(try store.export(to: made, cancellation: cancelled)) {
            XCTAssertTrue($0 is CancellationError, "\($0)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: made))
        let given = TestSupport.temporaryPath("export-given")
        try FileManager.default.createDirectory(atPath: given, withIntermediateDirectories: false)
        XCTAssertThrowsError(try store.export(to: given, cancellation: cancelled)) {
            XCTAssertTrue($0 is CancellationError, "\($0)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: given), [])
    }
}

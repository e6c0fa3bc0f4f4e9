import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// A failed export removes only what it created: two exports into one empty folder at once both
/// pass the empty-folder check, and the one that lost the race removed every top-level name,
/// the winner's files included (multi-process audit 28).
final class ExportWriterTests: XCTestCase {
    func testAFailedExportRemovesOnlyWhatItCreated() throws {
        let directory = TestSupport.temporaryPath("export-race")
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: false)
        let winner = ExportWriter(root: directory)
        try winner.makeDirectory("collections")
        try winner.write("collections/c1.jsonl", Array("{}\n".utf8))
        let loser = ExportWriter(root: directory)
        try loser.write("search.partial", Array("x".utf8))
        XCTAssertThrowsError(try loser.makeDirectory("collections"))
        XCTAssertThrowsError(try loser.open("collections/c1.jsonl"))
        XCTAssertEqual(loser.createdTopLevelNames, ["search.partial"])
        Store.removeExport(directory, names: loser.createdTopLevelNames, removingDirectory: false)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory), ["collections"])
        XCTAssertEqual(
            try Data(contentsOf: URL(fileURLWithPath: directory + "/collections/c1.jsonl")), Data("{}\n".utf8))
    }
}

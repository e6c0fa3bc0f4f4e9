import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// A one-character query of a bigram script finds the pages where the character only ends a run
/// (`RunEndExpansion`): `请安装Java运行环境` is found by `装`, `境` and `装Java`.
final class SearchRunEndTests: XCTestCase {
    private func search(_ store: Store, _ query: String) throws -> [String] {
        try store.library.search(query).documents.keys.sorted()
    }

    private func addText(_ store: Store, _ text: String, uid: String) throws {
        try store.library.add(data: Data(text.utf8), uid: uid, fileExtension: "txt")
        store.library.waitUntilIdle()
    }

    func testACharacterThatEndsARunIsFound() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        try addText(store, "请安装Java运行环境\n", uid: "zh.txt")
        try addText(store, "それは知っていますか\n", uid: "ja.txt")
        try addText(store, "한국어를 배운다\n", uid: "ko.txt")
        try addText(store, "装置Java 环境保护", uid: "other.txt")
        XCTAssertEqual(try search(store, "装"), ["other.txt", "zh.txt"])
        XCTAssertEqual(try search(store, "境"), ["other.txt", "zh.txt"])
        XCTAssertEqual(try search(store, "か"), ["ja.txt"])
        XCTAssertEqual(try search(store, "다"), ["ko.txt"])
        XCTAssertEqual(try search(store, "安"), ["zh.txt"])
        // Followed by other text, the character must end its run there: `装置Java` is no match.
        XCTAssertEqual(try search(store, "装Java"), ["zh.txt"])
        XCTAssertEqual(try search(store, "置Java"), ["other.txt"])
        // Preceded by other text, it must start one.
        XCTAssertEqual(try search(store, "Java运"), ["zh.txt"])
        XCTAssertEqual(try search(store, "Java环"), ["other.txt"])
        XCTAssertEqual(try search(store, "装 -境"), [])
        XCTAssertEqual(try search(store, "境 -运行"), ["other.txt"])
        XCTAssertEqual(try search(store, "境 OR か"), ["ja.txt", "other.txt", "zh.txt"])
        // The previews mark a pair that holds the character.
        let preview = try XCTUnwrap(store.library.search("境").previews.first { $0.uid == "zh.txt" })
        let marked = preview.matchRanges.map { SearchLibraryTestSupport.substring(preview.preview, $0) }
        XCTAssertEqual(marked, ["环境"])
    }

    /// The pairs come from the vocabulary from U+0E00 on, the most frequent first.
    func testPairsEndingWithACharacter() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        try addText(store, "环境。环境。困境。境界。境", uid: "a.txt")
        try addText(store, "环境。café", uid: "b.txt")
        let pairs = try store.read { try RunEndExpansion.pairs(endingWith: "境", db: $0) }
        XCTAssertEqual(pairs, ["环境", "困境"])
    }
}

import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Tokenizer revision 5 on real indexes: text whose words a zero-width space separates, and
/// Thai and Lao written with the decomposed AM, are found as a reader sees them.
final class SearchRevision5Tests: XCTestCase {
    private func search(_ store: Store, _ query: String) throws -> [String] {
        try store.library.search(query).documents.keys.sorted()
    }

    private func addText(_ store: Store, _ text: String, uid: String) throws {
        try store.library.add(data: Data(text.utf8), uid: uid, fileExtension: "txt")
        store.library.waitUntilIdle()
    }

    /// `ออกแบบ` finds `ออก⟨ZWSP⟩แบบ` as it finds `ออก แบบ`; likewise Han and Khmer. Latin and
    /// Hangul are still cut at it.
    func testAZeroWidthSpaceInsideARunIsFoundAcross() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        try addText(store, "ออก แบบ", uid: "th-space.txt")
        try addText(store, "ออกแบบ", uid: "th-none.txt")
        try addText(store, "ออก\u{200B}แบบ", uid: "th-zwsp.txt")
        try addText(store, "東京\u{200B}都", uid: "han.txt")
        try addText(store, "ភាសា\u{200B}ខ្មែរ", uid: "km.txt")
        try addText(store, "foo\u{200B}bar", uid: "latin.txt")
        try addText(store, "한국\u{200B}어", uid: "ko.txt")
        XCTAssertEqual(try search(store, "ออกแบบ"), ["th-none.txt", "th-space.txt", "th-zwsp.txt"])
        XCTAssertEqual(try search(store, "ออก\u{200B}แบบ"), ["th-none.txt", "th-space.txt", "th-zwsp.txt"])
        XCTAssertEqual(try search(store, "京都"), ["han.txt"])
        XCTAssertEqual(try search(store, "ភាសាខ្មែរ"), ["km.txt"])
        XCTAssertEqual(try search(store, "foobar"), [])
        XCTAssertEqual(try search(store, "bar"), ["latin.txt"])
        XCTAssertEqual(try search(store, "한국어"), [])
        XCTAssertEqual(try search(store, "한국"), ["ko.txt"])
        // The preview marks the pair across the zero-width space.
        let preview = try XCTUnwrap(store.library.search("京都").previews.first)
        let marked = preview.matchRanges.map { SearchLibraryTestSupport.substring(preview.preview, $0) }
        XCTAssertEqual(marked, ["京\u{200B}都"])
    }

    /// Either spelling of the AM finds both: words, pairs and one-character queries.
    func testBothSpellingsOfAMFindBoth() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        try addText(store, "กำหนด กำ", uid: "comp.txt")
        try addText(store, "ก\u{0E4D}\u{0E32}หนด ก\u{0E4D}\u{0E32}", uid: "dec.txt")
        try addText(store, "ລຳ", uid: "lao-comp.txt")
        try addText(store, "ລ\u{0ECD}\u{0EB2}", uid: "lao-dec.txt")
        for query in ["กำหนด", "ก\u{0E4D}\u{0E32}หนด", "กำ", "ก\u{0E4D}\u{0E32}", "ำ", "\u{0E4D}\u{0E32}", "ำหน"] {
            XCTAssertEqual(try search(store, query), ["comp.txt", "dec.txt"], query)
        }
        for query in ["ລຳ", "ລ\u{0ECD}\u{0EB2}", "ຳ", "\u{0ECD}\u{0EB2}"] {
            XCTAssertEqual(try search(store, query), ["lao-comp.txt", "lao-dec.txt"], query)
        }
    }
}

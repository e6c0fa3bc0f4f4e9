import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// A document whose text holds a NUL byte: the words after it are found (FTS4's tokenizer stops at
/// a NUL, so page text is stored with spaces in their place), and the index stays consistent when
/// the document is removed and added again.
final class SearchNULTextTests: XCTestCase {
    func testWordsAfterANULAreFound() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        try store.library.add(data: Data("alpha\u{0}beta gamma".utf8), uid: "nul.txt", fileExtension: "txt")
        store.library.waitUntilIdle()
        for word in ["alpha", "beta", "gamma"] {
            XCTAssertEqual(try store.library.search(word).documents.keys.sorted(), ["nul.txt"], word)
        }
        let preview = try XCTUnwrap(store.library.search("beta").previews.first)
        XCTAssertTrue(preview.preview.contains("alpha beta"), preview.preview)
        try store.library.remove(uid: "nul.txt")
        store.library.waitUntilIdle()
        XCTAssertEqual(try store.library.search("beta").documents.count, 0)
        XCTAssertEqual(try store.verify().problems, [])
    }
}

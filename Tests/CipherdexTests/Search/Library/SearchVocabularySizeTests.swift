import CipherdexPDFWriter
import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// The ends-with vocabulary (`search_text_terms`, an `fts4aux` table over `search_text`) stores
/// nothing: it reads the FTS index's own segments, so the database uses the same pages with and
/// without it. BENCHMARKS.md ("Index size on disk") quotes the figures this test prints.
final class SearchVocabularySizeTests: XCTestCase {
    /// Pages in use (all pages but the free list) and the page size.
    private func usedBytes(_ store: Store) throws -> Int {
        try store.read { db in
            let pages = try db.scalar("PRAGMA page_count")?.integerValue ?? 0
            let free = try db.scalar("PRAGMA freelist_count")?.integerValue ?? 0
            let size = try db.scalar("PRAGMA page_size")?.integerValue ?? 0
            return Int((pages - free) * size)
        }
    }

    func testTheVocabularyTakesNoSpace() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        let corpus = SampleCorpus(documentCount: 100, pagesPerDocument: 20)
        for (index, document) in corpus.documents.enumerated() {
            try store.library.add(
                data: Data(document.pages.joined(separator: "\n\u{0C}").utf8), uid: "doc\(index).txt",
                fileExtension: "txt")
        }
        store.library.waitUntilIdle()
        XCTAssertEqual(try store.library.search("*ology").documents.isEmpty, false)
        let with = try usedBytes(store)
        let terms = try store.read { try $0.scalar("SELECT count(*) FROM search_text_terms")?.integerValue ?? 0 }
        try store.write { try $0.execute("DROP TABLE search_text_terms") }
        let without = try usedBytes(store)
        try store.write { try SearchSchema.createVocabulary($0) }
        let again = try usedBytes(store)
        print(
            "VOCABULARY SIZE: \(corpus.pageCount) pages, \(terms) vocabulary rows; database pages in use: "
                + "with search_text_terms \(with) bytes, without \(without) bytes, created again \(again) bytes")
        XCTAssertGreaterThan(terms, 100)
        XCTAssertEqual(with, without)
        XCTAssertEqual(again, with)
        XCTAssertEqual(try store.library.search("*ology").documents.isEmpty, false)
    }
}

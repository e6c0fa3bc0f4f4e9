import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// A one-character query of a bigram script finds the pages where the character only ends a run
/// (`TermPattern`: `*装*`, every token that holds it): `请安装Java运行环境` is found by `装`, `境`
/// and `装Java`.
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

    /// A store whose one document has a page for each of 320 pairs ending with `品` (two pages
    /// each) and five rare ones, the pages holding the character, and options that list them all.
    private static func storeOfManyPairs() throws -> (Store, [Int], SearchOptions) {
        let (store, _) = try SearchLibraryTestSupport.store()
        let (pages, expected) = pagesEndingWith("品", pairs: 320, rare: 5)
        do {
            try store.library.add(
                data: Data(pages.joined(separator: "\u{0C}").utf8), uid: "many.txt", fileExtension: "txt")
        } catch {
            store.close()
            throw error
        }
        store.library.waitUntilIdle()
        var options = SearchOptions()
        options.maximumResults = 10_000
        return (store, expected, options)
    }

    /// A character that ends far more distinct pairs than any expansion of them could list
    /// (here 320, each on two pages, and five rare ones on a page each, where the character only
    /// ends a run) is found on every page: the pairs are read as one pattern (`*品*`), not
    /// listed. Before, at most the 256 most frequent pairs were added, and the five rare pages
    /// (and 64 pairs' pages) were missed.
    func testEveryPageOfACharacterThatEndsManyPairsIsFound() throws {
        let (store, expected, options) = try Self.storeOfManyPairs()
        defer { store.close() }
        for query in ["品", "品 -zzz"] {
            let results = try store.library.search(query, options: options)
            XCTAssertEqual(results.documents["many.txt"], expected, query)
        }
        // Before other text, the character must end its run: alone (page 0) or ending a pair (1).
        XCTAssertEqual(try store.library.search("品Java", options: options).documents["many.txt"], [0, 1])
        // Every preview marks the pair (or the character) that holds it.
        let results = try store.library.search("品", options: options)
        XCTAssertEqual(results.previews.count, expected.count)
        for preview in results.previews {
            let marked = preview.matchRanges.map { SearchLibraryTestSupport.substring(preview.preview, $0) }
            XCTAssertFalse(marked.isEmpty, "page \(preview.pageIndex)")
            XCTAssertTrue(marked.allSatisfy { $0.contains("品") }, "page \(preview.pageIndex): \(marked)")
        }
        XCTAssertEqual(results.previews.filter { $0.pageIndex >= 2 * 320 + 2 }.count, 5)  // the rare pairs' pages
    }

    /// FTS4 (what a query this reader leaves to it runs) gets the pairs spelled out
    /// (`PatternExpansion`), as many as its expression depth allows: all 325 here.
    func testFTS4FindsEveryPageWithThePairsSpelledOut() throws {
        let (store, expected, options) = try Self.storeOfManyPairs()
        defer { store.close() }
        let compiled = try SearchQuery.parse("品").compiled(stemming: false, readingPatterns: true)
        XCTAssertEqual(compiled.match, "\"*品*\"")
        let (direct, fts) = try store.read { db in
            (
                try TopHits.select(compiled, options: options, db: db),
                try TopHits.select(compiled, options: options, db: db, directPostings: false)
            )
        }
        XCTAssertEqual(direct.matchedRows, expected.count)
        XCTAssertEqual(fts.matchedRows, expected.count)
        XCTAssertFalse(fts.phrasesAsCompiled)
        XCTAssertEqual(Set(fts.hits.map(\.pageIndex)), Set(expected))
    }

    /// Pages of `character` ending runs: page 0 `品 Java。`, page 1 `X品Java。`, then for
    /// each of `pairs` distinct characters X two pages `甲X品。`, then `rare` pages where a pair
    /// of its own ends with it, then a page without it. The pages that hold it.
    static func pagesEndingWith(_ character: String, pairs: Int, rare: Int) -> (pages: [String], holding: [Int]) {
        // Ideographs from U+4E00 on, skipping the character itself and 甲 (the run's start).
        let ideographs = (0x4E00..<0x9FA0).compactMap(Unicode.Scalar.init).map(String.init).filter {
            $0 != character && $0 != "甲"
        }
        var pages = [character + " Java。", ideographs[0] + character + "Java。"]
        for index in 0..<pairs {
            pages += Array(repeating: "甲" + ideographs[index] + character + "。", count: 2)
        }
        for index in 0..<rare { pages.append("文字" + ideographs[pairs + index] + character + "。") }
        pages.append("甲乙。")
        return (pages, Array(0..<(pages.count - 1)))
    }
}

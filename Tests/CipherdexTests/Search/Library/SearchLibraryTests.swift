import CipherdexPDFWriter
import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Search correctness on generated PDFs whose page text is known.
final class SearchLibraryTests: XCTestCase {
    private var store: Store!
    private var path = ""
    private var files = ""

    override func setUpWithError() throws {
        (store, path) = try SearchLibraryTestSupport.store()
        files = TestSupport.temporaryPath("files")
        SearchLibraryTestSupport.writePDF(
            [
                "The Résumé of Ada Lovelace lists the Analytical Engine.",
                "Invoice number 4471 for state-of-the-art equipment.\nPayment is due within thirty days.",
                "Nothing to see on this page.",
            ], title: "Ada", to: files, name: "ada.pdf")
        SearchLibraryTestSupport.writePDF(
            ["Charles Babbage designed the Difference Engine.", "Another invoice, marked PAID in full."],
            title: "Charles", to: files, name: "charles.pdf")
        SearchLibraryTestSupport.writePDF(
            ["東京都の天気は晴れです。", "서울의 날씨는 맑습니다", "北京的天气很好"], title: "CJK", to: files, name: "cjk.pdf")
        try store.library.add(fileAt: files + "/ada.pdf")
        try store.library.add(fileAt: files + "/charles.pdf")
        try store.library.add(fileAt: files + "/cjk.pdf")
        store.library.waitUntilIdle()
    }

    override func tearDown() {
        store?.close()
    }

    private func pages(_ query: String, _ options: SearchOptions = SearchOptions()) throws -> [String: [Int]] {
        try store.library.search(query, options: options).documents
    }

    func testStatusAfterIndexing() throws {
        XCTAssertEqual(try store.library.status(of: "ada.pdf"), .finished(pageCount: 3))
        XCTAssertEqual(try store.library.status(of: "missing.pdf"), .unknown)
        XCTAssertEqual(try store.library.statuses().map(\.uid), ["ada.pdf", "charles.pdf", "cjk.pdf"])
        XCTAssertEqual(try store.attachmentTokens().count, 3, "each added file is stored encrypted")
    }

    /// An indexed document's stored original cannot be removed as an attachment (it was, and
    /// the index then pointed at a file that was gone, `verify` saying nothing); removing the
    /// document from the index releases it.
    func testAnIndexedOriginalIsNotRemovedAsAnAttachment() throws {
        let before = try store.attachmentTokens().map(\.id)
        XCTAssertEqual(before.count, 3)
        for id in before {
            XCTAssertThrowsError(try store.removeAttachment(id)) {
                XCTAssertEqual($0 as? AttachmentError, .heldByFeature(id: id, feature: "search"))
            }
            XCTAssertThrowsError(try store.transaction { try $0.removeAttachment(id) })
        }
        XCTAssertEqual(try store.attachmentTokens().map(\.id), before)
        XCTAssertEqual(try store.verify().problems, [])
        XCTAssertEqual(try pages("resume"), ["ada.pdf": [0]])
        try store.library.remove(uid: "ada.pdf")
        XCTAssertEqual(try store.attachmentTokens().count, 2, "released with its index entry")
    }

    func testCaseDiacriticsAndPrefix() throws {
        XCTAssertEqual(try pages("resume"), ["ada.pdf": [0]])
        XCTAssertEqual(try pages("RÉSUMÉ"), ["ada.pdf": [0]])
        XCTAssertEqual(try pages("lovel"), ["ada.pdf": [0]], "words match the words they begin")
        XCTAssertEqual(try pages("engine"), ["ada.pdf": [0], "charles.pdf": [0]])
        XCTAssertEqual(try pages("invoice"), ["ada.pdf": [1], "charles.pdf": [1]])
        var exact = SearchOptions()
        exact.exactWordsOnly = true
        XCTAssertEqual(try pages("lovel", exact), [:])
        XCTAssertEqual(try pages("lovel*", exact), ["ada.pdf": [0]], "an explicit * is always a prefix")
    }

    func testPhrasesExclusionOrAndHyphens() throws {
        XCTAssertEqual(try pages("\"analytical engine\""), ["ada.pdf": [0]])
        XCTAssertEqual(try pages("\"engine analytical\""), [:])
        XCTAssertEqual(try pages("\"equipment payment\""), ["ada.pdf": [1]], "a phrase matches across line breaks")
        XCTAssertEqual(try pages("\"engine invoice\""), [:], "but not across pages")
        XCTAssertEqual(try pages("invoice -paid"), ["ada.pdf": [1]])
        XCTAssertEqual(try pages("invoice -\"marked paid\""), ["ada.pdf": [1]])
        XCTAssertEqual(try pages("babbage OR lovelace"), ["ada.pdf": [0], "charles.pdf": [0]])
        XCTAssertEqual(try pages("state-of-the-art"), ["ada.pdf": [1]])
        XCTAssertEqual(try pages("state-of-the-engine"), [:])
    }

    func testCJK() throws {
        XCTAssertEqual(try pages("東京"), ["cjk.pdf": [0]])
        XCTAssertEqual(try pages("天気"), ["cjk.pdf": [0]])
        XCTAssertEqual(try pages("天气"), ["cjk.pdf": [2]])
        XCTAssertEqual(try pages("날씨는"), ["cjk.pdf": [1]])
        XCTAssertEqual(try pages("京都"), ["cjk.pdf": [0]])
    }

    func testPreviewRangesPointAtTheWordsAsWritten() throws {
        let results = try store.library.search("resume engine")
        let preview = try XCTUnwrap(results.previews.first)
        XCTAssertEqual(preview.uid, "ada.pdf")
        XCTAssertEqual(preview.pageIndex, 0)
        XCTAssertFalse(preview.isAnnotation)
        let words = preview.matchRanges.map { SearchLibraryTestSupport.substring(preview.preview, $0) }
        XCTAssertEqual(words, ["Résumé", "Engine"])
        XCTAssertTrue(preview.preview.hasPrefix("The Résumé"))
        var short = SearchOptions()
        short.previewCharactersBefore = 4
        short.previewLength = 12
        let cut = try XCTUnwrap(try store.library.search("lovelace", options: short).previews.first)
        XCTAssertEqual(cut.preview, "Ada Lovelace")
        XCTAssertEqual(cut.matchRanges, [[4, 12]])
        XCTAssertEqual(cut.pageMatchRanges, [[18, 26]])
        var none = SearchOptions()
        none.includePreviews = false
        XCTAssertEqual(try store.library.search("lovelace", options: none).previews.first?.preview, "")
    }

    func testLimitsAndRanking() throws {
        var options = SearchOptions()
        options.maximumResults = 1
        XCTAssertEqual(try store.library.search("invoice", options: options).previews.count, 1)
        options = SearchOptions()
        options.maximumResultsPerDocument = 1
        let perDocument = try store.library.search("engine OR invoice", options: options)
        XCTAssertEqual(perDocument.previews.count, 2)
        XCTAssertEqual(Set(perDocument.previews.map(\.uid)), ["ada.pdf", "charles.pdf"])
        let ranked = try store.library.search("engine OR analytical OR lovelace")
        XCTAssertEqual(ranked.rankedUIDs.first, "ada.pdf", "the page matching more terms ranks first")
        XCTAssertTrue(zip(ranked.previews, ranked.previews.dropFirst()).allSatisfy { $0.score >= $1.score })
    }

    func testAnnotationsAreKeptApartAndFlagged() throws {
        store.library.configure { $0.extractors["note"] = NoteExtractor() }
        try store.library.add(
            data: Data("first page about otters\n>> reviewer flagged otters\nsecond page\n>> margin: beavers".utf8),
            uid: "notes", fileExtension: "note")
        store.library.waitUntilIdle()
        let all = try store.library.search("otters")
        XCTAssertEqual(all.previews.count, 2)
        XCTAssertEqual(Set(all.previews.map(\.isAnnotation)), [true, false])
        var noAnnotations = SearchOptions()
        noAnnotations.excludeAnnotations = true
        XCTAssertEqual(try store.library.search("beavers", options: noAnnotations).previews, [])
        var onlyAnnotations = SearchOptions()
        onlyAnnotations.excludeDocumentText = true
        let annotation = try XCTUnwrap(try store.library.search("beavers", options: onlyAnnotations).previews.first)
        XCTAssertEqual(annotation.pageIndex, 1)
        XCTAssertEqual(annotation.annotationIndex, 0)
        XCTAssertTrue(annotation.isAnnotation)
        XCTAssertEqual(
            try store.library.search("otters", options: onlyAnnotations).previews.map(\.isAnnotation), [true])
    }

    func testMalformedAndHostileQueriesAreTypedErrorsNeverSQL() throws {
        for bad in ["", "   ", "\"unterminated", "-only", "OR", "*"] {
            XCTAssertThrowsError(try store.library.search(bad)) { error in
                XCTAssertTrue(error is SearchQueryError, "\(bad): \(error)")
            }
        }
        XCTAssertThrowsError(try store.library.search("\"open phrase")) { error in
            XCTAssertEqual(error as? SearchQueryError, .unterminatedQuote(position: 1))
        }
        for hostile in [
            "body:invoice", "invoice NEAR/2 paid", "'; DROP TABLE search_text; --", "^invoice", "(invoice)",
            "invoice\" OR \"x", "*:*", "NOT invoice", "a AND b",
        ] {
            do {
                _ = try store.library.search(hostile)
            } catch {
                XCTAssertTrue(error is SearchQueryError, "\(hostile): \(error)")
            }
        }
        XCTAssertEqual(try pages("invoice"), ["ada.pdf": [1], "charles.pdf": [1]], "the index is intact")
    }

    func testTokenizerChangeRebuildsAndIsRecorded() throws {
        XCTAssertEqual(try store.library.tokenizer(), .standard)
        var exact = SearchOptions()
        exact.exactWordsOnly = true
        XCTAssertEqual(try pages("designs", exact), [:])
        try store.library.setTokenizer(.englishStemming)
        XCTAssertEqual(try pages("designs", exact), ["charles.pdf": [0]], "stemming: designs ~ designed")
        store.close()
        store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        XCTAssertEqual(try store.library.tokenizer(), .englishStemming)
        XCTAssertEqual(try pages("designing", exact), ["charles.pdf": [0]])
    }

    func testRemoveAndClearAndCanary() throws {
        XCTAssertTrue(try store.library.remove(uid: "charles.pdf"))
        XCTAssertFalse(try store.library.remove(uid: "charles.pdf"))
        XCTAssertEqual(try pages("babbage"), [:])
        XCTAssertEqual(try store.attachmentTokens().count, 2, "the stored copy goes with the document")
        let needles = ["Lovelace", "Analytical", "Invoice number 4471", "東京都"].map { Array($0.utf8) }
        XCTAssertEqual(TestSupport.filesContaining(needles, under: path), [])
        store.close()
        XCTAssertEqual(TestSupport.filesContaining(needles, under: path), [])
        store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        try store.library.removeAll()
        XCTAssertEqual(try store.library.statuses().count, 0)
        XCTAssertEqual(try store.attachmentTokens().count, 0)
    }
}

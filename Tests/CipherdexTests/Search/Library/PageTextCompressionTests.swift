import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// The page text kept for previews is stored compressed (search migration 1001): the values, the
/// tables of a new store, a store converted at open, and damaged values.
final class PageTextCompressionTests: XCTestCase {
    private static let longText = String(
        repeating: "The patient’s dose was measured twice; 東京都の病院 — résumé of the analysis.\n", count: 40)

    private func compressed(_ text: String) -> [UInt8]? {
        Array(text.utf8).withUnsafeBytes { PageTextCompression.compressed($0) }
    }

    private func decompressed(_ bytes: [UInt8]) throws -> [UInt8] {
        try bytes.withUnsafeBytes { try PageTextCompression.decompressed($0) }
    }

    private func addText(_ store: Store, _ text: String, uid: String) throws {
        try store.library.add(data: Data(text.utf8), uid: uid, fileExtension: "txt")
        store.library.waitUntilIdle()
    }

    /// `typeof(c0body)` of every stored page text, in docid order.
    private func storedKinds(_ store: Store) throws -> [String] {
        try store.read { db in
            try db.rows("SELECT typeof(c0body) FROM search_text_content ORDER BY docid").map { $0[0].textValue ?? "" }
        }
    }

    func testValuesRoundTripAndShortOrIncompressibleTextIsKeptAsItIs() throws {
        let stored = try XCTUnwrap(compressed(Self.longText))
        XCTAssertEqual(stored.first, PageTextCompression.dictionaryTag)
        XCTAssertLessThan(stored.count, Self.longText.utf8.count / 4)
        XCTAssertEqual(try decompressed(stored), Array(Self.longText.utf8))
        XCTAssertNil(compressed("short page text"))
        var generator = SystemRandomNumberGenerator()
        let noise = String(
            decoding: (0..<4000).map { _ in UInt8.random(in: 0x21...0x7E, using: &generator) }, as: UTF8.self)
        if let noisy = compressed(noise) {
            XCTAssertLessThan(noisy.count, noise.utf8.count)
            XCTAssertEqual(try decompressed(noisy), Array(noise.utf8))
        }
    }

    /// The preset dictionary is the committed file's bytes (it is part of the format), values
    /// made with it name it, and short prose compresses smaller with it than without.
    func testTheDictionaryIsTheFilesBytesAndMakesPagesSmaller() throws {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("tools/page-text-dictionary-v1.txt")
        XCTAssertEqual(PageTextDictionary.bytes, Array(try Data(contentsOf: file)))
        func adler32(_ bytes: [UInt8]) -> UInt32 {
            var a: UInt32 = 1
            var b: UInt32 = 0
            for byte in bytes {
                a = (a + UInt32(byte)) % 65521
                b = (b + a) % 65521
            }
            return b << 16 | a
        }
        // zlib's id of the dictionary, as FORMAT.md gives it.
        let dictionaryID: UInt32 = 0xaedb_fad5
        XCTAssertEqual(adler32(PageTextDictionary.bytes), dictionaryID)
        XCTAssertEqual(PageTextCompression.dictionaryID, UInt(dictionaryID))
        let page = """
            The court should consider whether the patient was informed of the risks, and whether the \
            consent form that was signed on the day of the procedure meets the requirements of the law.
            """
        let withDictionary = try XCTUnwrap(compressed(page))
        let without = try XCTUnwrap(
            Array(page.utf8).withUnsafeBytes { PageTextCompression.compressed($0, dictionary: false) })
        XCTAssertLessThan(withDictionary.count, without.count)
        // The header zlib's wrapper writes at levels 2-5 (deflate, 32 KiB window, FLEVEL 1, FCHECK),
        // with FDICT set and the dictionary's id, or without; then the deflate data; then the
        // text's Adler-32, big-endian.
        XCTAssertEqual(Array(withDictionary[5...6]), [0x78, 0x7D])
        XCTAssertEqual(withDictionary[7...10].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }, dictionaryID)
        XCTAssertEqual(Array(without[5...6]), [0x78, 0x5E])
        for value in [withDictionary, without] {
            XCTAssertEqual((UInt32(value[5]) << 8 | UInt32(value[6])) % 31, 0)
            XCTAssertEqual(value.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }, adler32(Array(page.utf8)))
        }
        XCTAssertEqual(try decompressed(withDictionary), Array(page.utf8))
    }

    /// Values written before the dictionary (tag 1) still read; a tag-1 stream that asks for a
    /// dictionary, or a tag-2 stream that does not, is refused rather than read wrongly.
    func testValuesWithoutTheDictionaryStillReadAndMixedUpTagsAreRefused() throws {
        let older = try XCTUnwrap(
            Array(Self.longText.utf8).withUnsafeBytes { PageTextCompression.compressed($0, dictionary: false) })
        XCTAssertEqual(older.first, PageTextCompression.compressedTag)
        XCTAssertEqual(try decompressed(older), Array(Self.longText.utf8))
        var claimsDictionary = older
        claimsDictionary[0] = PageTextCompression.dictionaryTag
        var lacksDictionary = try XCTUnwrap(compressed(Self.longText))
        lacksDictionary[0] = PageTextCompression.compressedTag
        var trailing = try XCTUnwrap(compressed(Self.longText))
        trailing.append(0)
        for damaged in [claimsDictionary, lacksDictionary, trailing] {
            XCTAssertThrowsError(try decompressed(damaged)) {
                XCTAssertEqual($0 as? PageTextCompression.Failure, .malformed)
            }
        }
    }

    /// One decompressor (as a connection's `cipherdex_uncompress` keeps) reads values of both tags
    /// in turn, and a damaged value between them (a header, the dictionary's id, the data or the
    /// trailer changed, or bytes cut) is refused without spoiling the next one.
    func testOneDecompressorReadsManyValuesInTurnAndRefusesEachDamagedOne() throws {
        let decompressor = PageTextCompression.Decompressor()
        var seeded = SeededWords(seed: 1001)
        let words = ["patient", "dose", "the", "of", "東京", "résumé", "settlement", "analysis"]
        for round in 0..<300 {
            let text = (0..<(20 + round % 200)).map { _ in words[seeded.number(words.count)] }
                .joined(separator: round % 3 == 0 ? "\n" : " ")
            let stored = try XCTUnwrap(
                Array(text.utf8).withUnsafeBytes { PageTextCompression.compressed($0, dictionary: round % 4 != 0) })
            XCTAssertEqual(try stored.withUnsafeBytes { try decompressor.decompressed($0) }, Array(text.utf8))
            // The zlib header at 5, the dictionary's id at 7...10 (tag 2; deflate data for tag 1), the
            // Adler-32 trailer in the last 4 bytes.
            var damaged = stored
            let position = [5, 6, 7, 9, stored.count / 2, stored.count - 1, stored.count - 4][round % 7]
            damaged[position] ^= UInt8(1 << (round % 8))
            let cut = Array(stored.dropLast(1 + round % 4))
            for value in [damaged, cut, stored + [UInt8(round % 256)]] {
                XCTAssertThrowsError(try value.withUnsafeBytes { try decompressor.decompressed($0) }, "round \(round)")
                {
                    XCTAssertEqual($0 as? PageTextCompression.Failure, .malformed)
                }
            }
        }
        XCTAssertEqual(PageTextCompression.dictionaryID, 0xaedb_fad5)
    }

    func testDamagedValuesAreRefused() throws {
        let stored = try XCTUnwrap(compressed(Self.longText))
        var wrongTag = stored
        wrongTag[0] = 3
        var wrongLength = stored
        wrongLength[1] ^= 1
        var flipped = stored
        flipped[stored.count / 2] ^= 0x40
        var huge = stored
        huge[4] = 0x7F
        for damaged in [Array(stored.prefix(5)), Array(stored.dropLast(3)), wrongTag, wrongLength, flipped, huge] {
            XCTAssertThrowsError(try decompressed(damaged)) {
                XCTAssertEqual($0 as? PageTextCompression.Failure, .malformed)
            }
        }
    }

    func testANewStoreKeepsLongPageTextCompressedAndGivesItBackExactly() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        try addText(store, Self.longText, uid: "long.txt")
        try addText(store, "a short note about a dose", uid: "short.txt")
        XCTAssertEqual(try storedKinds(store), ["blob", "text"])
        let bodies = try store.read { db in
            try db.rows("SELECT body FROM search_text ORDER BY docid").map { $0[0].textValue ?? "" }
        }
        XCTAssertEqual(bodies, [Self.longText, "a short note about a dose"])
        let results = try store.library.search("dose")
        XCTAssertEqual(Set(results.documents.keys), ["long.txt", "short.txt"])
        let preview = try XCTUnwrap(results.previews.first { $0.uid == "long.txt" })
        // Every mark is the word (the last one may be cut by the preview's end).
        let marked = preview.matchRanges.map { SearchLibraryTestSupport.substring(preview.preview, $0) }
        XCTAssertFalse(marked.isEmpty)
        XCTAssertTrue(marked.allSatisfy { !$0.isEmpty && "dose".hasPrefix($0) }, "\(marked)")
        XCTAssertEqual(try store.library.search("東京").documents.keys.sorted(), ["long.txt"])
        // Export decompresses: the page text comes out exactly as it went in.
        let output = TestSupport.temporaryPath("export")
        try store.export(to: output)
        let pages = try String(contentsOfFile: output + "/search/pages.jsonl", encoding: .utf8)
        let texts = try pages.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])["text"] as? String
        }
        XCTAssertEqual(Set(texts.compactMap { $0 }), [Self.longText, "a short note about a dose"])
        _ = path
    }

    func testAStoreWrittenBeforeMigration1001IsCompressedAtOpen() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        try addText(store, Self.longText, uid: "long.txt")
        // The table as migration 1000 left it: no compress/uncompress options, the text as TEXT.
        try store.write { db in
            try db.execute("DROP TABLE search_text_terms")
            try db.execute("CREATE VIRTUAL TABLE search_text_old USING fts4(body, tokenize=cipherdex)")
            try db.execute("INSERT INTO search_text_old (docid, body) SELECT docid, body FROM search_text")
            try db.execute("DROP TABLE search_text")
            try db.execute("ALTER TABLE search_text_old RENAME TO search_text")
            try db.execute("CREATE VIRTUAL TABLE search_text_terms USING fts4aux(search_text)")
            try db.execute("DELETE FROM cipherdex_schema WHERE version = 1001")
        }
        XCTAssertEqual(try storedKinds(store), ["text"])
        store.close()
        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        defer { reopened.close() }
        XCTAssertEqual(try reopened.read { try Migrator.currentVersion(of: $0) }, TestSupport.latestSchemaVersion)
        XCTAssertEqual(try storedKinds(reopened), ["blob"])
        let sql = try reopened.read { try $0.scalar("SELECT sql FROM sqlite_master WHERE name = 'search_text'") }
        XCTAssertTrue(sql?.textValue?.contains("compress=cipherdex_compress") ?? false)
        XCTAssertEqual(try reopened.read { try $0.scalar("PRAGMA integrity_check")?.textValue }, "ok")
        // New text goes into the rebuilt table compressed, and both are found.
        try addText(reopened, Self.longText.uppercased(), uid: "upper.txt")
        XCTAssertEqual(try storedKinds(reopened), ["blob", "blob"])
        XCTAssertEqual(try reopened.library.search("measured").documents.keys.sorted(), ["long.txt", "upper.txt"])
        let preview = try XCTUnwrap(reopened.library.search("measured").previews.first)
        let marked = preview.matchRanges.map { SearchLibraryTestSupport.substring(preview.preview, $0) }
        XCTAssertFalse(marked.isEmpty)
        XCTAssertTrue(marked.allSatisfy { !$0.isEmpty && "measured".hasPrefix($0.lowercased()) }, "\(marked)")
        XCTAssertEqual(try reopened.library.search("*ysis").documents.keys.sorted(), ["long.txt", "upper.txt"])
        // Removing the document removes its text (FTS4 reads it back through uncompress).
        try reopened.library.remove(uid: "long.txt")
        XCTAssertEqual(try reopened.library.search("measured").documents.keys.sorted(), ["upper.txt"])
        XCTAssertEqual(try storedKinds(reopened), ["blob"])
    }

    /// A store written before the dictionary (tag-1 values, no record of migration 1003) opens:
    /// the migration is recorded, its old values are still searched and previewed, and new text
    /// is stored with the dictionary.
    func testAStoreWrittenBeforeTheDictionaryOpensAndKeepsItsText() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        try addText(store, Self.longText, uid: "long.txt")
        let older = try XCTUnwrap(
            Array(Self.longText.utf8).withUnsafeBytes { PageTextCompression.compressed($0, dictionary: false) })
        try store.write { db in
            try db.execute("UPDATE search_text_content SET c0body = ?", [.blob(older)])
            try db.execute("DELETE FROM cipherdex_schema WHERE version = 1003")
        }
        store.close()
        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        defer { reopened.close() }
        XCTAssertEqual(
            try reopened.read { try $0.scalar("SELECT name FROM cipherdex_schema WHERE version = 1003")?.textValue },
            "page text dictionary")
        let tags = {
            try reopened.read { db in
                try db.rows("SELECT substr(c0body, 1, 1) FROM search_text_content ORDER BY docid").map {
                    $0[0].blobValue?.first
                }
            }
        }
        XCTAssertEqual(try tags(), [PageTextCompression.compressedTag])
        try addText(reopened, Self.longText.uppercased(), uid: "upper.txt")
        XCTAssertEqual(try tags(), [PageTextCompression.compressedTag, PageTextCompression.dictionaryTag])
        let results = try reopened.library.search("measured")
        XCTAssertEqual(results.documents.keys.sorted(), ["long.txt", "upper.txt"])
        XCTAssertTrue(results.previews.allSatisfy { $0.hasPreview && $0.preview.lowercased().contains("measured") })
    }

    /// Migration 1001 on a store of 400 pages: the rebuild moves the text in batches and reuses
    /// the old index's pages, so the file does not grow (a second copy of the index would).
    func testTheMigrationDoesNotGrowTheFile() throws {
        let (store, path) = try SearchLibraryTestSupport.store()
        let pages = (0..<400).map { "Page \($0): " + Self.longText.prefix(1500) }.joined(separator: "\u{0C}")
        try addText(store, pages, uid: "book.txt")
        try store.write { db in
            try db.execute("DROP TABLE search_text_terms")
            try db.execute("CREATE VIRTUAL TABLE search_text_old USING fts4(body, tokenize=cipherdex)")
            try db.execute("INSERT INTO search_text_old (docid, body) SELECT docid, body FROM search_text")
            try db.execute("DROP TABLE search_text")
            try db.execute("ALTER TABLE search_text_old RENAME TO search_text")
            try db.execute("CREATE VIRTUAL TABLE search_text_terms USING fts4aux(search_text)")
            try db.execute("DELETE FROM cipherdex_schema WHERE version = 1001")
        }
        try store.write { try $0.execute("VACUUM") }
        store.close()
        let database = path + "/store.db"
        let before = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: database)[.size] as? Int)
        let reopened = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(7)))
        XCTAssertEqual(try storedKinds(reopened).count, 400)
        XCTAssertEqual(Set(try storedKinds(reopened)), ["blob"])
        XCTAssertEqual(try reopened.library.search("\"page 399\"").documents.keys.sorted(), ["book.txt"])
        reopened.close()
        let after = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: database)[.size] as? Int)
        // A few pages for the new tables and FTS4's merges; a second copy of the index would be ~+50%.
        XCTAssertLessThanOrEqual(
            after, before + before / 8, "the migration grew the file from \(before) to \(after) bytes")
    }

    func testADamagedStoredValueIsAnErrorNotWrongText() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        try addText(store, Self.longText, uid: "long.txt")
        try store.write { db in
            try db.execute("UPDATE search_text_content SET c0body = substr(c0body, 1, 40)")
        }
        XCTAssertThrowsError(try store.library.search("dose"))
    }
}

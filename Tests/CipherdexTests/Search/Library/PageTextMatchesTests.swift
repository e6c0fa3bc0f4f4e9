import CipherdexPDFWriter
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `PageTextMatches`: the rows read on the connection's thread and inflated and located on a
/// helper as well give exactly what one thread gives (and what `cipherdex_uncompress` gives), the
/// same errors for damaged values, and a cancelled read returns only rows it finished.
final class PageTextMatchesTests: XCTestCase {
    /// A store of 300 pages: long ones (stored compressed) and short ones (stored as TEXT).
    private func store() throws -> Store {
        let (store, _) = try SearchLibraryTestSupport.store()
        let corpus = SampleCorpus(documentCount: 6, pagesPerDocument: 40)
        for (number, document) in corpus.documents.enumerated() {
            let pages = document.pages.enumerated().map {
                $0.offset % 5 == 4 ? "the patient dose \($0.offset)" : $0.element
            }
            try store.library.add(
                data: Data(pages.joined(separator: "\u{0C}").utf8), uid: "doc-\(number).txt", fileExtension: "txt")
        }
        try store.library.add(
            data: Data(Array(repeating: "short patient page", count: 60).joined(separator: "\u{0C}").utf8),
            uid: "short.txt", fileExtension: "txt")
        store.library.waitUntilIdle()
        return store
    }

    private func docids(_ store: Store) throws -> [Int64] {
        try store.read { db in
            try db.rows("SELECT docid FROM search_text_content ORDER BY docid").compactMap { $0[0].integerValue }
        }
    }

    private func read(
        _ docids: [Int64], match: String, helper: Bool, store: Store, isCancelled: @escaping () -> Bool = { false }
    ) throws -> [Int64: (String, [Range<Int>])] {
        try store.read { db in
            try PageTextMatches.read(
                docids, occurrences: nil, match: match, stemming: false, windowCharacters: nil, db: db, helper: helper,
                isCancelled: isCancelled)
        }
    }

    private func assertSame(
        _ left: [Int64: (String, [Range<Int>])], _ right: [Int64: (String, [Range<Int>])], _ message: String,
        line: UInt = #line
    ) {
        XCTAssertEqual(Set(left.keys), Set(right.keys), message, line: line)
        for (docid, (body, ranges)) in left {
            XCTAssertEqual(right[docid]?.0, body, "\(message): docid \(docid)", line: line)
            XCTAssertEqual(right[docid]?.1, ranges, "\(message): docid \(docid)", line: line)
        }
    }

    func testTheHelperGivesWhatOneThreadGivesAndWhatSQLiteGives() throws {
        let store = try store()
        defer { store.close() }
        let all = try docids(store)
        XCTAssertEqual(all.count, 300)
        let kinds = try store.read { db in
            try db.rows("SELECT typeof(c0body), count(*) FROM search_text_content GROUP BY 1").map {
                $0[0].textValue ?? ""
            }
        }
        XCTAssertEqual(Set(kinds), ["text", "blob"], "both kinds of stored value are read")
        // Bodies as SQLite's own function gives them.
        let expected = try store.read { db in
            try db.rows("SELECT docid, cipherdex_uncompress(c0body) FROM search_text_content").reduce(
                into: [Int64: String]()
            ) {
                $0[$1[0].integerValue ?? 0] = $1[1].textValue ?? ""
            }
        }
        var rng = SystemRandomNumberGenerator()
        for count in [0, 1, 8, 23, 24, 25, 100, 499, 500, 501, all.count] {
            // Some docids that are not there are left out.
            let chosen = Array(all.shuffled(using: &rng).prefix(count)) + [-5, 1_000_000]
            for match in ["\"patient\"", "\"the\"* \"dose\"*", "\"of\" \"the\""] {
                let inline = try read(chosen, match: match, helper: false, store: store)
                let helped = try read(chosen, match: match, helper: true, store: store)
                assertSame(inline, helped, "\(count) rows, \(match)")
                XCTAssertEqual(inline.count, min(count, all.count))
                for (docid, (body, _)) in helped { XCTAssertEqual(body, expected[docid], "docid \(docid)") }
            }
        }
    }

    func testADamagedValueAmongManyIsTheErrorSQLiteReports() throws {
        let store = try store()
        defer { store.close() }
        let all = try docids(store)
        let victim = try store.read { db in
            try db.scalar(
                "SELECT docid FROM search_text_content WHERE typeof(c0body) = 'blob' ORDER BY docid LIMIT 1 OFFSET 150")?
                .integerValue
        }
        try store.write { db in
            try db.execute(
                "UPDATE search_text_content SET c0body = substr(c0body, 1, 40) WHERE docid = \(try XCTUnwrap(victim))")
        }
        for helper in [false, true] {
            XCTAssertThrowsError(try read(all, match: "\"patient\"", helper: helper, store: store)) { error in
                guard case .sqlite(let code, _, let message, _, _) = error as? DatabaseError else {
                    return XCTFail("\(error)")
                }
                XCTAssertEqual(code, 1)
                XCTAssertEqual(message, "the stored page text is damaged (not a compressed value)")
            }
        }
        try store.write { db in
            try db.execute("UPDATE search_text_content SET c0body = 42 WHERE docid = \(try XCTUnwrap(victim))")
        }
        for helper in [false, true] {
            XCTAssertThrowsError(try read(all, match: "\"patient\"", helper: helper, store: store)) { error in
                guard case .sqlite(_, _, let message, _, _) = error as? DatabaseError else {
                    return XCTFail("\(error)")
                }
                XCTAssertEqual(message, "the stored page text is damaged (not TEXT or a BLOB)")
            }
        }
    }

    /// Text is read up to its first NUL, where FTS4's tokenizer stops (a row edited to hold one:
    /// the library stores none); invalid UTF-8 is repaired as SQLite text is read.
    func testTextEndsAtItsFirstNULAsFTS4CutsIt() throws {
        let store = try store()
        defer { store.close() }
        let all = try docids(store)
        try store.write { db in
            try db.execute(
                "UPDATE search_text_content SET c0body = CAST(x'70617469656e7400646f7365' AS TEXT) WHERE docid = \(all[3])"
            )
            try db.execute(
                "UPDATE search_text_content SET c0body = CAST(x'70617469656e74ff2064c3' AS TEXT) WHERE docid = \(all[4])"
            )
        }
        let before = try store.read { db in
            try (3...4).map {
                try db.scalar("SELECT c0body FROM search_text_content WHERE docid = ?", [.integer(all[$0])])?.textValue
            }
        }
        for helper in [false, true] {
            let read = try read(all, match: "\"patient\"", helper: helper, store: store)
            XCTAssertEqual(read[all[3]]?.0, "patient")
            XCTAssertEqual(before[0], "patient\u{0}dose", "the row holds the whole text")
            XCTAssertEqual(read[all[4]]?.0, before[1])
            XCTAssertEqual(read[all[4]]?.1, [0..<7])
        }
    }

    /// Cancelled after some rows: only finished rows come back, each as an uncancelled read gives it.
    func testACancelledReadReturnsOnlyRowsItFinished() throws {
        let store = try store()
        defer { store.close() }
        let all = try docids(store)
        let whole = try read(all, match: "\"patient\"", helper: true, store: store)
        for stopAfter in [0, 1, 30, 200] {
            var asked = 0
            let part = try read(all, match: "\"patient\"", helper: true, store: store) {
                asked += 1
                return asked > stopAfter
            }
            XCTAssertLessThanOrEqual(part.count, stopAfter)
            for (docid, (body, ranges)) in part {
                XCTAssertEqual(whole[docid]?.0, body)
                XCTAssertEqual(whole[docid]?.1, ranges)
            }
        }
    }
}

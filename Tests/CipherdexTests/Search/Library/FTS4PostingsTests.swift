import CipherdexTestSupport
import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Issue 12: a one-token query's rows read straight from FTS4's segments give exactly what FTS4's
/// own cursor and `matchinfo` give, through every state FTS4 leaves its segments in: many segments
/// and levels, rows updated and deleted in later segments, incremental merges stopped half-way,
/// one optimized segment whose b-tree has interior nodes above interior nodes.
final class FTS4PostingsTests: XCTestCase {
    private var store: Store!
    private var storePath = ""
    private var generator = SeededWords(seed: 42)

    override func setUpWithError() throws {
        (store, storePath) = try SearchLibraryTestSupport.store()
    }

    override func tearDown() {
        store?.close()
    }

    /// Terms of every kind: common, rare, absent, shared prefixes, one letter, folded forms.
    private let probes: [(term: String, prefix: Bool)] = [
        ("patient", false), ("patient", true), ("pat", true), ("p", true), ("a", true), ("the", false),
        ("the", true), ("zz", true), ("zzzz", false), ("ete", false), ("ete", true), ("w17", true), ("w1", true),
        ("w170", false), ("ab", true), ("x", true),
    ]

    /// FTS4's answer: each row's hits and the whole doclist's (`matchinfo 'x'`).
    private func fromFTS4(_ term: String, prefix: Bool) throws -> FTS4Postings.Matches {
        try fromFTS4Match("\"" + term + (prefix ? "*" : "") + "\"")
    }

    private func fromFTS4Match(_ match: String) throws -> FTS4Postings.Matches {
        try store.read { db in try Self.fts4Matches(match, table: "search_text", db: db) }
    }

    /// FTS4's rows and hits for `match` (`matchinfo 'x'`), and a check that the doclist's total
    /// FTS4 reports in every row is the sum of the rows' hits (what `Matches.totalHits` gives).
    static func fts4Matches(
        _ match: String, table: String, db: Connection, file: StaticString = #filePath, line: UInt = #line
    ) throws -> FTS4Postings.Matches {
        var matches = FTS4Postings.Matches()
        var reported: Set<UInt32> = []
        try db.forEachRowView(
            "SELECT docid, matchinfo(\(table), 'x') FROM \(table) WHERE \(table) MATCH ? ORDER BY docid", [.text(match)]
        ) { row in
            matches.docids.append(row.integer(0))
            row.withBytes(1) { raw in
                matches.hits.append(raw.loadUnaligned(fromByteOffset: 0, as: UInt32.self))
                reported.insert(raw.loadUnaligned(fromByteOffset: 4, as: UInt32.self))
            }
        }
        if !matches.docids.isEmpty {
            XCTAssertEqual(reported, [UInt32(matches.totalHits)], match, file: file, line: line)
        }
        return matches
    }

    /// An unencrypted database in a new temporary folder (removed by the caller's `defer`).
    static func plainDatabase(_ prefix: String) throws -> (Connection, String) {
        let directory = TemporaryDirectory.make(prefix: prefix)
        return (
            try Connection(path: directory + "/plain.db", mode: .writer, key: nil, cipher: nil, create: true), directory
        )
    }

    /// The direct reading, the same whether a term's doclists are added up as lists, in slots
    /// from the first doclist, or in slots once they are long enough (the default), and whether
    /// they are decoded on the reading thread or every one on a helper (`DoclistPipeline`).
    private func direct(
        _ term: String, prefix: Bool, file: StaticString = #filePath, line: UInt = #line
    ) throws -> FTS4Postings.Matches? {
        try store.read { db in
            let bytes = Array(term.utf8)
            let usual = try FTS4Postings.matches(of: bytes, prefix: prefix, db: db)
            let lists = try FTS4Postings.matches(of: bytes, prefix: prefix, denseFrom: .max, db: db)
            let slots = try FTS4Postings.matches(of: bytes, prefix: prefix, denseFrom: 0, db: db)
            XCTAssertEqual(lists, usual, "\(term) as lists", file: file, line: line)
            XCTAssertEqual(slots, usual, "\(term) in slots", file: file, line: line)
            for divisor in [2, .max, 0] {
                let handedOff = try FTS4Postings.matches(
                    of: bytes, prefix: prefix, denseFrom: divisor, handOffBytes: 0, db: db)
                XCTAssertEqual(
                    handedOff, usual, "\(term) decoded on a helper, denseFrom \(divisor)", file: file, line: line)
                let inline = try FTS4Postings.matches(
                    of: bytes, prefix: prefix, denseFrom: divisor, handOffBytes: .max, db: db)
                XCTAssertEqual(inline, usual, "\(term) decoded as read, denseFrom \(divisor)", file: file, line: line)
            }
            return usual
        }
    }

    /// Phrases of every kind: repeated tokens, prefixes, three tokens, absent.
    private let phrases = [
        "the patient", "patient the", "pat* the", "the the", "w1* w2*", "a ab", "x x x", "the* a", "zz zz",
        "a w17 patient",
    ]

    /// Runs `body` in a read whose connection has a `ReadCompanion` (a second reader of the
    /// store), as a read of a one-shot search process has.
    private func readWithCompanion<T>(_ body: (Connection) throws -> T) throws -> T {
        let store = self.store!
        let companion = ReadCompanion {
            let connection = try Connection(
                path: store.layout.database, mode: .reader, key: store.dataKey?.sqlcipherRawKeyLiteral(),
                cipher: store.metadata.withLock { $0.cipher })
            try store.configuration.configureConnection(connection)
            return connection
        }
        defer { companion.close() }
        return try store.read { db in
            db.readCompanion = (companion, companion.begin())
            defer {
                db.readCompanion = nil
                companion.end()
            }
            return try body(db)
        }
    }

    private func assertSameAsFTS4(_ label: String, file: StaticString = #filePath, line: UInt = #line) throws {
        for phrase in phrases {
            let expected = try fromFTS4Match("\"" + phrase + "\"")
            let tokens = TopHits.indexTokens(phrase[...], stemming: false)
            let actual = try store.read { db in try FTS4Postings.phraseMatches(tokens, db: db) }
            XCTAssertEqual(actual, expected, "\(label): \"\(phrase)\"", file: file, line: line)
            let fromBothEnds = try readWithCompanion { db in
                try FTS4Postings.phraseMatches(tokens, db: db, bothEndsFrom: 0)
            }
            XCTAssertEqual(fromBothEnds, expected, "\(label): \"\(phrase)\" from both ends", file: file, line: line)
        }
        var nonEmpty = 0
        for probe in probes {
            let expected = try fromFTS4(probe.term, prefix: probe.prefix)
            let actual = try direct(probe.term, prefix: probe.prefix)
            XCTAssertEqual(actual, expected, "\(label): \(probe)", file: file, line: line)
            if !expected.docids.isEmpty { nonEmpty += 1 }
        }
        XCTAssertGreaterThan(nonEmpty, 10, label, file: file, line: line)
    }

    /// Rows of words from a skewed vocabulary: a few very common words, shared prefixes, `w0`…`w3999`.
    private func page(words count: Int) -> String {
        (0..<count).map { _ in generator.word() }.joined(separator: " ")
    }

    private func insertRows(_ range: Range<Int>, perTransaction: Int, uniqueWords: Int = 0) throws {
        for start in Swift.stride(from: range.lowerBound, to: range.upperBound, by: perTransaction) {
            try store.write { db in
                try db.transaction {
                    for docid in start..<min(start + perTransaction, range.upperBound) {
                        try db.execute(
                            "INSERT INTO search_text (docid, body) VALUES (?, ?)",
                            [
                                .integer(Int64(docid)),
                                .text(
                                    page(words: 20 + docid % 90) + (0..<uniqueWords).map { " u\(docid)x\($0)" }.joined()
                                ),
                            ])
                    }
                }
            }
        }
    }

    private func segmentCount() throws -> Int {
        try store.read { db in Int(try db.scalar("SELECT count(*) FROM search_text_segdir")?.integerValue ?? 0) }
    }

    func testSameRowsAndHitsAsFTS4ThroughSegmentsDeletesMergesAndOptimize() throws {
        try insertRows(1..<1201, perTransaction: 20)
        XCTAssertGreaterThan(try segmentCount(), 3)
        try assertSameAsFTS4("60 transactions")

        // Rows changed and removed in later segments: their old entries must be shadowed.
        try store.write { db in
            try db.transaction {
                for docid in Swift.stride(from: 3, to: 1200, by: 7) {
                    try db.execute(
                        "UPDATE search_text SET body = ? WHERE docid = ?",
                        [.text(page(words: 30)), .integer(Int64(docid))])
                }
                try db.execute("DELETE FROM search_text WHERE docid % 11 = 0")
            }
        }
        try insertRows(1201..<1301, perTransaction: 5)
        try assertSameAsFTS4("after updates and deletes")

        // The lowest and highest rows deleted: their entries in older segments, and the deletions
        // in newer ones, are outside the table's docids (`DenseTermHits` keeps them as lists).
        try store.write { db in
            try db.transaction { try db.execute("DELETE FROM search_text WHERE docid <= 4 OR docid > 1290") }
        }
        try assertSameAsFTS4("after the first and last rows were deleted")

        // Incremental merges stopped after a few leaves each: half-merged segments.
        for step in 0..<4 {
            try store.write { db in try db.execute("INSERT INTO search_text(search_text) VALUES('merge=2,2')") }
            try assertSameAsFTS4("incremental merge step \(step)")
        }

        // One segment (with this store's page size, its root is an interior node over leaves;
        // deeper trees: `testDeepTreesOfSmallPages`).
        try insertRows(1301..<2001, perTransaction: 300, uniqueWords: 20)
        try store.write { db in try db.execute("INSERT INTO search_text(search_text) VALUES('optimize')") }
        XCTAssertEqual(try segmentCount(), 1)
        try assertSameAsFTS4("optimized")
    }

    /// A term's segments read from both ends (`SegmentsFromBothEnds`: the oldest by a helper on
    /// the read's companion connection) give `body` the same doclists in the same order as one
    /// connection reading them all, and stop where it stops when `body` refuses one. The reading
    /// thread is slowed (a sleep a doclist) so that the helper takes segments.
    func testSegmentsReadFromBothEndsGiveTheSameDoclistsInOrder() throws {
        try insertRows(1..<801, perTransaction: 20)
        XCTAssertGreaterThan(try segmentCount(), 5)
        var fromTheHelper = 0
        for probe in probes {
            let term = Array(probe.term.utf8)
            var plain: [([UInt8], [UInt8])] = []
            let plainRead = try store.read { db in
                try FTS4Postings.forEachDoclist(of: term, prefix: probe.prefix, table: "search_text", db: db) {
                    plain.append(($0, Array($1.bindMemory(to: UInt8.self))))
                    return true
                }
            }
            XCTAssertTrue(plainRead)
            for (stopAt, wholeSegments) in [(Int.max, false), (plain.count / 2, false), (Int.max, true)] {
                var both: [([UInt8], [UInt8])] = []
                let (read, helped) = try readWithCompanion { db -> (Bool, Int) in
                    var segments: [[UInt8]] = []
                    try db.forEachRowView("SELECT root FROM search_text_segdir ORDER BY level ASC, idx DESC") {
                        segments.append($0.withBytes(0) { Array($0) })
                    }
                    let (companion, number) = try XCTUnwrap(db.readCompanion)
                    let reader = SegmentsFromBothEnds(segments: segments, companion: companion, read: number)
                    // The helper's segments handed on whole (a phrase moves their pages in).
                    let takeCopies: ((SegmentsFromBothEnds.Copies) -> Bool)? = { copies in
                        for (found, range) in zip(copies.terms, copies.ranges) {
                            let bytes = UnsafeRawBufferPointer(
                                start: copies.chunk.baseAddress + range.lowerBound, count: range.count)
                            both.append((found, Array(bytes.bindMemory(to: UInt8.self))))
                        }
                        return true
                    }
                    let read = try reader.forEachDoclist(
                        of: TermPattern(bytes: term, prefix: probe.prefix), table: "search_text", db: db, startBytes: 0,
                        takeCopies: wholeSegments ? takeCopies : nil
                    ) { found, doclist in
                        guard both.count < stopAt else { return false }
                        both.append((found, Array(doclist.bindMemory(to: UInt8.self))))
                        usleep(2_000)
                        return true
                    }
                    return (read, reader.segmentsFromTheHelper)
                }
                let expected = Array(plain.prefix(stopAt))
                XCTAssertEqual(read, stopAt >= plain.count, "\(probe), stopping at \(stopAt), whole \(wholeSegments)")
                XCTAssertEqual(both.map(\.0), expected.map(\.0), "\(probe), stopping at \(stopAt): terms")
                XCTAssertEqual(both.map(\.1), expected.map(\.1), "\(probe), stopping at \(stopAt): doclists")
                fromTheHelper += helped
            }
        }
        XCTAssertGreaterThan(fromTheHelper, 0, "the helper read segments")
    }

    /// An ends-with or inner pattern's doclists (a scan of every leaf) read from both ends are
    /// those one connection reads, in order, and its rows the same whichever way they are read.
    func testPatternsReadFromBothEndsAsOnOneConnection() throws {
        try insertRows(1..<801, perTransaction: 20)
        var fromTheHelper = 0
        for (text, kind) in [("ent", TermPattern.Kind.suffix), ("7", .suffix), ("atie", .infix), ("w1", .infix)] {
            let pattern = TermPattern(bytes: Array(text.utf8), kind: kind)
            var plain: [([UInt8], [UInt8])] = []
            let (plainRead, plainMatches) = try store.read { db in
                (
                    try FTS4Postings.forEachDoclist(of: pattern, table: "search_text", db: db) {
                        plain.append(($0, Array($1.bindMemory(to: UInt8.self))))
                        return true
                    }, try FTS4Postings.matches(of: pattern, db: db)
                )
            }
            XCTAssertTrue(plainRead)
            XCTAssertFalse(plain.isEmpty, text)
            var both: [([UInt8], [UInt8])] = []
            let (read, helped, matches) = try readWithCompanion { db -> (Bool, Int, FTS4Postings.Matches?) in
                var segments: [[UInt8]] = []
                try db.forEachRowView("SELECT root FROM search_text_segdir ORDER BY level ASC, idx DESC") {
                    segments.append($0.withBytes(0) { Array($0) })
                }
                let (companion, number) = try XCTUnwrap(db.readCompanion)
                let reader = SegmentsFromBothEnds(segments: segments, companion: companion, read: number)
                let read = try reader.forEachDoclist(of: pattern, table: "search_text", db: db, startBytes: 0) {
                    both.append(($0, Array($1.bindMemory(to: UInt8.self))))
                    usleep(2_000)
                    return true
                }
                return (read, reader.segmentsFromTheHelper, try FTS4Postings.matches(of: pattern, db: db))
            }
            XCTAssertTrue(read, text)
            XCTAssertEqual(both.map(\.0), plain.map(\.0), "\(text): terms")
            XCTAssertEqual(both.map(\.1), plain.map(\.1), "\(text): doclists")
            XCTAssertEqual(matches, plainMatches, text)
            fromTheHelper += helped
        }
        XCTAssertGreaterThan(fromTheHelper, 0, "the helper read segments")
    }

    /// A segment the helper claimed but could not read (its connection is to a database without
    /// the index) is read again by the reading thread: the same doclists, in the same order.
    func testSegmentsTheHelperCannotReadAreReadAgain() throws {
        try insertRows(1..<401, perTransaction: 20)
        let (elsewhere, directory) = try Self.plainDatabase("elsewhere")
        let elsewherePath = elsewhere.path
        elsewhere.close()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let companion = ReadCompanion { try Connection(path: elsewherePath, mode: .reader, key: nil, cipher: nil) }
        defer { companion.close() }
        let term = Array("the".utf8)
        var plain: [[UInt8]] = []
        XCTAssertTrue(
            try store.read { db in
                try FTS4Postings.forEachDoclist(of: term, prefix: true, table: "search_text", db: db) {
                    plain.append(Array($1.bindMemory(to: UInt8.self)))
                    return true
                }
            })
        var both: [[UInt8]] = []
        // (Segments whose root is their only leaf need no table: the helper reads those.)
        let (read, readAgain) = try store.read { db -> (Bool, Int) in
            db.readCompanion = (companion, companion.begin())
            defer {
                db.readCompanion = nil
                companion.end()
            }
            var segments: [[UInt8]] = []
            try db.forEachRowView("SELECT root FROM search_text_segdir ORDER BY level ASC, idx DESC") {
                segments.append($0.withBytes(0) { Array($0) })
            }
            let (companion, number) = try XCTUnwrap(db.readCompanion)
            let reader = SegmentsFromBothEnds(segments: segments, companion: companion, read: number)
            let read = try reader.forEachDoclist(
                of: TermPattern(bytes: term, prefix: true), table: "search_text", db: db, startBytes: 0
            ) {
                both.append(Array($1.bindMemory(to: UInt8.self)))
                usleep(2_000)
                return true
            }
            return (read, reader.segmentsReadAgain)
        }
        XCTAssertTrue(read)
        XCTAssertEqual(both, plain)
        XCTAssertGreaterThan(readAgain, 0, "the helper claimed segments it could not read")
    }

    /// Through a one-shot search process's pool (`readsOnWriter`): the read's companion is the
    /// pool's own, and phrases read from both ends count what FTS4 counts.
    func testPhrasesOnAOneShotSearchPoolCountAsFTS4Does() throws {
        try insertRows(1..<601, perTransaction: 20)
        var expected: [String: FTS4Postings.Matches] = [:]
        for phrase in phrases { expected[phrase] = try fromFTS4Match("\"" + phrase + "\"") }
        store.close()
        var configuration = TestSupport.configuration(storePath, key: TestSupport.rawKey(7))
        configuration.readsOnWriter = true
        store = try Store.open(configuration)
        for phrase in phrases {
            let tokens = TopHits.indexTokens(phrase[...], stemming: false)
            let actual = try store.read { db in
                XCTAssertNotNil(db.readCompanion)
                return try FTS4Postings.phraseMatches(tokens, db: db, bothEndsFrom: 0)
            }
            XCTAssertEqual(actual, expected[phrase], "\"\(phrase)\"")
        }
    }

    /// An FTS4 table (simple tokenizer) in an unencrypted database of 512-byte pages, so that a few
    /// thousand rows make b-trees three and four levels high.
    func testDeepTreesOfSmallPages() throws {
        let (db, directory) = try Self.plainDatabase("fts4-deep")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try db.execute("PRAGMA journal_mode = DELETE")
        try db.execute("PRAGMA page_size = 512")
        try db.execute("VACUUM")
        try db.execute("CREATE VIRTUAL TABLE deep USING fts4(body)")
        func compare(_ label: String) throws {
            for probe in probes {
                let expected = try Self.fts4Matches(
                    "\"" + probe.term + (probe.prefix ? "*" : "") + "\"", table: "deep", db: db)
                for divisor in [2, 0, .max] {
                    let actual = try FTS4Postings.matches(
                        of: Array(probe.term.utf8), prefix: probe.prefix, table: "deep", denseFrom: divisor, db: db)
                    XCTAssertEqual(actual, expected, "\(label): \(probe), dense from \(divisor)")
                }
            }
            for phrase in ["the patient", "pat* the", "a ab", "w1* w2*", "the the"] {
                let expected = try Self.fts4Matches("\"" + phrase + "\"", table: "deep", db: db)
                let tokens = phrase.split(separator: " ").map {
                    FTS4Postings.PhraseToken(
                        bytes: Array($0.utf8.filter { $0 != UInt8(ascii: "*") }), prefix: $0.hasSuffix("*"))
                }
                let actual = try FTS4Postings.phraseMatches(tokens, table: "deep", db: db)
                XCTAssertEqual(actual, expected, "\(label): \"\(phrase)\"")
            }
        }
        var words = SeededWords(seed: 7)
        for start in Swift.stride(from: 1, to: 3001, by: 250) {
            try db.transaction {
                for docid in start..<(start + 250) {
                    let text = (0..<40).map { _ in words.word() } + (0..<15).map { "u\(docid)x\($0)" }
                    try db.execute(
                        "INSERT INTO deep (docid, body) VALUES (?, ?)",
                        [.integer(Int64(docid)), .text(text.joined(separator: " "))])
                }
            }
        }
        try db.transaction { try db.execute("DELETE FROM deep WHERE docid % 9 = 0") }
        try compare("12 segments")
        try db.execute("INSERT INTO deep(deep) VALUES('merge=20,2')")
        try compare("half-merged")
        try db.execute("INSERT INTO deep(deep) VALUES('optimize')")
        let height = try db.scalar("SELECT root FROM deep_segdir")?.blobValue?.first ?? 0
        XCTAssertGreaterThanOrEqual(height, 2, "interior nodes under the root")
        try compare("optimized, height \(height)")
    }

    func testTopHitsGivesTheSameHitsEitherWay() throws {
        try insertRows(1..<801, perTransaction: 40)
        try store.write { db in
            try db.transaction { try db.execute("DELETE FROM search_text WHERE docid % 13 = 0") }
        }
        // In a transaction, so that `search_page_runs` is written before the commit.
        try store.write { db in
            try db.transaction {
                try db.execute(
                    "INSERT INTO search_pages (rowid, uid, page_index, kind, ordinal) SELECT docid, 'doc-' || (docid / 10), docid % 10, 0, 0 FROM search_text"
                )
            }
        }
        let queries = [
            "patient", "pat*", "the", "a", "w17", "Été", "patient -the", "pat -w1 -ab", "patient -\"the patient\"",
            "zzzz", "patient OR w17", "pat* OR w1* OR x -the", "patient w17", "pat* OR x w1* -the", "a ab abc",
            "\"the patient\" w17", "\"pat the\" OR \"a ab\" -\"x x\"", "\"w1 w2\"",
            "w17 OR w17", "patient OR \"the patient\"",
            "\"the patient\"",
        ]
        for query in queries {
            for limit in [1, 10, 500] {
                var options = SearchOptions()
                options.maximumResults = limit
                let (direct, viaFTS4) = try store.read { db in
                    let compiled = try SearchQuery.parse(query).compiled()
                    return (
                        try TopHits.select(compiled, options: options, db: db),
                        try TopHits.select(compiled, options: options, db: db, directPostings: false)
                    )
                }
                XCTAssertEqual(direct.matchedRows, viaFTS4.matchedRows, query)
                XCTAssertEqual(direct.hits.map(\.docid), viaFTS4.hits.map(\.docid), query)
                XCTAssertEqual(direct.hits.map(\.score), viaFTS4.hits.map(\.score), query)
                XCTAssertEqual(direct.hits.map(\.matchInfo), viaFTS4.hits.map(\.matchInfo), query)
            }
        }
        // The stemming tokenizer: the query's tokens are stemmed as the index's are.
        try store.library.setTokenizer(.englishStemming)
        for query in ["patients", "patiently OR w17", "\"the patients\"", "pat* -paths", "Été"] {
            let (direct, viaFTS4) = try store.read { db in
                let compiled = try SearchQuery.parse(query).compiled(stemming: true)
                return (
                    try TopHits.select(compiled, options: SearchOptions(), db: db),
                    try TopHits.select(compiled, options: SearchOptions(), db: db, directPostings: false)
                )
            }
            XCTAssertGreaterThan(viaFTS4.matchedRows, 0, query)
            XCTAssertEqual(direct.matchedRows, viaFTS4.matchedRows, query)
            XCTAssertEqual(direct.hits.map(\.docid), viaFTS4.hits.map(\.docid), query)
            XCTAssertEqual(direct.hits.map(\.score), viaFTS4.hits.map(\.score), query)
        }
        let oneToken = try store.read { db in
            try TopHits.directRows(try SearchQuery.parse("pat -w1").compiled(), db: db) != nil
        }
        XCTAssertTrue(oneToken, "a one-token query is read directly")
        // A common word alone stays in its slots (scored slot by slot, above, with the same hits);
        // with an exclusion or another clause its rows are gathered.
        for (query, slotted) in [("the", true), ("pat*", true), ("the -w17", false), ("the patient", false)] {
            let direct = try store.read { db in try TopHits.directRows(try SearchQuery.parse(query).compiled(), db: db)
            }
            XCTAssertEqual(direct?.slots != nil, slotted, query)
        }
        let phrase = try store.read { db in
            try TopHits.directRows(try SearchQuery.parse("\"the patient\" OR pat -\"a ab\"").compiled(), db: db) != nil
        }
        XCTAssertTrue(phrase, "phrases are read directly")
        let alternatives = try store.read { db in
            try TopHits.directRows(try SearchQuery.parse("patient OR w17 -the").compiled(), db: db) != nil
        }
        XCTAssertTrue(alternatives, "one-token alternatives are read directly")
    }

    /// FTS4 may defer a common token of an AND (test it against each row's text instead of reading
    /// its doclist), and then counts it as in every row (`x` = N, N). The direct read counts its
    /// real hits and rows, as BM25's definition says; the rows and each row's hits are the same.
    /// Here the token is in every row, so the rows (and every score) agree; only the total hits,
    /// which BM25 does not use, differ.
    func testPiecesInSlotsCombineAsListsDo() throws {
        try insertRows(1..<1201, perTransaction: 60)
        try store.write { db in
            try db.transaction { try db.execute("DELETE FROM search_text WHERE docid % 11 = 0") }
        }
        let shared: [UInt32] = [0, 1, 1100, 50, 0]
        // Pieces of common words and prefixes, all in slots; clauses of one or several pieces;
        // exclusions of one or several.
        let cases: [(clauses: [[String]], excluded: [String])] = [
            ([["patient"], ["the"]], []), ([["patient", "the"]], []), ([["patient"]], ["the"]),
            ([["pat*", "a"], ["the"]], ["ab*"]), ([["the"], ["a"], ["pat*"]], ["patient", "ab*"]),
            ([["a"]], ["a"]),
        ]
        try store.read { (db: Connection) throws -> Void in
            func rows(_ piece: String) throws -> FTS4Postings.TermRows {
                try XCTUnwrap(TopHits.termRows(piece[...], stemming: false, db: db), piece)
            }
            for (clauses, excluded) in cases {
                let pieces = try clauses.map { try $0.map(rows) }
                let exclusions = try excluded.map(rows)
                for piece in pieces.joined() + exclusions {
                    guard case .slotted(_, let rest) = piece, rest.docids.isEmpty else {
                        return XCTFail("\(clauses) -\(excluded): a piece not in slots")
                    }
                }
                let slotted = try XCTUnwrap(TopHits.slotCombined(pieces, excluded: exclusions, shared: shared))
                let listed = try XCTUnwrap(TopHits.listCombined(pieces, excluded: exclusions, shared: shared))
                let label = "\(clauses) -\(excluded)"
                XCTAssertEqual(slotted.docids, listed.docids, label)
                XCTAssertEqual(slotted.hits, listed.hits, label)
                XCTAssertEqual(slotted.shared, listed.shared, label)
                if excluded == ["a"] {
                    XCTAssertTrue(slotted.docids.isEmpty, "a word less itself: no row")
                } else {
                    XCTAssertFalse(slotted.docids.isEmpty, label)
                }
            }
            // A piece in lists (a rare word): merged as lists.
            let rare = try rows("w170")
            if case .listed = rare {
                XCTAssertNil(TopHits.slotCombined([[try rows("the")], [rare]], excluded: [], shared: shared))
            } else {
                XCTFail("a rare word in slots")
            }
        }
    }

    func testADeferredTokenIsCountedByItsRealRows() throws {
        try store.write { db in
            try db.transaction {
                for docid in 1...60_000 {
                    let rare = docid % 20_000 == 0 ? " rare" : ""
                    try db.execute(
                        "INSERT INTO search_text (docid, body) VALUES (?, ?)",
                        [.integer(Int64(docid)), .text("common common words of page \(docid) common" + rare)])
                }
            }
        }
        func fromFTS4(_ match: String, _ db: Connection) throws -> [[UInt32]] {
            var rows: [[UInt32]] = []
            try db.forEachRowView(
                "SELECT matchinfo(search_text, 'pcnax') FROM search_text WHERE search_text MATCH ? ORDER BY docid",
                [.text(match)]
            ) { row in
                rows.append(
                    row.withBytes(0) { raw in
                        (0..<(raw.count / 4)).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) }
                    })
            }
            return rows
        }
        let compiled = try SearchQuery.parse("rare common").compiled()
        let (direct, viaFTS4, alone) = try store.read { db in
            (
                try XCTUnwrap(TopHits.directRows(compiled, db: db)), try fromFTS4(compiled.match, db),
                try fromFTS4("\"common*\"", db)
            )
        }
        XCTAssertEqual(viaFTS4.count, 3)
        XCTAssertEqual(direct.docids.count, 3)
        let trueCommon = Array(try XCTUnwrap(alone.first)[5...6])  // hits and rows of `common` alone
        XCTAssertEqual(trueCommon, [180_000, 60_000])
        for (index, fts4) in viaFTS4.enumerated() {
            let row = direct.matchInfo(index, length: 0)
            // p, c, n, a; then the row's hits of each phrase.
            XCTAssertEqual(Array(row[0..<4]), Array(fts4[0..<4]))
            XCTAssertEqual([row[5], row[8]], [fts4[4], fts4[7]])
            XCTAssertEqual(Array(row[9...10]), trueCommon, "the direct read: `common`'s real rows")
            XCTAssertEqual(Array(fts4[8...9]), [60_000, 60_000], "FTS4 deferred `common`: every row")
        }
    }

    func testClausesAreReadAsSearchQueryWritesThem() throws {
        XCTAssertEqual(TopHits.clausePieces("\"a*\""), [["a*"]])
        XCTAssertEqual(TopHits.clausePieces("\"a*\" OR \"b\" \"c d\""), [["a*", "b"], ["c d"]])
        XCTAssertEqual(TopHits.clausePieces("\"a\" \"b\" OR \"c\""), [["a"], ["b", "c"]])
        XCTAssertNil(TopHits.clausePieces("a"))
        XCTAssertNil(TopHits.clausePieces("\"a\" AND \"b\""))
        XCTAssertNil(TopHits.clausePieces("\"a"))
        XCTAssertNil(TopHits.clausePieces(""))
        let compiled = try SearchQuery.parse("alpha OR beta* gamma -delta").compiled()
        XCTAssertEqual(TopHits.clausePieces(compiled.match), [["alpha*", "beta*"], ["gamma*"]])
    }

    func testTheWriterConnectionIsLeftToFTS4() throws {
        try insertRows(1..<50, perTransaction: 49)
        let compiled = try SearchQuery.parse("patient").compiled()
        let onWriter = try store.write { db in try TopHits.directRows(compiled, db: db) != nil }
        XCTAssertFalse(onWriter, "the writer may hold pending terms FTS4 has not written to its segments")
    }

    /// `combined` against a plain reference, with docids dense (counted in arrays) and sparse
    /// (merged lists), each term's segments overlapping (a newer one re-writes rows) or in
    /// disjoint runs of docids (as a bulk-built index's are), or some of each.
    func testCombiningTermsAndSegmentsMatchesAPlainReference() {
        var random = SeededWords(seed: 5)
        for spread in [1, 3, 1_000_003] as [Int64] {
            for round in 0..<60 {
                var terms: [[Postings]] = []
                for _ in 0..<(1 + random.number(5)) {
                    var lists: [Postings] = []
                    // Round 0 of 3: overlapping; 1: each list in a band of its own; 2: either.
                    let banded = round % 3 == 1 || (round % 3 == 2 && random.number(2) == 0)
                    for list in 0..<(1 + random.number(4)) {
                        var docids = Set<Int64>()
                        for _ in 0..<random.number(60) {
                            let docid = banded ? 1 + list * 200 + random.number(200) : 1 + random.number(200)
                            docids.insert(Int64(docid) * spread)
                        }
                        let sorted = docids.sorted()
                        lists.append(Postings(docids: sorted, hits: sorted.map { _ in UInt32(random.number(4)) }))
                    }
                    terms.append(lists)
                }
                var expected: [Int64: UInt32] = [:]
                for lists in terms {
                    var seen = Set<Int64>()
                    for list in lists {
                        for (docid, hits) in zip(list.docids, list.hits) where seen.insert(docid).inserted {
                            expected[docid, default: 0] += hits
                        }
                    }
                }
                let kept = expected.filter { $0.value > 0 }.sorted { $0.key < $1.key }
                let actual = FTS4Postings.combined(terms)
                XCTAssertEqual(actual.docids, kept.map(\.key), "spread \(spread)")
                XCTAssertEqual(actual.hits, kept.map(\.value), "spread \(spread)")
            }
        }
        let list = { (docids: [Int64]) in Postings(docids: docids, hits: docids.map { _ in 1 }) }
        XCTAssertTrue(FTS4Postings.disjoint([list([5, 9]), list([]), list([1, 4]), list([10])]))
        XCTAssertFalse(FTS4Postings.disjoint([list([5, 9]), list([9, 12])]), "a shared end is an overlap")
        XCTAssertFalse(FTS4Postings.disjoint([list([1, 20]), list([7])]), "one inside another")
    }

    /// Hostile nodes give nil (FTS4 then answers, and reports the damage), never a crash or a
    /// loop: a child no lower than its parent, varints cut short, child ids at the top of Int64.
    func testNodesThatDoNotParseAreRefused() throws {
        let (db, directory) = try Self.plainDatabase("fts4-hostile")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try db.execute("CREATE TABLE h_segments (blockid INTEGER PRIMARY KEY, block BLOB)")
        try db.execute("INSERT INTO h_segments VALUES (5, x'0205'), (6, x'0000')")
        func range(_ node: [UInt8]) throws -> FTS4Postings.LeafRange? {
            try FTS4Postings.leafRange(of: Array("a".utf8), prefix: true, node: node, table: "h", db: db)
        }
        XCTAssertNil(try range([0x02, 0x05]), "block 5 is its own child: refused, not recursed into")
        XCTAssertNil(try range([0x02, 0x06]), "a leaf under a node of height 2")
        XCTAssertNil(try range([0x01, 0x02, 0x01, 0x61, 0x80]), "a varint cut short")
        XCTAssertNil(try range([0x01]), "no first child")
        XCTAssertNil(
            try range([0x01, 0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x01, 0x62, 0x00, 0x01, 0x63]),
            "child ids past Int64.max")
        XCTAssertEqual(try range([0x00]), .root)
        // Docids at both ends of Int64: merged, not counted in arrays (their range overflows).
        XCTAssertEqual(
            FTS4Postings.combined([[Postings(docids: [Int64.min, Int64.max], hits: [1, 2])]]).docids,
            [Int64.min, Int64.max])
    }

    func testDoclistsThatDoNotParseAreRefused() {
        func parse(_ bytes: [UInt8]) -> Postings? { bytes.withUnsafeBytes { Postings(doclist: $0) } }
        XCTAssertEqual(parse([5, 2, 3, 0, 2, 4, 0, 1, 0]), Postings(docids: [5, 7, 8], hits: [2, 1, 0]))
        XCTAssertNil(parse([5, 2, 3]), "a position list that does not end")
        XCTAssertNil(parse([5, 2, 0, 0, 2, 0]), "docids that do not ascend")
        XCTAssertNil(parse([5, 1, 1, 2, 0]), "a second column")
        XCTAssertNil(parse([5, 0x80]), "a varint cut short")
        XCTAssertEqual(parse([]), Postings())
    }

    /// Slots give what lists give (`combined`), on random doclists of up to 40 terms (the first 32
    /// in slots, the others as lists), segments overlapping or not, deleted rows, and docids
    /// outside the slots; a doclist that does not parse is refused; bounds that would need too
    /// many slots make none.
    func testSlotsAddUpAsListsDo() {
        var generator = SystemRandomNumberGenerator()
        /// A doclist of these rows: docid deltas, then `hits` positions (deltas of 2) or none.
        func doclist(_ rows: [(Int64, UInt32)]) -> [UInt8] {
            var bytes: [UInt8] = []
            var previous: Int64 = 0
            for (docid, hits) in rows {
                var delta = UInt64(bitPattern: docid &- previous)
                previous = docid
                while delta >= 0x80 {
                    bytes.append(UInt8(delta & 0x7F) | 0x80)
                    delta >>= 7
                }
                bytes.append(UInt8(delta))
                bytes += [UInt8](repeating: 2, count: Int(hits)) + [0]
            }
            return bytes
        }
        for trial in 0..<300 {
            let low = Int64.random(in: 1...50, using: &generator)
            let high = low + Int64.random(in: 0...300, using: &generator)
            guard let slots = DenseTermHits(low: low, high: high) else {
                return XCTFail("no slots for \(low)...\(high)")
            }
            var terms: [[Postings]] = []
            var listed: [[Postings]] = []
            for term in 0..<Int.random(in: 1...40, using: &generator) {
                var lists: [Postings] = []
                for _ in 0..<Int.random(in: 1...4, using: &generator) {
                    // Rows from below the slots to past them; 0 hits: a deletion.
                    let docids = (0..<Int.random(in: 0...60, using: &generator)).map { _ in
                        Int64.random(in: 1...(high + 40), using: &generator)
                    }
                    let rows = Set(docids).sorted().map { ($0, UInt32.random(in: 0...5, using: &generator)) }
                    let list = doclist(rows).withUnsafeBytes { Postings(doclist: $0) }
                    guard let list else { return XCTFail("trial \(trial): a doclist did not parse") }
                    lists.append(list)
                    if term < DenseTermHits.maximumTerms {
                        if trial % 2 == 0 {
                            XCTAssertTrue(doclist(rows).withUnsafeBytes { slots.add($0, term: term) })
                        } else {
                            slots.add(list, term: term)
                        }
                    }
                }
                terms.append(lists)
                if term >= DenseTermHits.maximumTerms { listed.append(lists) }
            }
            let expected = FTS4Postings.combined(terms)
            XCTAssertEqual(
                slots.matches(adding: FTS4Postings.combined(listed + slots.outside)), expected, "trial \(trial)")
        }
        guard let slots = DenseTermHits(low: 10, high: 20) else { return XCTFail("no slots") }
        for damaged: [UInt8] in [[12, 2, 3], [12, 2, 0, 0, 2, 0], [12, 1, 1, 2, 0], [12, 0x80]] {
            XCTAssertFalse(damaged.withUnsafeBytes { slots.add($0, term: 0) }, "\(damaged)")
        }
        XCTAssertNil(DenseTermHits(low: Int64.min, high: Int64.max), "a range that overflows")
        XCTAssertNil(DenseTermHits(low: 0, high: Int64(DenseTermHits.maximumSlots)), "one slot too many")
        XCTAssertNil(DenseTermHits(low: 5, high: 4), "no slot")
        XCTAssertEqual(
            DenseTermHits.added(
                FTS4Postings.Matches(docids: [1, 3], hits: [1, UInt32.max]),
                FTS4Postings.Matches(docids: [2, 3], hits: [4, 1])),
            FTS4Postings.Matches(docids: [1, 2], hits: [1, 4]), "hits that wrap to 0, as `combined` adds them")
    }

    /// The position list read eight bytes at a time is the bytewise reading, on random bytes of
    /// every kind (terminators, column markers, varints continued across words, lists cut short).
    func testPositionListsReadEightBytesAtATimeAsBytewise() {
        var generator = SystemRandomNumberGenerator()
        let kinds: [ClosedRange<UInt8>] = [0...1, 2...0x7F, 0x80...0xFF]
        for trial in 0..<20_000 {
            let length = Int.random(in: 0...40, using: &generator)
            let weights = (trial % 3 == 0) ? [1, 6, 4] : [1, 30, 20]
            let bytes: [UInt8] = (0..<length).map { _ in
                let pick = Int.random(in: 0..<weights.reduce(0, +), using: &generator)
                let kind = pick < weights[0] ? 0 : pick < weights[0] + weights[1] ? 1 : 2
                return UInt8.random(in: kinds[kind], using: &generator)
            }
            let start = length == 0 ? 0 : Int.random(in: 0...length, using: &generator)
            let end = Int.random(in: start...length, using: &generator)
            bytes.withUnsafeBufferPointer { buffer in
                let fast = Postings.positionList(buffer, from: start, end: end)
                let slow = Postings.positionListBytewise(buffer, from: start, end: end, count: 0, continuing: false)
                XCTAssertEqual(fast?.end, slow?.end, "\(bytes) from \(start) to \(end)")
                XCTAssertEqual(fast?.count, slow?.count, "\(bytes) from \(start) to \(end)")
            }
        }
    }
}

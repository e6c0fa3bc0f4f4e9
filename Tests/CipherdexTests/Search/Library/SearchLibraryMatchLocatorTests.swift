import CipherdexPDFWriter
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `MatchLocator` (match offsets computed in Swift) against FTS4 `offsets()`, which previews used
/// before: the same byte ranges, in the same order, duplicates included, for every matching page
/// of many compiled queries over generated English pages and random mixed-script pages, with and
/// without stemming, scanning whole pages and stopping after the occurrences matchinfo counts.
final class SearchLibraryMatchLocatorTests: XCTestCase {
    typealias SplitMix = SearchTokenizerEquivalenceTests.SplitMix

    /// Pages: the benchmark's English corpus, random mixed-script texts and a few crafted ones.
    static let pages: [String] = {
        var pages = SampleCorpus(documentCount: 20, pagesPerDocument: 12).documents.flatMap(\.pages)
        var rng = SplitMix(state: 0xFACE)
        for _ in 0..<200 {
            pages.append(SearchTokenizerEquivalenceTests.randomText(&rng, count: Int.random(in: 1...120, using: &rng)))
        }
        pages += [
            "the the the the patient the patient patient", "of the of the of the court of the court",
            "東京都庁は新宿にあります。東京都の東京", "猫 猫が好き 猫猫猫", "한국어 문서 검색 한국", "Crème brûlée ÉCOLE école ecole",
            "State-of-the-art, state of the art: STATE OF THE ART", "don't dont don ’t do'nt",
            "running runs runner ran",
            "ﬁnance finance FINANCE Ｆｉｎａｎｃｅ", "σοφία ΣΟΦΊΑ σοφια", "3.14 314 3 14 2024 ref3x7 ref3x70",
        ]
        return pages
    }()

    /// Queries as users type them (the benchmark's and the syntax's corner cases).
    static let fixedQueries = [
        "the", "patient", "analysis", "ana*", "\"of the\"", "\"the patient\"", "\"water sample\"", "patient dose",
        "court witness",
        "biopsy OR affidavit", "cardiology -lovelace", "geology -rock", "state-of-the-art", "\"state of the art\"",
        "don't", "crème",
        "ecole", "東京", "東京都", "東", "猫", "猫が", "한국어", "running", "connect*", "\"the the\"", "\"the the the\"", "a", "e",
        "x*", "t*", "\"of the court\"", "court OR court", "the \"the patient\"", "patient \"the patient\" the", "σοφία",
        "ﬁnance",
        "3.14", "2024", "ref3x7", "\"ref3x7\"", "of OR the OR court", "\"patient dose\" OR \"court witness\"",
        "th* pa*",
    ]

    /// Random queries from page text: runs of consecutive words, as words, phrases or prefixes.
    static func randomQueries(count: Int) -> [(String, SearchQuery.Options)] {
        var rng = SplitMix(state: 0xBEEF)
        var queries: [(String, SearchQuery.Options)] = []
        while queries.count < count {
            let page = pages.randomElement(using: &rng)!
            let tokens = SearchTokenizer.tokens(in: page)
            guard !tokens.isEmpty else { continue }
            let utf8 = Array(page.utf8)
            var terms: [String] = []
            for _ in 0..<Int.random(in: 1...3, using: &rng) {
                let start = Int.random(in: 0..<tokens.count, using: &rng)
                let length = min(Int.random(in: 1...4, using: &rng), tokens.count - start)
                var words = tokens[start..<(start + length)].map { String(decoding: utf8[$0.byteRange], as: UTF8.self) }
                if rng.next() % 3 == 0, let last = words.last, last.count > 2 {
                    words[words.count - 1] =
                        String(last.prefix(Int.random(in: 1...(last.count - 1), using: &rng))) + "*"
                }
                terms.append(
                    words.count > 1 || rng.next() % 2 == 0 ? "\"" + words.joined(separator: " ") + "\"" : words[0])
            }
            let text = terms.joined(separator: rng.next() % 3 == 0 ? " OR " : " ")
            var options: SearchQuery.Options = []
            if rng.next() % 3 == 0 { options.insert(.exactWords) }
            if rng.next() % 3 == 0 { options.insert(.exactPhrases) }
            queries.append((text, options))
        }
        return queries
    }

    /// A database with `search_text` (the library's table) filled with `pages` (docid = index + 1).
    private func makeIndex(stemming: Bool) throws -> Connection {
        let connection = try SearchTestSupport.connection()
        let tokenizer = stemming ? SearchTokenizer.stemmingName : SearchTokenizer.name
        try connection.execute("CREATE VIRTUAL TABLE search_text USING fts4(body, tokenize=\(tokenizer))")
        try connection.transaction {
            for (index, page) in Self.pages.enumerated() {
                // As the library stores page text: no NUL (FTS4's tokenizer would stop there).
                try connection.execute(
                    "INSERT INTO search_text (docid, body) VALUES (?, ?)",
                    [.integer(Int64(index + 1)), .text(SearchIndexWriter.indexable(page))])
            }
        }
        return connection
    }

    func testLocatorMatchesFTSOffsets() throws {
        var queries = Self.fixedQueries.map { ($0, SearchQuery.Options()) }
        queries += Self.fixedQueries.map { ($0, SearchQuery.Options([.exactWords, .exactPhrases])) }
        queries += Self.randomQueries(count: 160)
        for stemming in [false, true] {
            let db = try makeIndex(stemming: stemming)
            var comparedRows = 0
            var comparedRanges = 0
            for (number, (text, options)) in queries.enumerated() {
                guard let query = try? SearchQuery.parse(text, options: options),
                    let compiled = try? query.compiled(stemming: stemming)
                else { continue }
                var locator = MatchLocator(match: compiled.match, stemming: stemming)
                var docids: [Int64] = []
                var occurrences: [[Int]?] = []
                try db.forEachRow(
                    """
                    SELECT docid, body, offsets(search_text), matchinfo(search_text, 'pcnalx') FROM search_text
                    WHERE search_text MATCH ?
                    """, [.text(compiled.match)]
                ) { row in
                    let docid = row[0].integerValue ?? 0
                    docids.append(docid)
                    let info = (row[3].blobValue ?? []).withUnsafeBytes { raw in
                        (0..<(raw.count / 4)).map { raw.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self) }
                    }
                    let counts = SearchLibrary.phraseOccurrences(matchInfo: info)
                    XCTAssertEqual(counts?.count, locator.phraseCount, compiled.match)
                    occurrences.append(counts)
                    var body = row[1].textValue ?? ""
                    let numbers = (row[2].textValue ?? "").split(separator: " ").compactMap { Int($0) }
                    let expected = stride(from: 0, to: numbers.count - 3, by: 4).map {
                        numbers[$0 + 2]..<(numbers[$0 + 2] + numbers[$0 + 3])
                    }
                    let located = body.withUTF8 { locator.byteRanges(in: $0) }
                    XCTAssertEqual(
                        located, expected, "query \(text) (\(compiled.match)), stemming \(stemming), docid \(docid)")
                    // Stopping after the last occurrence matchinfo counts gives the same.
                    let early = body.withUTF8 { locator.byteRanges(in: $0, occurrences: counts) }
                    XCTAssertEqual(
                        early, expected,
                        "early stop: query \(text) (\(compiled.match)), stemming \(stemming), docid \(docid)")
                    comparedRows += 1
                    comparedRanges += expected.count
                }
                // The library's two paths, end to end, on up to 500 of the matching rows (every
                // fourth query: the FTS path is slow in a debug build).
                guard number % 4 == 0 else { continue }
                let kept = Array(docids.prefix(500))
                let fast = try SearchLibrary.bodiesAndMatches(
                    of: kept, occurrences: Array(occurrences.prefix(500)), match: compiled.match, stemming: stemming,
                    db: db)
                // The same on the calling thread alone (no helper thread).
                let alone = try SearchLibrary.bodiesAndMatches(
                    of: kept, occurrences: Array(occurrences.prefix(500)), match: compiled.match, stemming: stemming,
                    db: db,
                    helper: false)
                let slow = try SearchLibrary.bodiesAndOffsets(of: kept, match: compiled.match, db: db)
                XCTAssertEqual(Set(fast.keys), Set(slow.keys), text)
                XCTAssertEqual(Set(alone.keys), Set(slow.keys), text)
                for (docid, (body, ranges)) in slow {
                    XCTAssertEqual(fast[docid]?.0, body, text)
                    XCTAssertEqual(fast[docid]?.1, ranges, text)
                    XCTAssertEqual(alone[docid]?.0, body, text)
                    XCTAssertEqual(alone[docid]?.1, ranges, text)
                }
            }
            XCTAssertGreaterThan(comparedRows, 10_000)
            XCTAssertGreaterThan(comparedRanges, 25_000)
        }
    }
}

extension SearchLibrary {
    /// The original text and the matched byte ranges (from FTS `offsets()`) of the given rows:
    /// what `bodiesAndMatches` computes, the slow way: the oracle of these tests.
    static func bodiesAndOffsets(of docids: [Int64], match: String, db: Connection) throws -> [Int64: (
        String, [Range<Int>]
    )] {
        var result: [Int64: (String, [Range<Int>])] = [:]
        for start in stride(from: 0, to: docids.count, by: 500) {
            let slice = Array(docids[start..<min(start + 500, docids.count)])
            let placeholders = Array(repeating: "?", count: slice.count).joined(separator: ",")
            try db.forEachRow(
                "SELECT docid, body, offsets(search_text) FROM search_text WHERE search_text MATCH ? AND docid IN (\(placeholders))",
                [.text(match)] + slice.map { .integer($0) }
            ) { row in
                let numbers = (row[2].textValue ?? "").split(separator: " ").compactMap { Int($0) }
                var ranges: [Range<Int>] = []
                var index = 0
                while index + 3 < numbers.count {
                    ranges.append(numbers[index + 2]..<(numbers[index + 2] + numbers[index + 3]))
                    index += 4
                }
                result[row[0].integerValue ?? 0] = (row[1].textValue ?? "", ranges)
            }
        }
        return result
    }
}

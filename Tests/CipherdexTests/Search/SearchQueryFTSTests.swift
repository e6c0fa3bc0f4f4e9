import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Compiled queries against real FTS4 tables, including adversarial input.
final class SearchQueryFTSTests: XCTestCase {
    /// Documents (rowid = index + 1).
    static let documents = [
        "Invoice due date March; the invoice is overdue",
        "Draft invoice, old copy of the contract",
        "State-of-the-art encryption for documents",
        "東京都庁は新宿にあります",
        "私は猫が好きです",
        "한국어 문서 검색 테스트",
        "Crème brûlée recipe from the École",
        "running connections quickly",
        "content secret NEAR AND OR NOT words",
        "this is a quick test of the csv parser; each row is a record",
        "this is a test. The csv row below",
    ]

    /// A connection with table `t` (plain) and `s` (stemming), both filled.
    private func makeTables() throws -> Connection {
        let connection = try SearchTestSupport.connection()
        try connection.execute("CREATE VIRTUAL TABLE t USING fts4(content, tokenize=cipherdex)")
        try connection.execute("CREATE VIRTUAL TABLE s USING fts4(content, tokenize=cipherdex_stem)")
        for document in Self.documents {
            try connection.execute("INSERT INTO t(content) VALUES (?)", [.text(document)])
            try connection.execute("INSERT INTO s(content) VALUES (?)", [.text(document)])
        }
        return connection
    }

    /// Rowids for a user query.
    private func search(_ connection: Connection, _ text: String, _ options: SearchQuery.Options = [], table: String = "t") throws -> [Int64] {
        let condition = try SearchQuery.parse(text, options: options).compiled(stemming: table == "s").condition(table: table)
        return try connection.rows("SELECT rowid FROM \(table) WHERE \(condition.sql) ORDER BY rowid", condition.arguments)
            .compactMap { $0[0].integerValue }
    }

    /// With `.exactPhrases` the whole search string is one exact phrase (PDFLibrary's
    /// `matchExactPhrasesOnly`).
    func testExactPhrasesMakeTheWholeStringOnePhrase() throws {
        let connection = try makeTables()
        XCTAssertEqual(try search(connection, "this is a test"), [10, 11])
        XCTAssertEqual(try search(connection, "this is a test", .exactPhrases), [11])
        XCTAssertEqual(try search(connection, "csv row"), [10, 11])
        XCTAssertEqual(try search(connection, "csv row", .exactPhrases), [11])
        XCTAssertEqual(try search(connection, "csv ro", .exactPhrases), [])
        XCTAssertEqual(try search(connection, "\"csv row\" -below", .exactPhrases), [11])
        XCTAssertEqual(try search(connection, "csv OR row", .exactPhrases), [])
        XCTAssertEqual(try search(connection, "  CSV   row ", .exactPhrases), [11])
        XCTAssertThrowsError(try SearchQuery.parse("   ", options: .exactPhrases))
        XCTAssertThrowsError(try SearchQuery.parse("\" - *", options: .exactPhrases))
    }

    /// Words, prefixes, phrases, exclusions, OR, hyphens and CJK behave as documented.
    func testSemantics() throws {
        let connection = try makeTables()
        XCTAssertEqual(try search(connection, "invoice"), [1, 2])
        XCTAssertEqual(try search(connection, "inv"), [1, 2])
        XCTAssertEqual(try search(connection, "inv", .exactWords), [])
        XCTAssertEqual(try search(connection, "inv*", .exactWords), [1, 2])
        XCTAssertEqual(try search(connection, "invoice -draft"), [1])
        XCTAssertEqual(try search(connection, "invoice -\"old copy\""), [1])
        XCTAssertEqual(try search(connection, "\"due da\""), [1])
        XCTAssertEqual(try search(connection, "\"due da\"", .exactPhrases), [])
        XCTAssertEqual(try search(connection, "\"due date\"", .exactPhrases), [1])
        XCTAssertEqual(try search(connection, "\"date due\""), [])
        XCTAssertEqual(try search(connection, "contract OR encryption"), [2, 3])
        XCTAssertEqual(try search(connection, "contract OR encryption documents"), [3])
        XCTAssertEqual(try search(connection, "state-of-the-art"), [3])
        XCTAssertEqual(try search(connection, "state-the-art"), [])
        XCTAssertEqual(try search(connection, "CREME brulee"), [7])
        XCTAssertEqual(try search(connection, "東京都"), [4])
        XCTAssertEqual(try search(connection, "新宿"), [4])
        XCTAssertEqual(try search(connection, "京都庁"), [4])
        XCTAssertEqual(try search(connection, "京都府"), [])
        XCTAssertEqual(try search(connection, "猫"), [5])
        XCTAssertEqual(try search(connection, "猫が好き"), [5])
        XCTAssertEqual(try search(connection, "검색"), [6])
        XCTAssertEqual(try search(connection, "한국어 -검색"), [])
        XCTAssertEqual(try search(connection, "NEAR", .exactWords), [9])
        XCTAssertEqual(try search(connection, "content:secret"), [9])
        XCTAssertEqual(try search(connection, "run", table: "s"), [8])
        XCTAssertEqual(try search(connection, "connected", .exactWords, table: "s"), [8])
        XCTAssertEqual(try search(connection, "connections", table: "s"), [8])
    }

    /// Hostile input never makes SQLite fail: each query either throws `SearchQueryError` at parse
    /// time or runs cleanly against both tables.
    func testAdversarialInputNeverCausesSQLErrors() throws {
        let connection = try makeTables()
        var inputs = [
            "\"", "\"\"", "\"\"\"", "\" \"", "-", "--", "-\"\"", "*", "**", "a*b*c", "*a", "a**", "^", "^a", "a^b",
            "(", ")", "()", "(a", "a)", "(a OR b)", "a AND b", "a NOT b", "NOT a", "AND", "NEAR", "a NEAR b",
            "a NEAR/3 b", "NEAR/0", "a NEAR/-1 b", "content:a", "t:a", "rowid:1", "docid:1", ":a", "a:", "::",
            "'", "''", "'; DROP TABLE t; --", "\" OR 1=1 --", "\\\"a", "a\\", "%", "_", "a%b", "\u{0}", "a\u{0}b",
            "\u{FFFD}", "\u{202E}evil", "e\u{301}\u{301}\u{301}", "🏳️‍🌈 flag", "ㅤ", "\u{200B}a\u{200B}", "ﷺ",
            "a OR OR", "OR OR", "a - - b", "-a -b", "a -\"\"", "\"a\" -\"\"", "\"-a\"", "\"a OR b\"", "\"NEAR\"",
            "\"a*\"*", "a\"b\"c", "\"a\"\"b\"", "x*y", "東京*", "*東京", "\"東京 OR 大阪\"", "-東京 大阪",
            "matchinfo(t)", "snippet(t)", "t MATCH 'x'", "x') OR 1=1 --", "{a b}", "[a]", "a|b", "a&b", "a~b",
            "1e999", "-1", "0x41", "NaN", String(repeating: "(", count: 500), String(repeating: "\"a\" ", count: 70),
            String(repeating: "a OR ", count: 30) + "b", String(repeating: "東", count: 999), String(repeating: "-x ", count: 40) + "y",
            (0..<32).map { "w\($0) OR v\($0)" }.joined(separator: " "), (0..<63).map { "-x\($0)" }.joined(separator: " ") + " y",
            (0..<64).map { "\"p\($0) q\($0)\"" }.joined(separator: " "),
        ]
        // Every printable ASCII character alone, doubled, and around a word.
        for value in 0x21...0x7E {
            let character = String(UnicodeScalar(UInt8(value)))
            inputs += [character, character + character, "a" + character, character + "a", "a" + character + "b", "a " + character + " b"]
        }
        var parsed = 0, rejected = 0
        for input in inputs {
            for options: SearchQuery.Options in [[], [.exactWords, .exactPhrases]] {
                let query: SearchQuery
                do {
                    query = try SearchQuery.parse(input, options: options)
                } catch is SearchQueryError {
                    rejected += 1
                    continue
                }
                parsed += 1
                for table in ["t", "s"] {
                    let compiled: CompiledSearchQuery
                    do {
                        compiled = try query.compiled(stemming: table == "s")
                    } catch is SearchQueryError {
                        continue
                    }
                    for expression in [compiled.match, compiled.exclusion ?? ""] {
                        XCTAssertFalse(expression.contains(":"), expression)
                        XCTAssertFalse(expression.contains("NEAR/"), expression)
                        XCTAssertFalse(expression.contains("("), expression)
                        XCTAssertFalse(expression.contains("^"), expression)
                        XCTAssertFalse(expression.contains("-"), expression)
                    }
                    let condition = compiled.condition(table: table)
                    do {
                        _ = try connection.rows("SELECT rowid, snippet(\(table)), cipherdex_bm25(matchinfo(\(table), 'pcnalx')) FROM \(table) WHERE \(condition.sql)",
                                                condition.arguments)
                    } catch {
                        XCTFail("query \(input.debugDescription) → \(compiled) failed: \(error)")
                    }
                }
            }
        }
        XCTAssertGreaterThan(parsed, 100)
        XCTAssertGreaterThan(rejected, 10)
    }

    /// Random strings over a hostile alphabet: parse or reject, never an SQL error.
    func testRandomisedHostileQueries() throws {
        let connection = try makeTables()
        let alphabet = Array("ab東京 \"-*():^'OR NEAR/AND\\%_\u{301}한").map(String.init) + ["OR", " OR ", "NEAR/2", "content:"]
        var generator = SplitMix64(seed: 0xC1DE)
        for _ in 0..<1500 {
            let length = Int(generator.next() % 12) + 1
            let input = (0..<length).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }.joined()
            guard let query = try? SearchQuery.parse(input), let compiled = try? query.compiled() else { continue }
            let condition = compiled.condition(table: "t")
            XCTAssertNoThrow(try connection.rows("SELECT rowid FROM t WHERE \(condition.sql)", condition.arguments), "\(input.debugDescription) → \(compiled)")
        }
    }
}


import Foundation
// libFuzzer target: the search-query parser and compiler against real FTS4 tables
// (FuzzTesting/README.md).
import FuzzSupport

@testable import Cipherdex
@testable import CipherdexStore

/// One connection for the whole run, with a plain and a stemming FTS4 table holding a few rows.
nonisolated(unsafe) private var tables: Connection?

private func makeTables() -> Connection {
    let path = NSTemporaryDirectory() + "cipherdex-fuzz-query-\(getpid()).db"
    try? FileManager.default.removeItem(atPath: path)
    do {
        let connection = try Connection(path: path, mode: .writer, key: nil, cipher: nil, create: true)
        try connection.registerSearchSupport()
        try connection.execute("CREATE VIRTUAL TABLE t USING fts4(content, tokenize=cipherdex)")
        try connection.execute("CREATE VIRTUAL TABLE s USING fts4(content, tokenize=cipherdex_stem)")
        for text in ["Invoice due date March", "東京都庁は新宿にあります", "Crème brûlée, l'École", "NEAR AND OR NOT 3.14"] {
            try connection.execute("INSERT INTO t(content) VALUES (?)", [.text(text)])
            try connection.execute("INSERT INTO s(content) VALUES (?)", [.text(text)])
        }
        return connection
    } catch {
        fatalError("cannot create the FTS tables: \(error)")
    }
}

/// First byte: options and table; the rest, decoded as UTF-8 (repaired): the query. Parsing
/// either throws `SearchQueryError` or compiles to a condition that FTS4 runs without error.
private func fuzzQuery(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let start, count > 0 else { return 0 }
    let control = start[0]
    let text = String(decoding: UnsafeBufferPointer(start: start + 1, count: count - 1), as: UTF8.self)
    let options = SearchQuery.Options(rawValue: Int(control & 3))
    let stemming = control & 4 != 0
    let condition: (sql: String, arguments: [SQLValue])
    do {
        condition = try SearchQuery.parse(text, options: options).compiled(stemming: stemming)
            .condition(table: stemming ? "s" : "t")
    } catch is SearchQueryError {
        return 0
    } catch {
        fatalError("query parser threw a non-SearchQueryError: \(error)")
    }
    let connection = tables ?? makeTables()
    tables = connection
    do {
        _ = try connection.rows("SELECT rowid FROM \(stemming ? "s" : "t") WHERE \(condition.sql)", condition.arguments)
    } catch {
        fatalError("compiled query failed in FTS4: \(error)")
    }
    return 0
}

/// The fuzzer's entry: libFuzzer over `fuzzQuery`.
@main
enum FuzzQueryMain {
    static func main() { runFuzzer(fuzzQuery) }
}

import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// Helpers for the search tests: a fresh database with the search support registered.
enum SearchTestSupport {
    /// A new writer connection on a temporary database, with the tokenizers and BM25 registered.
    static func connection(encrypted: Bool = false) throws -> Connection {
        let path = TestSupport.temporaryPath("search.db")
        let key = encrypted ? SecureBytes(copying: TestSupport.rawKeyBytes(7)).sqlcipherRawKeyLiteral() : nil
        let connection = try Connection(path: path, mode: .writer, key: key, cipher: encrypted ? .default : nil, create: true)
        try connection.registerSearchSupport()
        return connection
    }

    /// The texts of `tokens`.
    static func texts(_ text: String, stemming: Bool = false) -> [String] {
        SearchTokenizer.tokens(in: text, stemming: stemming).map(\.text)
    }
}

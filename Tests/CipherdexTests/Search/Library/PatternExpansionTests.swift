import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `PatternExpansion` spells a pattern out for FTS4 in at most `maximumPieces` pieces a clause,
/// the terms in the most documents first: FTS4 holds every piece's doclists at once.
final class PatternExpansionTests: XCTestCase {
    func testAClauseIsSpelledOutInAtMostMaximumPieces() throws {
        let (store, _) = try SearchLibraryTestSupport.store()
        defer { store.close() }
        // 700 distinct words holding `a`; `xa0` on every page, so it comes first.
        let words = (0..<700).map { "xa\($0)" }
        for start in stride(from: 0, to: words.count, by: 100) {
            let text = words[start..<(start + 100)].joined(separator: " ") + " xa0"
            try store.library.add(data: Data(text.utf8), uid: "p\(start).txt", fileExtension: "txt")
        }
        store.library.waitUntilIdle()
        let compiled = try SearchQuery.parse("*a*").compiled(stemming: false, readingPatterns: true)
        let expansion = try store.read { try PatternExpansion.expanded(compiled, db: $0) }
        guard case .expanded(let spelled) = expansion else { return XCTFail("\(expansion)") }
        let pieces = spelled.match.components(separatedBy: " OR ")
        XCTAssertEqual(pieces.count, PatternExpansion.maximumPieces)
        XCTAssertEqual(pieces.first, "\"xa0\"")
    }
}

import CipherdexPDFWriter
import XCTest

@testable import Cipherdex

/// The byte-level scan for one-word ASCII queries must give exactly what the general scan gives.
final class SearchLibraryASCIIScanTests: XCTestCase {
    func testByteLevelScanEqualsTheGeneralScan() throws {
        var pages = SampleCorpus(documentCount: 4, pagesPerDocument: 5, wordsPerPage: 250).documents.flatMap(\.pages)
        pages += [
            "Don't stop; it's rock'n'roll, 'quoted' words, it''s x' y 'z and O'Reilly's DONT dont.",
            "ABC abc Abc aBC abc123 123abc a_b a-b a.b a/b 'abc' abc' 'abc",
            String(repeating: "a", count: 200) + " " + String(repeating: "ab", count: 70) + " abc",
            "naïve cafe résumé resume",  // not ASCII: the general scan runs
            "tabs\tand\nnewlines\r\nand    spaces abc",
            "",
        ]
        var generator = SplitMix64(seed: 9)
        let alphabet = Array("abcABC01 '.-_\n".utf8)
        for _ in 0..<300 {
            pages.append(String(decoding: (0..<Int(generator.next() % 300)).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }, as: UTF8.self))
        }
        let queries = [
            "abc", "abc*", "a*", "dont", "don*", "its", "rockn*", "oreillys", "abc OR a", "patient", "the OR of", "ana*", "ab*",
            String(repeating: "a", count: 128) + "*", "123abc", "c0", "b", "a OR abc* OR b",
        ]
        var compared = 0
        for text in queries {
            let match = try SearchQuery.parse(text).compiled().match
            for window in [nil, 40] as [Int?] {
                var fast = MatchLocator(match: match, stemming: false)
                var general = MatchLocator(match: match, stemming: false, allowASCIIScan: false)
                for page in pages {
                    var body = page
                    let (a, b) = body.withUTF8 { ($0.isEmpty ? [] : fast.byteRanges(in: $0, windowBytes: window), $0.isEmpty ? [] : general.byteRanges(in: $0, windowBytes: window)) }
                    XCTAssertEqual(a, b, "\(text) in \(page.prefix(60))")
                    compared += 1
                }
            }
        }
        XCTAssertGreaterThan(compared, 5000)
    }
}

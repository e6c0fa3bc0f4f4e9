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

/// The byte-arithmetic preview for ASCII pages must equal the general one.
final class PreviewBuilderASCIITests: XCTestCase {
    func testASCIIPreviewEqualsTheGeneralPreview() {
        var generator = SplitMix64(seed: 21)
        let alphabet = Array("abc DEF\n\t.,'-0123456789\r".utf8)
        var compared = 0
        for round in 0..<2000 {
            let count = Int(generator.next() % 400)
            var bytes = (0..<count).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }
            if round % 3 == 0 { bytes.removeAll { $0 == 0x0D } }  // most pages: the fast path
            if round % 50 == 0 { bytes += Array("café".utf8) }  // some non-ASCII: the general path
            let body = String(decoding: bytes, as: UTF8.self)
            let utf8 = body.utf8.count
            var ranges: [Range<Int>] = []
            for _ in 0..<Int(generator.next() % 6) where utf8 > 0 {
                let lower = Int(generator.next() % UInt64(utf8))
                ranges.append(lower..<min(utf8, lower + 1 + Int(generator.next() % 8)))
            }
            for (before, length) in [(20, 160), (0, 10), (5, 1), (50, 400)] {
                let builder = PreviewBuilder(body: body, byteRanges: ranges)
                let fast = builder.preview(before: before, length: length)
                let general = builder.preview(before: before, length: length, allowASCII: false)
                XCTAssertEqual(fast.text, general.text)
                XCTAssertEqual(fast.matchRanges, general.matchRanges)
                XCTAssertEqual(fast.pageMatchRanges, general.pageMatchRanges)
                compared += 1
            }
        }
        XCTAssertEqual(compared, 8000)
    }
}

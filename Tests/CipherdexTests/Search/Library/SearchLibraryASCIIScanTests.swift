import CipherdexPDFWriter
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

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
            pages.append(
                String(
                    decoding: (0..<Int(generator.next() % 300)).map { _ in
                        alphabet[Int(generator.next() % UInt64(alphabet.count))]
                    }, as: UTF8.self))
        }
        // Non-ASCII letters and marks anywhere (next to words, in the same eight-byte block as a
        // match, before or after it): the byte-level scan must give up whenever it reads one.
        let extras = ["é", "\u{301}", "Ａ", "ß", "€", "𝄞", "ﬁ"]
        for _ in 0..<300 {
            var page = String(
                decoding: (0..<Int(generator.next() % 120)).map { _ in
                    alphabet[Int(generator.next() % UInt64(alphabet.count))]
                }, as: UTF8.self)
            let extra = extras[Int(generator.next() % UInt64(extras.count))]
            let offset = page.isEmpty ? 0 : Int(generator.next() % UInt64(page.count))
            page.insert(contentsOf: extra, at: page.index(page.startIndex, offsetBy: offset))
            pages.append(page)
        }
        let queries = [
            "abc", "abc*", "a*", "dont", "don*", "its", "rockn*", "oreillys", "abc OR a", "patient", "the OR of",
            "ana*", "ab*",
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
                    let (a, b) = body.withUTF8 {
                        (
                            $0.isEmpty ? [] : fast.byteRanges(in: $0, windowCharacters: window),
                            $0.isEmpty ? [] : general.byteRanges(in: $0)
                        )
                    }
                    if let window {
                        // Both may stop anywhere past the window; what lies within it is all there.
                        let within = b.filter { $0.lowerBound <= (b.first?.lowerBound ?? 0) + window }
                        XCTAssertEqual(Array(b.prefix(a.count)), a, "\(text) in \(page.prefix(60))")
                        XCTAssertGreaterThanOrEqual(a.count, within.count, "\(text) in \(page.prefix(60))")
                    } else {
                        XCTAssertEqual(a, b, "\(text) in \(page.prefix(60))")
                    }
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
            if round % 50 == 0 { bytes += Array("café".utf8) }  // non-ASCII after the preview
            if round % 7 == 0 {
                // Non-ASCII (a combining mark, two- to four-byte characters) anywhere: the fast
                // path may only be taken when it is past everything the preview depends on.
                let extra = Array(["\u{301}", "é", "€", "𝄞"][Int(generator.next() % 4)].utf8)
                bytes.insert(contentsOf: extra, at: bytes.isEmpty ? 0 : Int(generator.next() % UInt64(bytes.count)))
            }
            let body = String(decoding: bytes, as: UTF8.self)
            let utf8 = body.utf8.count
            var ranges: [Range<Int>] = []
            for _ in 0..<Int(generator.next() % 6) where utf8 > 0 {
                let lower = Int(generator.next() % UInt64(utf8))
                ranges.append(lower..<min(utf8, lower + 1 + Int(generator.next() % 8)))
            }
            for (before, length) in [(20, 160), (0, 10), (5, 1), (50, 400), (30, 8)] {
                let builder = PreviewBuilder(body: body, byteRanges: ranges)
                let fast = builder.preview(before: before, length: length)
                let general = builder.preview(before: before, length: length, allowASCII: false)
                XCTAssertEqual(fast.text, general.text)
                XCTAssertEqual(fast.matchRanges, general.matchRanges)
                XCTAssertEqual(fast.pageMatchRanges, general.pageMatchRanges)
                compared += 1
            }
        }
        XCTAssertEqual(compared, 10000)
    }
}

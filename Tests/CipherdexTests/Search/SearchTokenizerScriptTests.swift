import CipherdexExtraction
import Foundation
import XCTest

@testable import Cipherdex

/// The tokenizer's words against `ScriptWordReference`, a simple independent reading per script
/// (issue 14), on page text extracted from real-world PDFs of the shared corpus: Latin, Greek,
/// Cyrillic, Arabic, Hebrew, Han and Kana. Every word the reference judges must come out of the
/// tokenizer with the same byte range, folded text and kind (CJK: the same bigrams), and nothing
/// else may overlap it. Skipped when the corpus is absent.
final class SearchTokenizerScriptTests: XCTestCase {
    /// Corpus files with text of each script (found with pdftotext; the counts below are what
    /// extraction gives them).
    static let files: [ScriptWordReference.Script: [String]] = [
        .latin: [
            "pdfplumber__chelsea_pdta.pdf", "pdfplumber__issue-71-duplicate-chars-2.pdf", "pdfjs__tracemonkey.pdf",
        ],
        .greek: ["pdfjs__TAMReview.pdf", "pdfminer__contrib__issue-1061-colour-space-stack.pdf"],
        .cyrillic: ["popplertest__unittestcases__russian.pdf"],
        .arabic: ["pdfjs__issue19971.pdf", "pdfjs__ArabicCIDTrueType.pdf", "pysf__015-arabic__habibi.pdf"],
        .hebrew: ["pdfjs__issue11656.pdf"],
        .han: [
            "pdfplumber__issue-67-example.pdf", "pdfplumber__issue-71-duplicate-chars.pdf",
            "pdfplumber__issue-461-example.pdf",
        ],
        .kana: ["pdfjs__issue6387.pdf", "pdfplumber__issue-463-example.pdf", "pdfjs__javauninstall-7r.pdf"],
    ]

    /// Fewest judged words (CJK: tokens) per script, so a broken extraction cannot pass vacuously.
    static let minimumJudged: [ScriptWordReference.Script: Int] = [
        .latin: 1000, .greek: 50, .cyrillic: 5, .arabic: 20, .hebrew: 5, .han: 500, .kana: 50,
    ]

    func testTokenizerAgreesWithTheScriptReferenceOnCorpusText() throws {
        guard let corpus = SearchLibraryTestSupport.corpusDirectory else { throw XCTSkip("PDF corpus not found") }
        let extractor = IsolatedPDFExtractor(limits: .init(wallClockSeconds: 30, cpuSeconds: 30))
        var failures: [String] = []
        for script in ScriptWordReference.Script.allCases {
            var judged = 0
            for name in Self.files[script] ?? [] {
                guard let data = FileManager.default.contents(atPath: corpus + "/" + name) else {
                    throw XCTSkip("corpus file \(name) not found")
                }
                let document = try extractor.extract(data: [UInt8](data), password: nil)
                for page in document.pages {
                    let expected = ScriptWordReference.expectedTokens(in: page.text, script: script)
                    guard !expected.isEmpty else { continue }
                    judged += expected.count
                    let tokens = SearchTokenizer.tokens(in: page.text)
                    var byRange: [Range<Int>: SearchToken] = [:]
                    for token in tokens { byRange[token.byteRange] = token }
                    for want in expected {
                        let got = byRange[want.range]
                        if got?.text != want.text || got?.kind != want.kind {
                            let context = Array(page.text.utf8)[
                                max(
                                    0, want.range.lowerBound - 12)..<min(
                                        page.text.utf8.count, want.range.upperBound + 12)]
                            failures.append(
                                "\(script) \(name) page \(page.index): want \(want), got \(got.map { "\($0.text) \($0.kind)" } ?? "no token") in «\(String(decoding: context, as: UTF8.self))»"
                            )
                        }
                    }
                }
            }
            print("tokenizer vs \(script.rawValue) reference: \(judged) tokens judged")
            XCTAssertGreaterThanOrEqual(judged, Self.minimumJudged[script] ?? 1, "\(script): too few words judged")
        }
        for failure in failures.prefix(40) { print("DISAGREEMENT \(failure)") }
        XCTAssertEqual(failures.count, 0, "\(failures.count) disagreement(s); first: \(failures.first ?? "")")
    }
}

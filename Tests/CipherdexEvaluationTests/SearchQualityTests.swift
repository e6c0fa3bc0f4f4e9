import CipherdexEvaluation
import CipherdexPDFWriter
import Foundation
import XCTest

/// Keeps the search-quality evaluation working: a few corpus files (or generated PDFs when the
/// corpus is absent), a few queries per kind, recall and precision above a floor.
final class SearchQualityTests: XCTestCase {
    /// Corpus files with ordinary text, a form, Arabic, CJK and Greek.
    static let sample = [
        "pysf__004-pdflatex-4-pages__pdflatex-4-pages.pdf", "pdfjs__ArabicCIDTrueType.pdf",
        "pdfplumber__issue-461-example.pdf", "pdfjs__TAMReview.pdf",
        "pysf__002-trivial-libre-office-writer__002-trivial-libre-office-writer.pdf",
    ]

    /// The shared corpus beside the checkout, or `CIPHERDEX_CORPUS`.
    static var corpus: String {
        if let path = ProcessInfo.processInfo.environment["CIPHERDEX_CORPUS"] { return path }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        return root.appendingPathComponent("../shared/corpus/pdfs").standardized.path
    }

    func testEvaluationMeetsTheFloor() throws {
        guard TruthCorpus.pdftotextAvailable else { throw XCTSkip("pdftotext is not installed") }
        var folder = Self.corpus
        var files = Self.sample.filter { FileManager.default.fileExists(atPath: folder + "/" + $0) }
        var generated: String?
        if files.isEmpty {
            let directory = NSTemporaryDirectory() + "cipherdex-quality-\(UUID().uuidString.prefix(8))"
            let corpus = SampleCorpus(documentCount: 3, pagesPerDocument: 3, wordsPerPage: 120)
            try corpus.write(to: directory)
            folder = directory
            files = corpus.documents.map(\.fileName)
            generated = directory
        }
        defer { if let generated { try? FileManager.default.removeItem(atPath: generated) } }
        var settings = SearchQualityEvaluation.Settings(corpus: folder)
        settings.files = files
        settings.queriesPerCell = 8
        settings.seed = 7
        let report = try SearchQualityEvaluation(settings: settings).run()
        XCTAssertGreaterThan(report.total.queries, 20)
        XCTAssertEqual(report.searchErrors, 0)
        XCTAssertGreaterThanOrEqual(report.total.recall, 0.85, report.markdown)
        XCTAssertGreaterThanOrEqual(report.total.precision, 0.9, report.markdown)
        let negatives = report.byKind.first { $0.kind == EvaluationQuery.Kind.negative.rawValue }
        XCTAssertEqual(negatives?.found, 0, "negative controls found pages")
        XCTAssertGreaterThanOrEqual(report.agreement.overall.recall, 0.8, report.agreement.markdown)
    }
}

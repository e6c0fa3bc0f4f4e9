import Foundation
import XCTest

@testable import CipherdexEvaluation

/// Which files have a ground truth: `pdftotext`'s pages.
final class TruthCorpusTests: XCTestCase {
    /// A PDF whose page tree claims more pages than the file has objects: `pdftotext` prints no
    /// page (exit 0 or 99), so the file has no truth rather than a truth of no page, and is not
    /// counted as a file the store failed to index.
    func testAFileWithoutAPageHasNoTruth() throws {
        guard TruthCorpus.pdftotextAvailable else { throw XCTSkip("pdftotext is not installed") }
        let objects = [
            "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 2000000000 >>",
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
        ]
        var text = "%PDF-1.4\n"
        var offsets: [Int] = []
        for (index, body) in objects.enumerated() {
            offsets.append(text.utf8.count)
            text += "\(index + 1) 0 obj\n\(body)\nendobj\n"
        }
        let xref = text.utf8.count
        text += "xref\n0 \(objects.count + 1)\n0000000000 65535 f \n"
        for offset in offsets { text += String(format: "%010d 00000 n \n", offset) }
        text += "trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n"
        let path = NSTemporaryDirectory() + "cipherdex-truth-\(UUID().uuidString.prefix(8)).pdf"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        switch TruthCorpus.pdftotext(path, timeout: 20) {
        case .success(let pages): XCTFail("a truth of \(pages.count) pages")
        case .failure(let error): XCTAssertEqual(error.reason, "pdftotext found no page")
        }
    }
}

import CipherdexPDFWriter
import Foundation
import XCTest

/// `add --ocr`, `index --ocr`, `status` and `search` on a scanned PDF, through the real
/// executable; a missing language fails at once, naming its package, storing nothing.
final class SearchOCRCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned

    /// A two-page PDF: page 1 scanned, page 2 with a text layer.
    private static let mixedPDF = ScannedPDFWriter.make(
        pages: ["Whose woods these are I think I know. His house is in the village though.", "A text layer page."],
        textLayerPages: [1])

    override func setUpWithError() throws {
        cli = CLIRunner.temporary()
        try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "k"]).status, 0)
        XCTAssertTrue(
            FileManager.default.createFile(atPath: cli.directory + "/scan.pdf", contents: Data(Self.mixedPDF)))
    }

    private func run(_ arguments: [String]) throws -> CLIRunner.Result {
        try cli.run(arguments + ["--key-file", "k"])
    }

    func testAddWithOCRMakesScannedPagesSearchable() throws {
        let added = try run(["add", "s", cli.directory + "/scan.pdf", "--ocr"])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual(added.stdout, "scan.pdf: finished (2 pages); OCR: 1 of 1 scanned page recognised\n")
        let found = try run(["search", "s", "village"])
        XCTAssertEqual(found.status, 0, found.stderr)
        XCTAssertTrue(found.stdout.hasPrefix("scan.pdf  page 1  (OCR)\n"), found.stdout)
        let json = try run(["search", "s", "village", "--json"])
        XCTAssertTrue(json.stdout.contains("\"isOCR\":true"), json.stdout)
        let status = try run(["status", "s", "scan.pdf"])
        XCTAssertEqual(status.stdout, "scan.pdf  finished (2 pages); OCR: 1 of 1 scanned page recognised\n")
        let statusJSON = try run(["status", "s", "scan.pdf", "--json"])
        XCTAssertTrue(statusJSON.stdout.contains("\"recognizedPages\":[0]"), statusJSON.stdout)
        // Without --ocr the scanned page is not searchable.
        XCTAssertEqual(try run(["add", "s", cli.directory + "/scan.pdf", "--uid", "plain.pdf"]).status, 0)
        XCTAssertEqual(try run(["search", "s", "village"]).stdout.components(separatedBy: "plain.pdf").count, 1)
    }

    func testIndexWithOCR() throws {
        let folder = cli.directory + "/folder"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: cli.directory + "/scan.pdf", toPath: folder + "/scan.pdf")
        let indexed = try run(["index", "s", folder, "--ocr-languages", "eng"])
        XCTAssertEqual(indexed.status, 0, indexed.stderr)
        XCTAssertTrue(indexed.stdout.contains("scan.pdf: OCR: 1 of 1 scanned page recognised\n"), indexed.stdout)
        XCTAssertTrue(try run(["search", "s", "woods"]).stdout.hasPrefix("scan.pdf  page 1  (OCR)"))
    }

    func testMissingLanguageFailsAtOnceAndStoresNothing() throws {
        let before = try run(["info", "s"]).stdout
        let started = Date()
        let result = try run(["add", "s", cli.directory + "/scan.pdf", "--ocr-languages", "eng+fra"])
        XCTAssertLessThan(Date().timeIntervalSince(started), 5)
        XCTAssertEqual(result.status, 1)
        XCTAssertTrue(result.stderr.contains("ocrLanguageMissing"), result.stderr)
        XCTAssertTrue(result.stderr.contains("tesseract-ocr-fra"), result.stderr)
        XCTAssertEqual(try run(["status", "s"]).stdout, "")
        XCTAssertEqual(try run(["info", "s"]).stdout, before)
        let malformed = try run(["add", "s", cli.directory + "/scan.pdf", "--ocr-languages", "eng+../x"])
        XCTAssertEqual(malformed.status, 64, malformed.stderr)
        // Checked before the store is opened: with any key (even a wrong one) it is the missing
        // language that is named, and no file of the store is touched.
        try cli.run(["keygen", "--out", "other"])
        let files = { (try? FileManager.default.contentsOfDirectory(atPath: self.cli.directory + "/s"))?.sorted() }
        let namesBefore = files()
        for command in [["add", "s", cli.directory + "/scan.pdf"], ["index", "s", cli.directory]] {
            let wrongKey = try cli.run(command + ["--ocr-languages", "eng+fra", "--key-file", "other"])
            XCTAssertEqual(wrongKey.status, 1, wrongKey.stderr)
            XCTAssertTrue(wrongKey.stderr.contains("ocrLanguageMissing"), wrongKey.stderr)
        }
        XCTAssertEqual(files(), namesBefore)
    }

    /// A scan whose image is too large to draw within the helper's memory limit would render
    /// white without an error from poppler: it is the page's failure, named as such before
    /// anything is rendered, not a page recognised with no text; a white image is a blank page.
    func testAnImageTooLargeToDrawIsAFailedPageNotABlankOne() throws {
        let huge = ImagePDFWriter.Image(width: 30000, height: 30000, data: [UInt8](repeating: 0, count: 1000))
        let white = ImagePDFWriter.Image.gray(width: 100, height: 100, level: 255)
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: cli.directory + "/huge.pdf", contents: Data(ImagePDFWriter.make(pages: [.init(images: [huge])]))
            ))
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: cli.directory + "/blank.pdf",
                contents: Data(ImagePDFWriter.make(pages: [.init(images: [white])]))
            ))
        let added = try run(["add", "s", cli.directory + "/huge.pdf", cli.directory + "/blank.pdf", "--ocr"])
        XCTAssertTrue(
            added.stdout.contains(
                "huge.pdf: finished (1 page); OCR: 0 of 1 scanned page recognised, page 1 failed: imageTooLarge: "
                    + "page 1 holds an image of 30000 × 30000 pixels: drawing it needs 3600000000 bytes"),
            added.stdout)
        XCTAssertTrue(
            added.stdout.contains("blank.pdf: finished (1 page); OCR: 1 of 1 scanned page recognised\n"),
            "a white image is a blank page: \(added.stdout)")
    }

    /// `--ocr-document-seconds` bounds one document's OCR in the run (implying `--ocr`); the
    /// pages past it are said, and the next `add` recognises them.
    func testTheDocumentBudgetLeavesPagesForTheNextRun() throws {
        // One page more than are recognised at once (one per core): it starts after the budget.
        let pages = ProcessInfo.processInfo.activeProcessorCount + 1
        let scan = ScannedPDFWriter.make(
            pages: Array(repeating: "Whose woods these are I think I know.", count: pages), textLayerPages: [])
        XCTAssertTrue(FileManager.default.createFile(atPath: cli.directory + "/many.pdf", contents: Data(scan)))
        for bad in ["0", "-1", "abc", "1e3", ".5", "nan", ""] {
            let refused = try run(["add", "s", cli.directory + "/many.pdf", "--ocr-document-seconds", bad])
            XCTAssertEqual(refused.status, 64, "\(bad): \(refused.stderr)")
            XCTAssertTrue(refused.stderr.contains("--ocr-document-seconds needs a number of seconds"), refused.stderr)
        }
        let added = try run(["add", "s", cli.directory + "/many.pdf", "--ocr-document-seconds", "0.001"])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertTrue(added.stdout.hasPrefix("many.pdf: finished (\(pages) pages); OCR: "), added.stdout)
        XCTAssertTrue(
            added.stdout.contains(
                "page \(pages) failed: budgetExceeded: not recognised, since this document's OCR took"),
            added.stdout)
        let again = try run(["add", "s", cli.directory + "/many.pdf", "--ocr"])
        XCTAssertEqual(
            again.stdout, "many.pdf: finished (\(pages) pages); OCR: \(pages) of \(pages) scanned pages recognised\n")
    }
}

import CPopplerRuntime
import CipherdexPDFWriter
import Foundation
import XCTest

@testable import CipherdexExtraction

/// OCR of pages whose images poppler cannot draw (`PageImageCheck`, through the helper): a damaged
/// JPEG, a damaged strip among many, an image too large to draw, each a typed failure naming the
/// page rather than a page "recognised" as blank; white images that decode stay a blank page.
final class PageImageCheckTests: XCTestCase {
    /// 100 dpi: the pages are blank or fail, nothing to read.
    private let settings = OCRSettings(dpi: 100)
    /// One pool for the class's requests (its helpers are reused).
    private lazy var extractor = IsolatedPDFExtractor(pool: IsolatedExtractorPool(limits: settings.pageLimits()))

    /// A white 612 × 800 JPEG.
    private static let whiteJPEG = UniformJPEG.gray(width: 612, height: 800, level: 255)

    /// Page `page` of `pdf` recognised: its text, or the failure.
    private func recognize(_ pdf: [UInt8], page: Int) -> Result<String, ExtractionError> {
        do {
            return .success(try extractor.recognizePage(page, of: pdf, password: nil, settings: settings).text)
        } catch let error as ExtractionError {
            return .failure(error)
        } catch {
            return .failure(.damaged(reason: "unexpected \(error)"))
        }
    }

    /// Asserts that page `page` of `pdf` fails as `damaged`, naming the page and `image`.
    private func assertUndecodable(
        _ pdf: [UInt8], page: Int, image: String, _ label: String = "", file: StaticString = #filePath,
        line: UInt = #line
    ) {
        switch recognize(pdf, page: page) {
        case .success(let text):
            XCTFail("\(label) page \(page + 1) was recognised (\(text.debugDescription))", file: file, line: line)
        case .failure(let error):
            guard case .damaged(let reason) = error else {
                return XCTFail("\(label) \(error.name): \(error.localizedDescription)", file: file, line: line)
            }
            XCTAssertTrue(reason.hasPrefix("page \(page + 1): "), reason, file: file, line: line)
            XCTAssertTrue(reason.contains(image), reason, file: file, line: line)
            XCTAssertTrue(reason.contains("cannot be decoded"), reason, file: file, line: line)
        }
    }

    /// A JPEG cut in its header, cut in its data, or with a header libjpeg refuses decodes to
    /// nothing (poppler pads what is missing with white, and libjpeg's failure is reported to no
    /// one): the page fails, naming the image.
    func testDamagedJPEGIsAFailedPageNotABlankOne() {
        var badPrecision = Self.whiteJPEG
        let frame = (0..<(badPrecision.count - 1)).first { badPrecision[$0] == 0xFF && badPrecision[$0 + 1] == 0xC0 }!
        badPrecision[frame + 4] = 7
        let damaged: [(name: String, data: [UInt8])] = [
            ("header cut", Array(Self.whiteJPEG.prefix(120))),
            ("data cut", Array(Self.whiteJPEG.prefix(Self.whiteJPEG.count / 2))),
            ("7-bit precision", badPrecision),
        ]
        for (name, data) in damaged {
            let image = ImagePDFWriter.Image(width: 612, height: 800, filter: "DCTDecode", data: data)
            let pdf = ImagePDFWriter.make(pages: [.init(images: [image])])
            assertUndecodable(pdf, page: 0, image: "the image in object 3 (DCTDecode, 612 × 800 pixels)", name)
        }
    }

    /// A CCITT image of noise decodes to as many rows as it has, but its decoder reports errors
    /// on the way (bad codes). Such an image may still be mostly readable (a scan with a few bad
    /// codes), so the check returns that failure rather than throwing it: recognition keeps
    /// whatever text the page gives, and a page that gives none fails, naming the image, rather
    /// than being "recognised" as blank.
    func testAnImageWhoseDecoderReportsErrorsFailsThePageThatGivesNoText() throws {
        var state: UInt64 = 3
        let noise = (0..<2000).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let image = ImagePDFWriter.Image(
            width: 612, height: 100, bitsPerComponent: 1, filter: "CCITTFaxDecode",
            decodeParms: "/K 0 /Columns 612 /Rows 100", data: noise)
        let pdf = ImagePDFWriter.make(pages: [.init(images: [image])])
        let suspect = try XCTUnwrap(Self.suspectFailure(pdf))
        guard case .damaged(let reason) = suspect else { return XCTFail("\(suspect)") }
        XCTAssertTrue(reason.contains("the image in object 3 (CCITTFaxDecode, 612 × 100 pixels)"), reason)
        XCTAssertTrue(reason.contains(": the decoder reported "), reason)
        switch recognize(pdf, page: 0) {
        case .success(let text):
            XCTAssertFalse(text.allSatisfy(\.isWhitespace), "a page without text is the image's failure")
        case .failure(let error):
            XCTAssertEqual(error, suspect)
        }
    }

    /// A scanned page of text whose image dictionary claims two rows more than its data holds
    /// (as a CCITT scan whose `/Height` overstates its coded rows does): poppler draws every row
    /// it has, the text reads, and it is kept. The check still names the short image (it would
    /// be the page's failure if nothing were read).
    func testATextScanAFewRowsShortKeepsItsText() throws {
        let scan = ScannedPDFWriter.make(
            pages: ["It is a truth universally acknowledged, that a single man in possession of a good fortune."],
            dpi: 150, degradation: .none)
        let text = String(decoding: scan, as: UTF8.self)
        let height = try XCTUnwrap(
            text.range(of: #"/Height (\d+)"#, options: .regularExpression).map { String(text[$0].dropFirst(8)) })
        let taller = String(Int(height)! + 2)
        XCTAssertEqual(taller.count, height.count, "the same length keeps the cross-reference offsets")
        var pdf = scan
        let needle = Array("/Height \(height)".utf8)
        let at = try XCTUnwrap(
            (0...(pdf.count - needle.count)).first { Array(pdf[$0..<($0 + needle.count)]) == needle })
        pdf.replaceSubrange(at..<(at + needle.count), with: Array("/Height \(taller)".utf8))
        guard case .damaged(let reason)? = try Self.suspectFailure(pdf) else { return XCTFail("not found short") }
        XCTAssertTrue(reason.contains("its data ends after \(height) of its \(taller) rows"), reason)
        let recognised = try recognize(pdf, page: 0).get()
        XCTAssertTrue(recognised.lowercased().contains("truth"), recognised)
    }

    /// What `PageImageCheck.check` returns (does not throw) for page 1 of `pdf`.
    private static func suspectFailure(_ pdf: [UInt8]) throws -> ExtractionError? {
        let poppler = try PopplerLibraries.api()
        let document = try PDFTextExtractor.openDocument(pdf, password: nil, poppler)
        defer { poppler.g_object_unref(UnsafeMutableRawPointer(document)) }
        let page = try XCTUnwrap(poppler.poppler_document_get_page(document, 0))
        defer { poppler.g_object_unref(UnsafeMutableRawPointer(page)) }
        return try PageImageCheck.check(page, pageIndex: 0, reservedBytes: 0)
    }

    /// A scan split into many strips, one of them damaged, fails however many strips there are,
    /// painted from the page or from a Form XObject (whose own resources list the strips, or
    /// lack them, so that they are found in the page's); a strip whose data is short too. The check is
    /// linear: 400 strips take well under the page's limits.
    func testADamagedStripAmongManyFailsThePage() {
        let strip = ImagePDFWriter.Image.gray(width: 612, height: 2, level: 255)
        var strips = [ImagePDFWriter.Image](repeating: strip, count: 400)
        strips[250] = ImagePDFWriter.Image(
            width: 612, height: 2, filter: "DCTDecode",
            data: Array(UniformJPEG.gray(width: 612, height: 2, level: 255).prefix(90)))
        var short = [ImagePDFWriter.Image](repeating: .jpeg(width: 612, height: 100, level: 255), count: 7)
        short[3] = ImagePDFWriter.Image(width: 612, height: 100, data: [UInt8](repeating: 255, count: 612 * 40))
        let pdf = ImagePDFWriter.make(pages: [
            .init(images: strips), .init(images: strips, painting: .form), .init(images: short),
            .init(images: strips, painting: .formUsingThePageResources),
        ])
        let started = ContinuousClock.now
        // Image objects are numbered from 3 on each page, in order: strip 250 is object 253.
        assertUndecodable(pdf, page: 0, image: "the image in object 253 (DCTDecode, 612 × 2 pixels)")
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(10))
        assertUndecodable(pdf, page: 1, image: "(DCTDecode, 612 × 2 pixels)")
        assertUndecodable(pdf, page: 2, image: "(unfiltered, 612 × 100 pixels)")
        if case .failure(.damaged(let reason)) = recognize(pdf, page: 2) {
            XCTAssertTrue(reason.hasSuffix("its data ends after 40 of its 100 rows"), reason)
        }
        // The form's own resources lack the strips' names: a reader finds them in the page's.
        assertUndecodable(pdf, page: 3, image: "(DCTDecode, 612 × 2 pixels)", "page resources")
    }

    /// An image whose dictionary claims 100000 × 100000 pixels (in an XObject or inline), or
    /// 25000 × 25000 (within cairo's sides, but 2.5 GB to draw, over the helper's 1.5 GiB), fails at
    /// once with `imageTooLarge` naming its page, before anything is decoded or rendered.
    func testAnImageTooLargeToDrawFailsFastNamingItsPage() throws {
        let white = ImagePDFWriter.Page(images: [.gray(width: 10, height: 10, level: 255)])
        // Start a helper, so the request below is timed alone.
        XCTAssertEqual(try recognize(ImagePDFWriter.make(pages: [white]), page: 0).get(), "")
        let cases: [(painting: ImagePDFWriter.Painting, side: Int)] = [
            (.xobjects, 100_000), (.inline, 100_000), (.xobjects, 25_000),
        ]
        for (painting, side) in cases {
            let huge = ImagePDFWriter.Image(width: side, height: side, data: [UInt8](repeating: 255, count: 100))
            let pdf = ImagePDFWriter.make(pages: [white, .init(images: [huge], painting: painting)])
            let started = ContinuousClock.now
            let result = recognize(pdf, page: 1)
            XCTAssertLessThan(ContinuousClock.now - started, .seconds(1), "\(painting) \(side)")
            guard case .failure(let error) = result,
                case .imageTooLarge(let page, let width, let height, let needed, _) = error
            else {
                XCTFail("\(painting) \(side): \(result)")
                continue
            }
            XCTAssertEqual([page, width, height], [2, side, side])
            XCTAssertEqual(needed, side * side * 4)
            XCTAssertTrue(error.localizedDescription.hasPrefix("page 2 holds an image of \(side) × \(side) pixels"))
        }
    }

    /// White images that decode — a JPEG, many strips, through a form (found in its resources or
    /// the page's), inline — are a blank page, recognised with no text.
    func testWhiteImagesThatDecodeAreABlankPage() throws {
        let strips = [ImagePDFWriter.Image](repeating: .gray(width: 612, height: 20, level: 255), count: 40)
        let jpegStrips = [ImagePDFWriter.Image](repeating: .jpeg(width: 612, height: 132, level: 255), count: 6)
        let pdf = ImagePDFWriter.make(pages: [
            .init(images: [.jpeg(width: 612, height: 800, level: 255)]), .init(images: strips),
            .init(images: jpegStrips, painting: .form),
            .init(images: [.gray(width: 40, height: 40, level: 255)], painting: .inline),
            .init(images: jpegStrips, painting: .formUsingThePageResources),
        ])
        for page in 0..<5 {
            XCTAssertEqual(try recognize(pdf, page: page).get(), "", "page \(page + 1)")
        }
    }

    /// Poppler's error callback is process-wide, but the check counts only the errors of the image
    /// its own thread reads: two threads checking at once, one a page of noise whose decoder
    /// reports errors, the other a page of 200 white strips, each get their own result every time.
    func testChecksOnTwoThreadsCountOnlyTheirOwnErrors() throws {
        var state: UInt64 = 5
        let noise = (0..<2000).map { _ -> UInt8 in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let noisy = ImagePDFWriter.make(pages: [
            .init(images: [
                ImagePDFWriter.Image(
                    width: 612, height: 100, bitsPerComponent: 1, filter: "CCITTFaxDecode",
                    decodeParms: "/K 0 /Columns 612 /Rows 100", data: noise)
            ])
        ])
        let white = ImagePDFWriter.make(pages: [
            .init(images: [ImagePDFWriter.Image](repeating: .gray(width: 612, height: 20, level: 255), count: 200))
        ])
        final class Results: @unchecked Sendable { var names: [String] = [] }
        let noisyResults = Results()
        let finished = DispatchSemaphore(value: 0)
        Thread {
            noisyResults.names = Self.checkRepeatedly(noisy, rounds: 200)
            finished.signal()
        }.start()
        let whiteResults = Self.checkRepeatedly(white, rounds: 100)
        finished.wait()
        XCTAssertEqual(Set(whiteResults), ["ok"])
        XCTAssertEqual(Set(noisyResults.names), ["damaged"])
    }

    /// Checks page 1 of `pdf` `rounds` times in this process (`PageImageCheck` alone, no helper):
    /// each outcome, "ok" or the failure's name.
    private static func checkRepeatedly(_ pdf: [UInt8], rounds: Int) -> [String] {
        (0..<rounds).map { _ in
            do {
                let poppler = try PopplerLibraries.api()
                let document = try PDFTextExtractor.openDocument(pdf, password: nil, poppler)
                defer { poppler.g_object_unref(UnsafeMutableRawPointer(document)) }
                guard let page = poppler.poppler_document_get_page(document, 0) else { return "no page" }
                defer { poppler.g_object_unref(UnsafeMutableRawPointer(page)) }
                return try PageImageCheck.check(page, pageIndex: 0, reservedBytes: 0)?.name ?? "ok"
            } catch {
                return (error as? ExtractionError)?.name ?? "\(error)"
            }
        }
    }
}

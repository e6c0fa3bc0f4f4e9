import CipherdexPDFWriter
import Foundation
import XCTest

@testable import CipherdexExtraction

/// Every failure is a typed `ExtractionError`, in-process and through the helper.
final class ExtractionFailureTests: XCTestCase {
    /// Truncated, garbled, empty and non-PDF input.
    func testDamagedInputIsTyped() throws {
        let pdf = makePDF(pages: ["some text", "more text"], title: "t")
        let cases: [(String, [UInt8])] = [
            ("truncated header", Array(pdf.prefix(40))),
            ("truncated half", Array(pdf.prefix(pdf.count / 2))),
            ("header only", Array("%PDF-1.7\n".utf8)),
            (
                "garbage after header",
                Array("%PDF-1.4\n".utf8) + (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }
            ),
        ]
        for extractor in [PDFTextExtractor() as TextExtractor, IsolatedPDFExtractor()] {
            for (name, bytes) in cases {
                do {
                    let document = try extractor.extract(data: bytes, fileExtension: "pdf", password: nil)
                    // Poppler reconstructs some truncated files; then the text must still be sane.
                    XCTAssertLessThanOrEqual(document.pages.count, 2, name)
                } catch let error as ExtractionError {
                    XCTAssertEqual(error.name, "damaged", "\(name): \(error)")
                }
            }
            XCTAssertThrowsError(try extractor.extract(data: [], fileExtension: "pdf", password: nil)) {
                XCTAssertEqual(($0 as? ExtractionError)?.name, "damaged")
            }
            XCTAssertThrowsError(try extractor.extract(data: Array("hello".utf8), fileExtension: "pdf", password: nil))
            {
                XCTAssertEqual(($0 as? ExtractionError)?.name, "unsupportedFormat")
            }
            XCTAssertThrowsError(try extractor.extract(data: pdf, fileExtension: "docx", password: nil)) {
                XCTAssertEqual($0 as? ExtractionError, .unsupportedFormat("docx"))
            }
        }
    }

    /// A page tree poppler finds no page in (it claims more pages than the file has objects, or
    /// none at all) is `damaged`, not a document of no pages indexed as finished.
    func testAPageTreeWithoutAReadablePageIsDamaged() throws {
        let stream = "BT /F1 18 Tf 72 720 Td (hidden words) Tj ET"
        let page = [
            "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
            "<< /Length \(stream.utf8.count) >>\nstream\n\(stream)\nendstream",
            "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        ]
        let trees = [
            "<< /Type /Pages /Kids [3 0 R] /Count 2000000000 >>", "<< /Type /Pages /Kids [] /Count 0 >>",
        ]
        for extractor in [PDFTextExtractor() as TextExtractor, IsolatedPDFExtractor()] {
            for tree in trees {
                let pdf = ExtractionTestSupport.handWrittenPDF(
                    objects: ["<< /Type /Catalog /Pages 2 0 R >>", tree] + page)
                XCTAssertThrowsError(try extractor.extract(data: pdf, fileExtension: "pdf", password: nil), tree) {
                    XCTAssertEqual(
                        $0 as? ExtractionError,
                        .damaged(reason: "poppler finds no page in it (its page tree is missing or damaged)"), tree)
                }
            }
            let valid = ExtractionTestSupport.handWrittenPDF(
                objects: ["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>"] + page)
            XCTAssertEqual(
                try extractor.extract(data: valid, fileExtension: "pdf", password: nil).pages.map(\.text.isEmpty),
                [false])
        }
    }

    /// A helper that never answers is killed at the wall-clock deadline.
    /// A PDF encrypted for certificate holders (`/Adobe.PubSec`) is `unsupportedFormat` saying so,
    /// not `locked`: no password opens it. One encrypted with a password stays `locked`.
    func testCertificateEncryptionIsNotAPasswordLock() throws {
        func pdf(filter: String) -> [UInt8] {
            let objects = [
                "<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] >>",
                "<< /Filter /\(filter) /SubFilter /adbe.pkcs7.s4 /V 4 /R 3 /Length 128 /Recipients [<00>] >>",
            ]
            var out = Array("%PDF-1.6\n".utf8)
            var offsets: [Int] = []
            for (index, object) in objects.enumerated() {
                offsets.append(out.count)
                out += Array("\(index + 1) 0 obj\n\(object)\nendobj\n".utf8)
            }
            let xref = out.count
            out += Array("xref\n0 \(objects.count + 1)\n0000000000 65535 f \n".utf8)
            for offset in offsets {
                out += Array((String(repeating: "0", count: 10 - String(offset).count) + "\(offset) 00000 n \n").utf8)
            }
            out += Array(
                ("trailer\n<< /Size \(objects.count + 1) /Root 1 0 R /Encrypt 4 0 R /ID [<01><01>] >>\n"
                    + "startxref\n\(xref)\n%%EOF\n").utf8)
            return out
        }
        for extractor in [PDFTextExtractor() as TextExtractor, IsolatedPDFExtractor()] {
            XCTAssertThrowsError(
                try extractor.extract(data: pdf(filter: "Adobe.PubSec"), fileExtension: "pdf", password: nil)
            ) {
                XCTAssertEqual(
                    $0 as? ExtractionError,
                    .unsupportedFormat(
                        "encrypted for certificate holders (public-key security, /Adobe.PubSec): no password opens it"))
            }
            XCTAssertThrowsError(
                try extractor.extract(data: pdf(filter: "Adobe.PubSec"), fileExtension: "pdf", password: "x")
            ) {
                XCTAssertEqual(($0 as? ExtractionError)?.name, "unsupportedFormat")
            }
        }
        XCTAssertFalse(PDFTextExtractor.isPublicKeyEncrypted(Array("/Adobe.PubSecX /Standard".utf8)))
        XCTAssertTrue(PDFTextExtractor.isPublicKeyEncrypted(Array("/Filter/Adobe.PubSec/V 4".utf8)))
    }

    func testWallClockTimeoutKillsTheHelper() throws {
        let helper = try ExtractionTestSupport.script("exec sleep 30")
        let extractor = IsolatedPDFExtractor(helperPath: helper, limits: .init(wallClockSeconds: 0.5))
        let start = Date()
        XCTAssertThrowsError(try extractor.extract(data: makePDF(pages: ["x"], title: nil), password: nil)) {
            XCTAssertEqual($0 as? ExtractionError, .timedOut(seconds: 0.5))
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 5)
    }

    /// Signals map to typed errors: SIGXCPU → timedOut, SIGKILL → memory, SIGSEGV → crashed.
    func testSignalsMapToTypedErrors() throws {
        let pdf = makePDF(pages: ["x"], title: nil)
        let expectations: [(String, ExtractionError)] = [
            ("kill -XCPU $$", .timedOut(seconds: 7)),
            ("kill -KILL $$", .memoryLimitExceeded(bytes: 1 << 30)),
            ("kill -SEGV $$", .helperCrashed(signal: SIGSEGV, exitStatus: nil)),
            (
                "echo 'terminate called after throwing an instance of std::bad_alloc' >&2; kill -ABRT $$",
                .memoryLimitExceeded(bytes: 1 << 30)
            ),
            ("head -c 5 >/dev/null; exit 3", .helperCrashed(signal: nil, exitStatus: 3)),
            ("head -c 5 >/dev/null; printf 'CDXA\\001garbage'", .helperCrashed(signal: nil, exitStatus: 0)),
            // A malformed answer from a helper that keeps running: stopped, not waited for.
            (
                "head -c 5 >/dev/null; printf 'CDXA\\001garbage'; exec sleep 30",
                .helperCrashed(signal: nil, exitStatus: nil)
            ),
        ]
        for (body, expected) in expectations {
            let extractor = IsolatedPDFExtractor(
                helperPath: try ExtractionTestSupport.script(body), limits: .init(cpuSeconds: 7))
            XCTAssertThrowsError(try extractor.extract(data: pdf, password: nil), body) {
                XCTAssertEqual($0 as? ExtractionError, expected, body)
            }
        }
    }

    /// A missing helper is reported, not crashed on.
    func testMissingHelperIsUnavailable() {
        let extractor = IsolatedPDFExtractor(helperPath: "/nonexistent/cipherdex-extract")
        XCTAssertThrowsError(try extractor.extract(data: makePDF(pages: ["x"], title: nil), password: nil)) {
            XCTAssertEqual(($0 as? ExtractionError)?.name, "helperUnavailable")
        }
    }

    /// The real helper under a small address-space limit, given more input than fits, reports
    /// the failed allocation, which maps to `.memoryLimitExceeded`.
    func testAddressSpaceLimitIsMemoryLimitExceeded() throws {
        let pdf = Array("%PDF-1.4\n".utf8) + [UInt8](repeating: 0x20, count: 100 << 20)
        let extractor = IsolatedPDFExtractor(limits: .init(wallClockSeconds: 30, memoryBytes: 128 << 20))
        XCTAssertThrowsError(try extractor.extract(data: pdf, password: nil)) {
            XCTAssertEqual($0 as? ExtractionError, .memoryLimitExceeded(bytes: 128 << 20))
        }
        XCTAssertEqual(IsolatedPDFExtractor.Limits(memoryBytes: 1 << 20).memoryBytes, 128 << 20)
    }

    /// An answer announcing more than the output limit kills the helper.
    func testOversizedAnswerIsRejected() throws {
        // A `J` frame header announcing 4 MiB, then zeros.
        let helper = try ExtractionTestSupport.script(
            "head -c 5 >/dev/null; printf 'CDXA\\001J\\000\\100\\000\\000'; head -c 5000000 /dev/zero")
        let extractor = IsolatedPDFExtractor(helperPath: helper, limits: .init(maximumOutputBytes: 1 << 20))
        XCTAssertThrowsError(try extractor.extract(data: makePDF(pages: ["x"], title: nil), password: nil)) {
            XCTAssertEqual($0 as? ExtractionError, .memoryLimitExceeded(bytes: 1 << 20))
        }
    }

    /// A large input and a helper that answers before reading it all cannot deadlock.
    func testLargeInputToAHelperThatDoesNotReadIt() throws {
        let helper = try ExtractionTestSupport.script("head -c 10 >/dev/null; exit 4")
        let pdf = Array("%PDF-1.4\n".utf8) + [UInt8](repeating: 0x20, count: 32 << 20)
        let extractor = IsolatedPDFExtractor(helperPath: helper, limits: .init(wallClockSeconds: 20))
        XCTAssertThrowsError(try extractor.extract(data: pdf, password: nil)) {
            XCTAssertEqual($0 as? ExtractionError, .helperCrashed(signal: nil, exitStatus: 4))
        }
    }

    /// Under `swift test` the helper is the test executable itself, re-run in helper mode (the
    /// constructor serves before XCTest's `main`), and it rejects bad arguments.
    func testThisExecutableIsItsOwnHelper() throws {
        // A sanitizer build cannot be its own helper (`make tsan`, `make asan`).
        try XCTSkipIf(ProcessInfo.processInfo.environment["CIPHERDEX_SANITIZER"] != nil, "a sanitizer build")
        XCTAssertTrue(PDFExtractionHelper.isAvailableInThisExecutable)
        XCTAssertEqual(IsolatedPDFExtractor.locateHelper(), IsolatedPDFExtractor.selfHelperPath)
        // Not started as a helper: the explicit entry returns at once.
        PDFExtractionHelper.runIfRequested()
        XCTAssertTrue(PDFExtractionHelper.isAvailableInThisExecutable)
        let executable = try FileManager.default.destinationOfSymbolicLink(atPath: IsolatedPDFExtractor.selfHelperPath)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = [PDFExtractionHelper.modeArgument, "--cpu-limit", "zero"]
        process.environment = [PDFExtractionHelper.modeEnvironmentKey: "1"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 2)
        XCTAssertTrue(message.contains("--cpu-limit needs a positive number of seconds"), message)
        // A PDF through the pool, with this executable as the helper.
        let pool = IsolatedExtractorPool(policy: .init(maximumIdleHelpers: 0))
        let document = try IsolatedPDFExtractor(pool: pool).extract(
            data: makePDF(pages: ["served by the host itself"], title: nil), password: nil)
        XCTAssertEqual(ExtractionTestSupport.normalized(document.pages[0].text), "served by the host itself")
    }

    /// The standalone `cipherdex-extract` (built beside the tests) still serves, given by path.
    func testStandaloneHelperServes() throws {
        let directory = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let standalone = (directory as NSString).deletingLastPathComponent + "/" + IsolatedPDFExtractor.helperName
        let pool = IsolatedExtractorPool(helperPath: standalone, policy: .init(maximumIdleHelpers: 0))
        let document = try IsolatedPDFExtractor(pool: pool).extract(
            data: makePDF(pages: ["standalone helper"], title: nil), password: nil)
        XCTAssertEqual(ExtractionTestSupport.normalized(document.pages[0].text), "standalone helper")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: standalone)
        process.arguments = ["--cpu-limit", "zero"]
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 2)
    }

    /// `CIPHERDEX_EXTRACT_HELPER`, when set, is the only candidate: a wrong path is no helper.
    func testTheEnvironmentOverrideIsUsedAlone() throws {
        setenv(IsolatedPDFExtractor.helperPathEnvironmentKey, "/nonexistent/cipherdex-extract", 1)
        defer { unsetenv(IsolatedPDFExtractor.helperPathEnvironmentKey) }
        XCTAssertNil(IsolatedPDFExtractor.locateHelper())
        XCTAssertTrue(IsolatedPDFExtractor.missingHelperAdvice.contains("is set to /nonexistent/cipherdex-extract"))
        setenv(IsolatedPDFExtractor.helperPathEnvironmentKey, "/bin/true", 1)
        XCTAssertEqual(IsolatedPDFExtractor.locateHelper(), "/bin/true")
        unsetenv(IsolatedPDFExtractor.helperPathEnvironmentKey)
        // Without it, the advice says how a host that cannot re-run itself gets a helper.
        let advice = IsolatedPDFExtractor.missingHelperAdvice
        XCTAssertTrue(advice.contains("PDFExtractionHelper.runIfRequested()"), advice)
        XCTAssertTrue(advice.contains("swift build --product cipherdex-extract"), advice)
    }
}

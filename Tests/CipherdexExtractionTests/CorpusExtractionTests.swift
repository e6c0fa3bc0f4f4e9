import CipherdexExtraction
import CipherdexPDFWriter
import Foundation
import XCTest

/// Runs the isolated extractor over every real-world PDF in the shared corpus (malformed, fuzzed,
/// encrypted, CJK, huge): each file must give a document or a typed error, in bounded time.
final class CorpusExtractionTests: XCTestCase {
    /// One file's outcome.
    private struct FileResult: Sendable {
        /// The file name.
        var name: String
        /// "ok" or the error's name.
        var outcome: String
        /// Wall-clock seconds.
        var seconds: Double
        /// Pages and characters extracted (ok only).
        var pages = 0, characters = 0
    }

    /// The whole corpus, two files at a time (the machine has two cores), 20 s per file.
    func testEveryCorpusFileGivesADocumentOrATypedError() throws {
        guard let directory = ExtractionTestSupport.corpusDirectory else { throw XCTSkip("PDF corpus not found") }
        let names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.lowercased().hasSuffix(".pdf") }.sorted()
        XCTAssertFalse(names.isEmpty)
        let extractor = IsolatedPDFExtractor(limits: .init(wallClockSeconds: 20, cpuSeconds: 20, memoryBytes: 1 << 30))
        let results = ResultBox<FileResult>(count: names.count)
        let start = Date()
        DispatchQueue.concurrentPerform(iterations: names.count) { index in
            let name = names[index]
            let bytes = [UInt8](FileManager.default.contents(atPath: directory + "/" + name) ?? Data())
            let fileStart = Date()
            var result = FileResult(name: name, outcome: "?", seconds: 0)
            do {
                let document = try extractor.extract(data: bytes, fileExtension: "pdf", password: nil)
                result.outcome = "ok"
                result.pages = document.pages.count
                result.characters = document.pages.reduce(0) { $0 + $1.text.count }
            } catch let error as ExtractionError {
                result.outcome = error.name
            } catch {
                result.outcome = "untyped: \(error)"
            }
            result.seconds = Date().timeIntervalSince(fileStart)
            results.set(index, result)
        }
        let total = Date().timeIntervalSince(start)
        let all = results.values
        var counts: [String: Int] = [:]
        for result in all { counts[result.outcome, default: 0] += 1 }
        print("CORPUS SUMMARY: \(all.count) files in \(String(format: "%.1f", total)) s")
        for (outcome, count) in counts.sorted(by: { $0.value > $1.value }) { print("  \(outcome): \(count)") }
        print("  pages: \(all.reduce(0) { $0 + $1.pages }), characters: \(all.reduce(0) { $0 + $1.characters })")
        print("SLOWEST:")
        for result in all.sorted(by: { $0.seconds > $1.seconds }).prefix(10) {
            print(String(format: "  %6.2f s  %@  %@", result.seconds, result.outcome, result.name))
        }
        for result in all where result.outcome != "ok" {
            print("  not ok: \(result.outcome)  \(result.name)")
        }
        let allowed: Set<String> = ["ok", "locked", "damaged", "timedOut", "memoryLimitExceeded", "helperCrashed", "unsupportedFormat"]
        for result in all {
            XCTAssertTrue(allowed.contains(result.outcome), "\(result.name): \(result.outcome)")
            XCTAssertLessThan(result.seconds, 25, result.name)
        }
        XCTAssertGreaterThan(counts["ok", default: 0], all.count / 2)
        XCTAssertLessThan(total, 900)
    }

    /// In-process against isolated extraction of a generated 300-page PDF.
    func testInProcessVersusIsolatedTiming() throws {
        let pages = (0..<300).map { page in
            (0..<30).map { line in "Page \(page) line \(line): encrypted searchable document store, quarterly invoice \(page * 30 + line)." }
                .joined(separator: "\n")
        }
        let pdf = makePDF(pages: pages, title: "Three hundred pages")
        var inProcess: [Double] = [], isolated: [Double] = []
        var reference: ExtractedDocument?
        for _ in 0..<3 {
            var start = Date()
            let local = try PDFTextExtractor().extract(data: pdf, password: nil)
            inProcess.append(Date().timeIntervalSince(start))
            start = Date()
            let remote = try IsolatedPDFExtractor().extract(data: pdf, password: nil)
            isolated.append(Date().timeIntervalSince(start))
            XCTAssertEqual(local, remote)
            reference = local
        }
        XCTAssertEqual(reference?.pages.count, 300)
        print(String(format: "TIMING 300-page PDF (%d bytes, %d chars): in-process min %.3f s median %.3f s; isolated min %.3f s median %.3f s",
                     pdf.count, reference?.pages.reduce(0) { $0 + $1.text.count } ?? 0,
                     inProcess.min()!, inProcess.sorted()[1], isolated.min()!, isolated.sorted()[1]))
    }
}

/// Results written by concurrent workers, one slot each.
private final class ResultBox<Value: Sendable>: @unchecked Sendable {
    /// Guards `slots`.
    private let lock = NSLock()
    /// One slot per index.
    private var slots: [Value?]

    /// Creates `count` empty slots.
    init(count: Int) { slots = Array(repeating: nil, count: count) }

    /// Fills slot `index`.
    func set(_ index: Int, _ value: Value) {
        lock.lock()
        slots[index] = value
        lock.unlock()
    }

    /// The filled slots in order.
    var values: [Value] {
        lock.lock()
        defer { lock.unlock() }
        return slots.compactMap { $0 }
    }
}

import Cipherdex
import CipherdexPDFWriter
import Foundation

/// `cipherdex-bench ocr [--pages N] [--corpus DIR] [--corpus-pages N]`: OCR speed and word
/// recall on generated scanned pages (300 dpi, skew, noise, blur) against `pdftoppm -r 300 -gray`
/// piped into the `tesseract` command on the same pages, both with one OpenMP thread per page and
/// as many pages at once as cores; then what OCR finds on the image-only pages of a real corpus.
enum OCRSuite {
    /// Runs the suite with the arguments after `ocr`; returns the exit status.
    static func main(_ arguments: [String]) -> Int32 {
        var pageCount = 8
        var corpus = ["../shared/corpus/pdfs", "/work/shared/corpus/pdfs"].first {
            FileManager.default.fileExists(atPath: $0)
        }
        var corpusPages = 30
        var index = 0
        while index < arguments.count {
            let value = index + 1 < arguments.count ? arguments[index + 1] : nil
            switch arguments[index] {
            case "--pages":
                pageCount = value.flatMap(Int.init) ?? pageCount
                index += 1
            case "--corpus":
                corpus = value
                index += 1
            case "--corpus-pages":
                corpusPages = value.flatMap(Int.init) ?? corpusPages
                index += 1
            default: break
            }
            index += 1
        }
        do {
            print(try generated(pageCount: pageCount))
            if let corpus { print(try corpusReport(corpus, maximumPages: corpusPages)) }
            return 0
        } catch {
            FileHandle.standardError.write(Data("cipherdex-bench: error: \(error)\n".utf8))
            return 1
        }
    }

    /// The words of five letters or more in `text`, lower-cased.
    static func words(_ text: String) -> Set<String> {
        Set(text.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init).filter { $0.count >= 5 })
    }

    /// Generated pages: Cipherdex's helpers against pdftoppm + tesseract.
    static func generated(pageCount: Int) throws -> String {
        let corpus = SampleCorpus(documentCount: 1, pagesPerDocument: pageCount, wordsPerPage: 180)
        let texts = corpus.documents[0].pages
        let pdf = ScannedPDFWriter.make(pages: texts)
        let directory = Bench.scratchDirectory("ocr")
        let file = directory + "/scanned.pdf"
        try Data(pdf).write(to: URL(fileURLWithPath: file))
        let cores = ProcessInfo.processInfo.activeProcessorCount
        let settings = OCRSettings()
        let pool = IsolatedExtractorPool(limits: settings.pageLimits(), policy: .init(maximumIdleHelpers: cores))
        defer { pool.close() }
        let extractor = IsolatedPDFExtractor(pool: pool)
        let ours = Results(count: texts.count)
        let oursSeconds = Bench.time {
            DispatchQueue.concurrentPerform(iterations: cores) { worker in
                for page in stride(from: worker, to: texts.count, by: cores) {
                    let text = (try? extractor.recognizePage(page, of: pdf, password: nil, settings: settings))?.text
                    ours.set(page, text ?? "")
                }
            }
        }
        let peers = Results(count: texts.count)
        var peerSeconds = Double.nan
        if ChildProcess.available("pdftoppm") && ChildProcess.available("tesseract") {
            peerSeconds = Bench.time {
                DispatchQueue.concurrentPerform(iterations: cores) { worker in
                    for page in stride(from: worker, to: texts.count, by: cores) {
                        let output = directory + "/peer-\(page).txt"
                        let command =
                            "pdftoppm -r 300 -gray -f \(page + 1) -l \(page + 1) '\(file)' | tesseract stdin stdout 2>/dev/null"
                        _ = try? ChildProcess.run(
                            ["/bin/sh", "-c", command], stdoutPath: output, environment: ["OMP_THREAD_LIMIT": "1"],
                            measureRSS: false)
                        peers.set(page, (try? String(contentsOfFile: output, encoding: .utf8)) ?? "")
                    }
                }
            }
        }
        func recall(_ results: Results) -> Double {
            var found = 0
            var total = 0
            for (page, text) in texts.enumerated() {
                let expected = words(text)
                total += expected.count
                found += expected.intersection(words(results.get(page))).count
            }
            return total == 0 ? 0 : Double(found) / Double(total)
        }
        var lines = [
            "#### OCR of \(texts.count) generated scanned A4 pages (300 dpi, 1.5° skew, noise, blur; \(cores) pages at once, one OpenMP thread each)",
            "",
            "| | time per page | pages/s | words (5+ letters) found |",
            "| --- | ---: | ---: | ---: |",
            String(
                format: "| Cipherdex (helper: poppler-glib + cairo render, Tesseract C API) | %.2f s | %.2f | %.3f |",
                oursSeconds * Double(cores) / Double(texts.count), Double(texts.count) / oursSeconds, recall(ours)),
        ]
        if peerSeconds.isFinite {
            lines.append(
                String(
                    format: "| `pdftoppm -r 300 -gray` \\| `tesseract` (Tesseract %@) | %.2f s | %.2f | %.3f |",
                    "5.3", peerSeconds * Double(cores) / Double(texts.count), Double(texts.count) / peerSeconds,
                    recall(peers)))
            lines.append("")
            lines.append(String(format: "Cipherdex / peer time: %.2fx", oursSeconds / peerSeconds))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// The image-only pages of a corpus: how many files and pages qualify, what OCR finds.
    static func corpusReport(_ directory: String, maximumPages: Int) throws -> String {
        let files = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".pdf") }
            .sorted()
        let extractor = IsolatedPDFExtractor()
        let settings = OCRSettings()
        let pool = IsolatedExtractorPool(limits: settings.pageLimits())
        defer { pool.close() }
        let ocr = IsolatedPDFExtractor(pool: pool)
        var rows: [String] = []
        var candidateFiles = 0
        var imageOnlyFiles = 0
        var candidatePages = 0
        var recognized = 0
        var failed = 0
        var seconds = 0.0
        for name in files {
            guard let data = FileManager.default.contents(atPath: directory + "/" + name) else { continue }
            let bytes = [UInt8](data)
            guard let document = try? extractor.extract(data: bytes, password: nil, ocrCandidatesBelow: 16) else {
                continue
            }
            let pages = document.pages.filter(\.needsOCR).map(\.index)
            guard !pages.isEmpty else { continue }
            candidateFiles += 1
            if pages.count == document.pages.count { imageOnlyFiles += 1 }
            candidatePages += pages.count
            for page in pages.prefix(3) where recognized + failed < maximumPages {
                var wordsFound = 0
                var outcome = ""
                let elapsed = Bench.time {
                    do {
                        let text = try ocr.recognizePage(page, of: bytes, password: nil, settings: settings).text
                        wordsFound = text.split(whereSeparator: { !$0.isLetter }).filter { $0.count >= 3 }.count
                        let sample = text.split(whereSeparator: \.isWhitespace).prefix(8).joined(separator: " ")
                        outcome =
                            sample.isEmpty ? "(no text)" : "`" + sample.replacingOccurrences(of: "|", with: "/") + "`"
                        recognized += 1
                    } catch let error as ExtractionError {
                        outcome = "failed: \(error.name)"
                        failed += 1
                    } catch {
                        failed += 1
                    }
                }
                seconds += elapsed
                rows.append(
                    String(format: "| %@ | %d | %d | %.1f s | %@ |", name, page + 1, wordsFound, elapsed, outcome))
            }
        }
        var lines = [
            "#### Image-only pages of \(directory) (\(files.count) PDFs)",
            "",
            "\(candidateFiles) files have pages that qualify for OCR (text layer under 16 characters, an image), "
                + "\(imageOnlyFiles) of them on every page; \(candidatePages) pages in all. Recognised: the first "
                + "3 of each file, at most \(maximumPages): \(recognized) recognised, \(failed) failed, "
                + String(format: "%.1f s per page.", seconds / Double(max(recognized + failed, 1))),
            "",
            "| file | page | words (3+ letters) | time | first words |",
            "| --- | ---: | ---: | ---: | --- |",
        ]
        lines += rows
        return lines.joined(separator: "\n") + "\n"
    }
}

/// Page texts filled in by concurrent workers.
private final class Results: @unchecked Sendable {
    /// Guards `texts`.
    private let lock = NSLock()
    /// The text of each page.
    private var texts: [String]

    init(count: Int) { texts = Array(repeating: "", count: count) }

    func set(_ page: Int, _ text: String) { lock.withLock { texts[page] = text } }

    func get(_ page: Int) -> String { lock.withLock { texts[page] } }
}

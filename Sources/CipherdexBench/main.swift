/// `cipherdex-bench [SUITE...] [--quick]`: runs benchmark suites and prints markdown for
/// BENCHMARKS.md. Suites: store, attachments, search (default: these three), conversion, backup
/// (backup, incremental backup and export).
/// `cipherdex-bench generate-pdfs DIR [DOCUMENTS] [PAGES]` writes the sample corpus (the demo
/// uses it). `cipherdex-bench search-quality [--corpus DIR] [--queries N] [--seed S] [--json]`
/// evaluates search against `pdftotext` on real PDFs; `extraction-agreement` compares the words.
/// `cipherdex-bench page-text FILE` prints the page text Cipherdex extracts (in this process, form
/// feed between pages, like `pdftotext -q -enc UTF-8 FILE -`) and its search tokens with `--tokens`.
/// `cipherdex-bench search-scale [--pages N] [--work DIR] [--runs R]` compares search at scale
/// with recoll (issue 12). `cipherdex-bench ocr [--pages N] [--corpus DIR]` measures OCR against
/// pdftoppm + tesseract and on a corpus's image-only pages (issue 15).
import CipherdexPDFWriter
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "generate-pdfs" {
    guard arguments.count >= 2 else {
        FileHandle.standardError.write(Data("usage: cipherdex-bench generate-pdfs DIR [DOCUMENTS] [PAGES]\n".utf8))
        exit(64)
    }
    let corpus = SampleCorpus(
        documentCount: arguments.count > 2 ? Int(arguments[2]) ?? 8 : 8,
        pagesPerDocument: arguments.count > 3 ? Int(arguments[3]) ?? 5 : 5)
    do {
        try corpus.write(to: arguments[1])
        print("wrote \(corpus.documents.count) PDFs, \(corpus.pageCount) pages, to \(arguments[1])")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("cipherdex-bench: error: \(error)\n".utf8))
        exit(1)
    }
}
if arguments.first == "page-text" {
    exit(PageTextCommand.main(Array(arguments.dropFirst())))
}
if arguments.first == "index-composition" {
    exit(IndexCompositionCommand.main(Array(arguments.dropFirst())))
}
if arguments.first == "ocr" {
    exit(OCRSuite.main(Array(arguments.dropFirst())))
}
if arguments.first == "search-scale" {
    exit(SearchScaleSuite.main(arguments))
}
if let first = arguments.first, first == "search-quality" || first == "extraction-agreement" {
    exit(SearchQualitySuite.main(arguments))
}
let quick = arguments.contains("--quick")
var suites = arguments.filter { !$0.hasPrefix("--") }
if suites.isEmpty { suites = ["store", "attachments", "search"] }
print("# cipherdex-bench \(arguments.joined(separator: " "))\n")
print(
    "machine: \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB\n"
)
do {
    for suite in suites {
        switch suite {
        case "store": print(try StoreSuite.run(quick: quick))
        case "open": print(try StoreSuite.openLatency(iterations: quick ? 5 : 41, includePassphrase: false))
        case "attachments": print(try AttachmentSuite.run(quick: quick))
        case "search": print(try SearchSuite.run(quick: quick))
        case "conversion": print(try ConversionSuite.run(quick: quick))
        case "backup": print(try BackupSuite.run(quick: quick))
        default:
            FileHandle.standardError.write(Data("cipherdex-bench: unknown suite \(suite)\n".utf8))
            exit(64)
        }
    }
} catch {
    FileHandle.standardError.write(Data("cipherdex-bench: error: \(error)\n".utf8))
    exit(1)
}

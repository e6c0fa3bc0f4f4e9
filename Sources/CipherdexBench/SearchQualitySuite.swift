import Cipherdex
import CipherdexEvaluation
import Foundation

/// `cipherdex-bench search-quality [--corpus DIR] [--queries N] [--seed S] [--json]`: the search
/// evaluation on real PDFs against `pdftotext`'s text (see `SearchQualityEvaluation`), with the
/// extraction's word agreement; `extraction-agreement [--corpus DIR] [--gap R|off]...` prints the
/// agreement alone (with `--gap`, extracting in this process with each word-gap ratio, to tune it).
enum SearchQualitySuite {
    /// The corpus when `--corpus` is not given: the shared folder next to the checkout.
    static let defaultCorpus = "../shared/corpus/pdfs"

    /// Runs the suite named by `arguments[0]` with the options after it; returns the exit status.
    static func main(_ arguments: [String]) -> Int32 {
        var corpus = defaultCorpus
        var settings = SearchQualityEvaluation.Settings(corpus: corpus)
        var json = false
        var gapRatios: [Double?] = []
        var index = 1
        func value() -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            switch arguments[index] {
            case "--corpus": corpus = value() ?? corpus
            case "--queries": settings.queriesPerCell = value().flatMap { Int($0) } ?? settings.queriesPerCell
            case "--seed": settings.seed = value().flatMap { UInt64($0) } ?? settings.seed
            case "--json": json = true
            case "--gap": gapRatios.append(value().flatMap { $0 == "off" ? Double?.none : Double($0) } ?? nil)
            default:
                FileHandle.standardError.write(
                    Data(
                        "usage: cipherdex-bench search-quality|extraction-agreement [--corpus DIR] [--queries N] [--seed S] [--json]\n"
                            .utf8))
                return 64
            }
            index += 1
        }
        settings.corpus = corpus
        if let scratch = ProcessInfo.processInfo.environment["CIPHERDEX_BENCH_DIR"] { settings.scratch = scratch }
        guard TruthCorpus.pdftotextAvailable else {
            FileHandle.standardError.write(
                Data("cipherdex-bench: pdftotext is not installed (scripts/bootstrap --bench)\n".utf8))
            return 69
        }
        do {
            if arguments[0] == "extraction-agreement" {
                let truth = try TruthCorpus.load(directory: corpus)
                guard !gapRatios.isEmpty else {
                    let agreement = WordAgreement(
                        corpus: truth, extracted: SearchQualityEvaluation.extractAll(corpus: truth, directory: corpus))
                    print(json ? encode(agreement) : agreement.markdown)
                    return 0
                }
                // Tuning: in-process extraction (trusted input only) with each word-gap ratio.
                for ratio in gapRatios {
                    let extracted = SearchQualityEvaluation.extractAll(
                        corpus: truth, directory: corpus, extractor: PDFTextExtractor(wordGapRatio: ratio))
                    print("word-gap ratio \(ratio.map { String($0) } ?? "off") (in-process)\n")
                    print(WordAgreement(corpus: truth, extracted: extracted).markdown)
                }
                return 0
            }
            let report = try SearchQualityEvaluation(settings: settings).run()
            print(
                json
                    ? report.json
                    : report.markdown
                        + "\ncommand: `.build/release/cipherdex-bench search-quality --corpus \(corpus) --queries \(settings.queriesPerCell) --seed \(settings.seed)`\n"
            )
            return 0
        } catch {
            FileHandle.standardError.write(Data("cipherdex-bench: error: \(error)\n".utf8))
            return 1
        }
    }

    private static func encode<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}

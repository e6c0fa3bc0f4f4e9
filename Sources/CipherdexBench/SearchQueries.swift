import CipherdexPDFWriter
import Foundation

/// One query of the search suite, as each tool spells it.
struct BenchQuery {
    /// What kind of query it is (for the per-query table).
    let kind: String
    /// Cipherdex's query syntax.
    let cipherdex: String
    /// Recoll's query language (`recollq QUERY`): the same syntax for everything used here.
    let recoll: String
    /// A `pdfgrep -i` regular expression that approximates it (pdfgrep has no AND or NOT per
    /// page: an AND becomes `a.*b` on one line, an exclusion keeps only the positive word).
    let pdfgrep: String
    /// For `ref…` words: the only page (file name, page index) that has it.
    let expectedPage: (file: String, page: Int)?

    init(_ kind: String, _ cipherdex: String, recoll: String? = nil, pdfgrep: String? = nil, expectedPage: (String, Int)? = nil) {
        self.kind = kind
        self.cipherdex = cipherdex
        self.recoll = recoll ?? cipherdex
        self.pdfgrep = pdfgrep ?? cipherdex
        self.expectedPage = expectedPage.map { (file: $0.0, page: $0.1) }
    }

    /// The fixed query list (~30) for a corpus of `documents` × `pagesPerDocument` pages.
    static func list(for corpus: SampleCorpus, pagesPerDocument: Int) -> [BenchQuery] {
        var queries: [BenchQuery] = [
            BenchQuery("common word", "the"),
            BenchQuery("common word", "patient"),
            BenchQuery("common word", "analysis"),
            BenchQuery("common word", "water"),
            BenchQuery("common word", "court"),
            BenchQuery("rare word", "subpoena"),
            BenchQuery("rare word", "settlement"),
            BenchQuery("rare word", "affidavit"),
            BenchQuery("rare word", "magnesium"),
            BenchQuery("rare word", "turbidity"),
            BenchQuery("topic word", "cardiology"),
            BenchQuery("topic word", "geology"),
            BenchQuery("topic word", "arbitration"),
            BenchQuery("topic word", "hydrology"),
        ]
        // `ref<d>x<p>` with p in 3...9: not the prefix of another page's reference (ref3x2 would
        // begin ref3x20), so Cipherdex's default prefix matching finds exactly one page.
        let count = corpus.documents.count
        let picks: [(Double, Int)] = [(0.15, 7), (0.35, 3), (0.6, 9), (0.9, 5), (1.0, 8)]
        for (fraction, page) in picks {
            let document = max(1, min(count, Int((fraction * Double(count)).rounded()))) - 1
            let pageIndex = min(page, pagesPerDocument) - 1
            let word = SampleCorpus.reference(document: document, page: pageIndex)
            queries.append(
                BenchQuery("ref word", word, expectedPage: (corpus.documents[document].fileName, pageIndex)))
        }
        queries += [
            BenchQuery("two-word AND", "patient dose", pdfgrep: "patient.*dose"),
            BenchQuery("two-word AND", "court witness", pdfgrep: "court.*witness"),
            BenchQuery("two-word AND", "aquifer nitrate", pdfgrep: "aquifer.*nitrate"),
            BenchQuery("phrase", "\"of the\"", pdfgrep: "of the"),
            BenchQuery("phrase", "\"the patient\"", pdfgrep: "the patient"),
            BenchQuery("phrase", "\"water sample\"", pdfgrep: "water sample"),
            BenchQuery("prefix", "ana*", pdfgrep: "\\bana"),
            BenchQuery("OR", "biopsy OR affidavit", pdfgrep: "biopsy|affidavit"),
            BenchQuery("exclusion", "cardiology -lovelace", pdfgrep: "cardiology"),
            BenchQuery("exclusion", "geology -rock", pdfgrep: "geology"),
            BenchQuery("ends-with", "*ology", pdfgrep: "ology\\b"),
            BenchQuery("inner", "*iolog*", pdfgrep: "iolog"),
        ]
        return queries
    }
}

import Foundation

/// A reproducible set of generated PDFs for the demo, tests and benchmarks: prose-like pages
/// drawn from a fixed vocabulary (so word frequencies look like text), with known rare words.
public struct SampleCorpus: Sendable {
    /// One generated document.
    public struct Document: Sendable {
        /// File name (`doc-0001.pdf`, …).
        public var fileName: String
        /// Title in the PDF metadata.
        public var title: String
        /// The text of each page, as drawn.
        public var pages: [String]
    }

    /// The documents.
    public var documents: [Document]

    /// Total number of pages.
    public var pageCount: Int { documents.reduce(0) { $0 + $1.pages.count } }

    /// Generates `documentCount` documents of `pagesPerDocument` pages of about `wordsPerPage`
    /// words each, the same for the same `seed`.
    public init(documentCount: Int, pagesPerDocument: Int, wordsPerPage: Int = 250, seed: UInt64 = 1) {
        var generator = SampleGenerator(seed: seed)
        documents = (0..<documentCount).map { documentIndex in
            let topic = Self.topics[documentIndex % Self.topics.count]
            let pages = (0..<pagesPerDocument).map { pageIndex -> String in
                var lines: [String] = []
                var line: [String] = []
                for wordIndex in 0..<wordsPerPage {
                    // Zipf-like: common words often, rare ones seldom.
                    let rank = Int(Double(Self.vocabulary.count) * pow(generator.unit(), 2.2))
                    var word = Self.vocabulary[min(rank, Self.vocabulary.count - 1)]
                    if wordIndex == 7 { word = topic }
                    if wordIndex == 0 { word = word.prefix(1).uppercased() + word.dropFirst() }
                    line.append(word)
                    if line.count == 12 {
                        lines.append(line.joined(separator: " ") + (generator.unit() < 0.3 ? "." : ""))
                        line = []
                    }
                }
                if !line.isEmpty { lines.append(line.joined(separator: " ") + ".") }
                lines.append("Reference \(Self.reference(document: documentIndex, page: pageIndex)).")
                return lines.joined(separator: "\n")
            }
            return Document(
                fileName: String(format: "doc-%04d.pdf", documentIndex + 1), title: "\(topic.capitalized) report \(documentIndex + 1)",
                pages: pages)
        }
    }

    /// A word that appears on exactly one page: `ref<document>x<page>`.
    public static func reference(document: Int, page: Int) -> String {
        "ref\(document + 1)x\(page + 1)"
    }

    /// Writes every document into `directory` (created if needed).
    public func write(to directory: String) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for document in documents {
            let bytes = PDFWriter.make(pages: document.pages, metadata: PDFMetadata(title: document.title, creator: "cipherdex sample corpus"))
            guard FileManager.default.createFile(atPath: directory + "/" + document.fileName, contents: Data(bytes)) else {
                throw CocoaError(.fileWriteUnknown)
            }
        }
    }

    /// Topic words, one per document in turn (each appears on every page of its documents).
    public static let topics = [
        "cardiology", "arbitration", "geology", "pharmacy", "hydrology", "radiology", "contract", "survey",
    ]

    /// The vocabulary pages are drawn from, most frequent first.
    public static let vocabulary: [String] = {
        let common = """
            the of and to in a is that for it as was with be by on not he this are or his from at which but have an
            they you were her she there been one all we their has would when if so no will more can who out some
            what time only other new into than could about these two may then first any like now my such our over
            patient record clinic report case study field sample court order claim evidence witness statement
            measurement analysis result method data value range level site water soil rock layer depth pressure
            treatment dose medication symptom history review follow note observation procedure schedule contract
            party agreement clause payment invoice notice term period section appendix figure table summary
            analytical engine difference lovelace babbage ledger archive dossier memorandum transcript exhibit
            diagnosis prognosis therapy allergy infusion biopsy scan imaging lesion fracture tissue sediment
            aquifer borehole rainfall runoff gauge turbidity salinity nitrate sulphate calcium magnesium
            plaintiff defendant tribunal hearing verdict appeal counsel affidavit deposition subpoena settlement
            """
        return common.split(whereSeparator: { $0 == " " || $0 == "\n" }).map(String.init)
    }()
}


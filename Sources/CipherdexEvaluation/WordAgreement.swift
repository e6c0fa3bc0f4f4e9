/// Word-level agreement of the library's extraction with `pdftotext`, per page: the multiset of
/// whitespace-separated words of each, compared as they are (case and punctuation kept).
public struct WordAgreement: Sendable, Codable {
    /// Counts for a group of pages.
    public struct Counts: Sendable, Codable {
        /// Files in the group.
        public var files = 0
        /// Pages compared.
        public var pages = 0
        /// Words `pdftotext` printed.
        public var truthWords = 0
        /// Words the library's extraction produced.
        public var ourWords = 0
        /// Words in both (multiset intersection, per page).
        public var common = 0

        /// Share of pdftotext's words we also produce.
        public var recall: Double { truthWords == 0 ? 1 : Double(common) / Double(truthWords) }
        /// Share of our words pdftotext also produces.
        public var precision: Double { ourWords == 0 ? 1 : Double(common) / Double(ourWords) }

        mutating func add(_ other: Counts) {
            files += other.files
            pages += other.pages
            truthWords += other.truthWords
            ourWords += other.ourWords
            common += other.common
        }
    }

    /// Every file the library could extract.
    public var overall = Counts()
    /// Per corpus source (the file name up to `__`: pdfjs, qpdf, pdfminer…).
    public var byCategory: [String: Counts] = [:]
    /// Per file.
    public var byFile: [String: Counts] = [:]
    /// Files the library could not extract (not counted above).
    public var unextracted: [String] = []

    /// Compares `extracted` (per document, nil when the library failed) with the truth.
    public init(corpus: TruthCorpus, extracted: [[String]?]) {
        for (document, ours) in zip(corpus.documents, extracted) {
            guard let ours else {
                unextracted.append(document.name)
                continue
            }
            var counts = Counts(files: 1)
            for (index, truthPage) in document.pages.enumerated() {
                let truth = Self.words(truthPage)
                let mine = Self.words(index < ours.count ? ours[index] : "")
                counts.pages += 1
                counts.truthWords += truth.values.reduce(0, +)
                counts.ourWords += mine.values.reduce(0, +)
                counts.common += truth.reduce(0) { $0 + min($1.value, mine[$1.key] ?? 0) }
            }
            overall.add(counts)
            byFile[document.name] = counts
            let category = document.name.components(separatedBy: "__").first ?? "other"
            byCategory[category, default: Counts()].add(counts)
        }
    }

    /// The words of `text` split on whitespace, counted.
    static func words(_ text: String) -> [Substring: Int] {
        var result: [Substring: Int] = [:]
        for word in text.split(whereSeparator: { $0.isWhitespace }) { result[word, default: 0] += 1 }
        return result
    }

    /// The agreement as a markdown table, by corpus source, with the files that agree least.
    public var markdown: String {
        var text = ""
        text += "#### Word agreement with pdftotext (per page, whitespace-separated words as multisets)\n\n"
        text +=
            "| source | pages | files | pdftotext words | our words | of pdftotext's words we produce | of our words pdftotext produces |\n| --- | --- | --- | --- | --- | --- | --- |\n"
        for (name, counts) in [("all", overall)] + byCategory.sorted(by: { $0.key < $1.key }) {
            text +=
                "| \(name) | \(counts.pages) | \(counts.files) | \(counts.truthWords) | \(counts.ourWords) | \(SearchQualityReport.percent(counts.recall)) | \(SearchQualityReport.percent(counts.precision)) |\n"
        }
        let worst = byFile.filter { $0.value.truthWords >= 30 }.sorted { $0.value.recall < $1.value.recall }.prefix(8)
        text +=
            "\nlowest agreement (≥ 30 words): "
            + worst.map { "\($0.key) \(SearchQualityReport.percent($0.value.recall))" }.joined(separator: ", ") + "\n\n"
        return text
    }
}

import Cipherdex
import Foundation

/// The evaluation's figures: recall and precision per query kind and script, the causes of the
/// misses, and the extraction's word agreement with `pdftotext`.
public struct SearchQualityReport: Sendable, Codable {
    /// Figures for one kind and script (or `all`).
    public struct Cell: Sendable, Codable {
        /// The query kind, or `all`.
        public var kind: String
        /// The script, or `all`.
        public var script: String
        /// Queries.
        public var queries = 0
        /// (file, page) pairs the truth expects, summed over queries.
        public var expected = 0
        /// Pairs the library found.
        public var found = 0
        /// Pairs both expected and found.
        public var correct = 0
        /// Sum over queries with expected pages of their recall (for the macro average).
        var recallSum = 0.0
        var recallCount = 0
        var precisionSum = 0.0
        var precisionCount = 0

        /// Micro-averaged recall over (file, page) pairs.
        public var recall: Double { expected == 0 ? 1 : Double(correct) / Double(expected) }
        /// Micro-averaged precision over (file, page) pairs.
        public var precision: Double { found == 0 ? 1 : Double(correct) / Double(found) }
        /// Recall averaged over queries.
        public var macroRecall: Double { recallCount == 0 ? 1 : recallSum / Double(recallCount) }
        /// Precision averaged over queries that found something.
        public var macroPrecision: Double { precisionCount == 0 ? 1 : precisionSum / Double(precisionCount) }

        mutating func add(_ outcome: QueryOutcome) {
            queries += 1
            expected += outcome.expected.count
            found += outcome.found.count
            correct += outcome.correct
            if !outcome.expected.isEmpty {
                recallSum += Double(outcome.correct) / Double(outcome.expected.count)
                recallCount += 1
            }
            if !outcome.found.isEmpty {
                precisionSum += Double(outcome.correct) / Double(outcome.found.count)
                precisionCount += 1
            }
        }
    }

    /// Per kind and script.
    public var cells: [Cell] = []
    /// Per kind, all scripts.
    public var byKind: [Cell] = []
    /// Per script, all kinds but negative controls.
    public var byScript: [Cell] = []
    /// Everything but negative controls.
    public var total = Cell(kind: "all", script: "all")
    /// Causes of missed pages: count and examples.
    public var misses: [String: MissAnalysis.Category]
    /// Causes of extra pages.
    public var extras: [String: MissAnalysis.Category]
    /// Word agreement of the extraction with pdftotext.
    public var agreement: WordAgreement
    /// Files, pages and what happened to the files.
    public var documents: Int
    /// Truth pages.
    public var pages: Int
    /// Files without truth (pdftotext failed or found no page), with the reason.
    public var excluded: [String: String]
    /// Files with truth that the library did not index, with their status.
    public var notIndexed: [String: String]
    /// Queries the library rejected.
    public var searchErrors: Int
    /// The seed and queries per cell.
    public var seed: UInt64
    /// Most queries per kind and script.
    public var queriesPerCell: Int
    /// Seconds to index the files.
    public var indexingSeconds: Double
    /// Seconds for the whole evaluation.
    public var seconds: Double

    init(
        settings: SearchQualityEvaluation.Settings, corpus: TruthCorpus, index: TruthIndex, outcomes: [QueryOutcome],
        misses: MissAnalysis, agreement: WordAgreement, statuses: [String: IndexStatus], searchErrors: Int,
        indexingSeconds: Double, seconds: Double
    ) {
        var cells: [String: Cell] = [:]
        var kinds: [String: Cell] = [:]
        var scripts: [String: Cell] = [:]
        for outcome in outcomes {
            let kind = outcome.query.kind.rawValue
            let script = outcome.query.script.rawValue
            cells[kind + "\u{0}" + script, default: Cell(kind: kind, script: script)].add(outcome)
            kinds[kind, default: Cell(kind: kind, script: "all")].add(outcome)
            if outcome.query.kind != .negative {
                scripts[script, default: Cell(kind: "all", script: script)].add(outcome)
                total.add(outcome)
            }
        }
        func kindOrder(_ name: String) -> Int { EvaluationQuery.Kind.allCases.firstIndex { $0.rawValue == name } ?? 99 }
        func scriptOrder(_ name: String) -> Int { EvaluationScript.allCases.firstIndex { $0.rawValue == name } ?? 99 }
        self.cells = cells.values.sorted {
            (kindOrder($0.kind), scriptOrder($0.script)) < (kindOrder($1.kind), scriptOrder($1.script))
        }
        byKind = kinds.values.sorted { kindOrder($0.kind) < kindOrder($1.kind) }
        byScript = scripts.values.sorted { scriptOrder($0.script) < scriptOrder($1.script) }
        self.misses = misses.misses
        self.extras = misses.extras
        self.agreement = agreement
        documents = corpus.documents.count
        pages = index.pages.count
        excluded = Dictionary(corpus.excluded.map { ($0.name, $0.reason) }, uniquingKeysWith: { a, _ in a })
        var notIndexed: [String: String] = [:]
        for document in corpus.documents {
            switch statuses[document.name] {
            case .finished?: break
            case let status?: notIndexed[document.name] = "\(status)"
            case nil: notIndexed[document.name] = "no status"
            }
        }
        self.notIndexed = notIndexed
        self.searchErrors = searchErrors
        seed = settings.seed
        queriesPerCell = settings.queriesPerCell
        self.indexingSeconds = indexingSeconds
        self.seconds = seconds
    }

    /// The report as markdown tables.
    public var markdown: String {
        var text =
            "### Search quality: \(documents) PDFs with pdftotext text, \(pages) pages; seed \(seed), ≤ \(queriesPerCell) queries per kind and script\n\n"
        text += table("By query kind", byKind, first: "kind") { $0.kind }
        text += table("By script (all kinds but negative controls)", byScript, first: "script") { $0.script }
        text +=
            "all queries but negative controls: \(total.queries) queries, recall \(Self.percent(total.recall)), precision \(Self.percent(total.precision)) (micro); macro \(Self.percent(total.macroRecall)) / \(Self.percent(total.macroPrecision))\n\n"
        text += table("By kind and script", cells, first: "kind | script") { "\($0.kind) | \($0.script)" }
        text += causes("Missed pages by cause", misses)
        text += causes("Extra pages by cause", extras)
        text += agreement.markdown
        text +=
            "files without truth (pdftotext failed or found no page): \(excluded.count); with truth but not indexed: \(notIndexed.count)"
        text +=
            notIndexed.isEmpty
            ? ""
            : " (" + notIndexed.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: "; ")
                + ")"
        text += "; queries rejected by the parser: \(searchErrors)\n\n"
        text += String(format: "indexing %.1f s; whole evaluation %.1f s\n", indexingSeconds, seconds)
        return text
    }

    /// The report as JSON.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    private func table(_ title: String, _ rows: [Cell], first: String, _ label: (Cell) -> String) -> String {
        let extraColumns = first.components(separatedBy: "|").count - 1
        var text =
            "#### \(title)\n\n| \(first) | queries | expected pages | found | recall | precision | macro recall | macro precision |\n|"
        text += String(repeating: " --- |", count: 8 + extraColumns) + "\n"
        for row in rows {
            text +=
                "| \(label(row)) | \(row.queries) | \(row.expected) | \(row.found) | \(Self.percent(row.recall)) | \(Self.percent(row.precision)) | \(Self.percent(row.macroRecall)) | \(Self.percent(row.macroPrecision)) |\n"
        }
        return text + "\n"
    }

    private func causes(_ title: String, _ table: [String: MissAnalysis.Category]) -> String {
        let total = table.values.reduce(0) { $0 + $1.count }
        var text = "#### \(title) (\(total) (query, page) pairs)\n\n| cause | pairs | examples |\n| --- | --- | --- |\n"
        for (cause, category) in table.sorted(by: { $0.value.count > $1.value.count }) {
            let examples = category.examples.prefix(3).joined(separator: "; ").replacingOccurrences(
                of: "|", with: "\\|"
            )
            .replacingOccurrences(of: "\n", with: " ")
            text += "| \(cause) | \(category.count) | \(examples) |\n"
        }
        return text + "\n"
    }

    static func percent(_ value: Double) -> String { String(format: "%.1f%%", value * 100) }
}

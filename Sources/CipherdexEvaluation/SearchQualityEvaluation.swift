import Cipherdex
import Foundation
import Synchronization

/// The search-quality evaluation: PDFs indexed into a fresh encrypted store with the library's
/// defaults (isolated extraction), generated queries searched, and the pages found compared with
/// the pages whose `pdftotext` text matches (`TruthIndex`).
public struct SearchQualityEvaluation {
    /// What to evaluate.
    public struct Settings: Sendable {
        /// The folder of PDFs.
        public var corpus: String
        /// Only these files of it (nil: every `.pdf`).
        public var files: [String]?
        /// Most queries per kind and script.
        public var queriesPerCell = 40
        /// The generator's seed.
        public var seed: UInt64 = 1
        /// Where to create the store (a fresh folder under it, removed afterwards).
        public var scratch = NSTemporaryDirectory()
        /// The search options (the result cap is raised and previews are switched off; page
        /// text only, since `pdftotext` does not print annotations).
        public var options: SearchOptions = {
            var options = SearchOptions()
            options.maximumResults = 10_000_000
            options.includePreviews = false
            options.excludeAnnotations = true
            return options
        }()

        /// Settings for `corpus`.
        public init(corpus: String) { self.corpus = corpus }
    }

    /// The settings.
    public let settings: Settings

    /// An evaluation with `settings`.
    public init(settings: Settings) { self.settings = settings }

    /// Runs the evaluation.
    public func run() throws -> SearchQualityReport {
        let started = Date()
        let corpus = try TruthCorpus.load(directory: settings.corpus, files: settings.files)
        let index = TruthIndex(corpus: corpus)
        let queries = QueryGenerator(index: index, options: settings.options).queries(
            perCell: settings.queriesPerCell, seed: settings.seed)

        let storePath = settings.scratch + "/cipherdex-search-quality-\(UUID().uuidString.prefix(8))"
        let key = (0..<32).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let store = try Store.open(StoreConfiguration(path: storePath, keyProvider: { try EncryptionKey.raw(key) }))
        defer {
            store.close()
            try? Store.delete(at: storePath)
        }
        let indexingStarted = Date()
        for document in corpus.documents {
            try store.library.add(fileAt: settings.corpus + "/" + document.name, uid: document.name)
        }
        store.library.waitUntilIdle()
        let indexingSeconds = Date().timeIntervalSince(indexingStarted)
        var statuses: [String: IndexStatus] = [:]
        for entry in try store.library.statuses() { statuses[entry.uid] = entry.status }

        let pageNumber = Dictionary(uniqueKeysWithValues: index.pages.enumerated().map { ($1, $0) })
        let documentIndex = Dictionary(uniqueKeysWithValues: corpus.documents.enumerated().map { ($1.name, $0) })
        var outcomes: [QueryOutcome] = []
        var searchErrors = 0
        for query in queries {
            let expected = index.matchingPages(query.rule)
            var found = Set<Int>()
            var unknown = 0
            do {
                let results = try store.library.search(query.text, options: settings.options)
                for (uid, pages) in results.documents {
                    guard let document = documentIndex[uid] else { continue }
                    for page in pages {
                        if let number = pageNumber[TruthIndex.PageRef(document: document, page: page)] {
                            found.insert(number)
                        } else {
                            unknown += 1
                        }
                    }
                }
            } catch {
                searchErrors += 1
            }
            outcomes.append(QueryOutcome(query: query, expected: expected, found: found, foundBeyondTruth: unknown))
        }

        let extracted = Self.extractAll(corpus: corpus, directory: settings.corpus)
        var analysis = MissAnalysis(corpus: corpus, index: index, extracted: extracted, statuses: statuses)
        for outcome in outcomes { analysis.analyse(outcome) }
        return SearchQualityReport(
            settings: settings, corpus: corpus, index: index, outcomes: outcomes, misses: analysis,
            agreement: WordAgreement(corpus: corpus, extracted: extracted), statuses: statuses,
            searchErrors: searchErrors, indexingSeconds: indexingSeconds, seconds: Date().timeIntervalSince(started))
    }

    /// Every document's pages as `extractor` reads them (by default the library's isolated
    /// extraction), two at a time, nil when it fails.
    public static func extractAll(
        corpus: TruthCorpus, directory: String,
        extractor: any PDFExtractor = IsolatedPDFExtractor(
            limits: IsolatedPDFExtractor.Limits(wallClockSeconds: 20, cpuSeconds: 20))
    ) -> [[String]?] {
        let results = Mutex([[String]?](repeating: nil, count: corpus.documents.count))
        let next = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            while true {
                let index = next.withLock { value -> Int in
                    defer { value += 1 }
                    return value
                }
                guard index < corpus.documents.count else { return }
                let path = directory + "/" + corpus.documents[index].name
                guard let data = FileManager.default.contents(atPath: path),
                    let document = try? extractor.extract(data: [UInt8](data), password: nil)
                else { continue }
                let pages = document.pages.map(\.text)
                results.withLock { $0[index] = pages }
            }
        }
        return results.withLock { $0 }
    }
}

/// One query's result against the truth.
public struct QueryOutcome: Sendable {
    /// The query.
    public var query: EvaluationQuery
    /// Page numbers (`TruthIndex.pages`) the truth says match.
    public var expected: Set<Int>
    /// Page numbers the library found.
    public var found: Set<Int>
    /// Pages found that the truth does not have (pdftotext saw fewer pages).
    public var foundBeyondTruth: Int

    /// Pages both found and expected.
    public var correct: Int { expected.intersection(found).count }
}

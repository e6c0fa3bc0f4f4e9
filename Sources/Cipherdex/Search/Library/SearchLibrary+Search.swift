import Foundation

extension SearchLibrary {
    /// Searches the index. The query syntax: words (each matches the words it begins, unless
    /// `exactWordsOnly`), "exact phrases", `-excluded` words or phrases, `OR` between terms, and a
    /// trailing `*` for an explicit prefix. A malformed query throws `SearchQueryError` with the
    /// position; user text can never reach FTS or SQL as syntax. An option out of its range
    /// (`maximumResults` below 1, a negative `previewLength`, …) throws
    /// `SearchError.invalidOption`.
    public func search(_ text: String, options: SearchOptions = SearchOptions()) throws -> SearchResults {
        try search(text, options: options, cancellation: nil)
    }

    /// `search(_:options:)` whose preview work stops once `cancellation` is set, as on
    /// `cancelPreviews()`.
    func search(_ text: String, options: SearchOptions, cancellation: WorkCancellation?) throws -> SearchResults {
        guard let store else { throw StoreError.closed }
        try options.validate()
        var queryOptions: SearchQuery.Options = []
        if options.exactWordsOnly { queryOptions.insert(.exactWords) }
        if options.exactPhrasesOnly { queryOptions.insert(.exactPhrases) }
        let query = try SearchQuery.parse(text, options: queryOptions)
        let empty = SearchResults(documents: [:], rankedUIDs: [], previews: [])
        if options.excludeAnnotations && options.excludeDocumentText { return empty }
        return try Store.mappingDatabaseErrors {
            try store.read { db in
                let stemming = try SearchSchema.tokenizer(db) == .englishStemming
                // Ends-with and inner matches and one-character runs as patterns (`TermPattern`),
                // every indexed term they stand for read by `TopHits`.
                let compiled = try query.compiled(stemming: stemming, readingPatterns: true)
                // Only the best rows are described and ranked in full (TopHits).
                let outcome = try TopHits.select(compiled, options: options, db: db)
                let kept = outcome.hits
                var previews = kept.map { hit in
                    SearchPreview(
                        uid: hit.uid, pageIndex: hit.pageIndex, preview: "", matchRanges: [], pageMatchRanges: [],
                        score: hit.score, isAnnotation: hit.isAnnotation,
                        annotationIndex: hit.isAnnotation ? hit.ordinal : nil, isOCR: hit.isOCR)
                }
                let previewed = options.includePreviews ? Self.previewedIndices(kept, options: options) : []
                if !previewed.isEmpty {
                    let generation = previewGeneration.load(ordering: .acquiring)
                    let texts = try Self.bodiesAndMatches(
                        of: previewed.map { kept[$0].docid },
                        occurrences: outcome.phrasesAsCompiled
                            ? previewed.map { Self.phraseOccurrences(matchInfo: kept[$0].matchInfo) } : nil,
                        match: compiled.match, stemming: stemming,
                        windowCharacters: max(options.previewLength, 1), db: db,
                        isCancelled: {
                            Task.isCancelled || cancellation?.isCancelled == true
                                || self.previewGeneration.load(ordering: .relaxed) != generation
                        })
                    for index in previewed {
                        guard let (body, offsets) = texts[kept[index].docid] else { continue }
                        let preview = PreviewBuilder(body: body, byteRanges: offsets)
                            .preview(before: options.previewCharactersBefore, length: options.previewLength)
                        previews[index].preview = preview.text
                        previews[index].matchRanges = preview.matchRanges
                        previews[index].pageMatchRanges = preview.pageMatchRanges
                        previews[index].hasPreview = true
                    }
                }
                var documents: [String: Set<Int>] = [:]
                var best: [String: Double] = [:]
                for hit in kept {
                    documents[hit.uid, default: []].insert(hit.pageIndex)
                    best[hit.uid] = max(best[hit.uid] ?? -.infinity, hit.score)
                }
                let ranked = best.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.map(\.key)
                return SearchResults(
                    documents: documents.mapValues { $0.sorted() }, rankedUIDs: ranked, previews: previews)
            }
        }
    }

    /// Stops the preview work of every search running now: they return their results at once,
    /// the previews not yet cut left empty (`hasPreview` false). PDFLibrary's
    /// `cancelAllPreviewTextOperations`; cancelling the calling Task does the same for one search.
    public func cancelPreviews() {
        previewGeneration.add(1, ordering: .releasing)
    }

    /// The indices into `kept` (best first) that get a preview under the preview caps.
    static func previewedIndices(_ kept: [Hit], options: SearchOptions) -> [Int] {
        var perDocument: [String: Int] = [:]
        var indices: [Int] = []
        for (index, hit) in kept.enumerated() {
            if let total = options.maximumPreviewResults, indices.count >= total { break }
            if let limit = options.maximumPreviewResultsPerDocument, perDocument[hit.uid, default: 0] >= limit {
                continue
            }
            perDocument[hit.uid, default: 0] += 1
            indices.append(index)
        }
        return indices
    }

    /// One matching row before limits.
    struct Hit {
        let docid: Int64
        let uid: String
        let pageIndex: Int
        let isAnnotation: Bool
        let ordinal: Int
        /// Whether the row's text was recognised (OCR).
        var isOCR = false
        let score: Double
        /// `matchinfo(search_text, 'pcnalx')`.
        let matchInfo: [UInt32]
    }

    /// Each phrase's hits in the row (matchinfo `x`, one column) from `matchinfo(…, 'pcnalx')`,
    /// or nil when the array is not that shape.
    static func phraseOccurrences(matchInfo info: [UInt32]) -> [Int]? {
        guard info.count >= 3, info[1] == 1 else { return nil }
        let phrases = Int(info[0])
        guard info.count == 5 + 3 * phrases else { return nil }
        return (0..<phrases).map { Int(info[5 + 3 * $0]) }
    }

    /// Best first; at most `maximumResultsPerDocument` per UID and `maximumResults` in all.
    static func rankAndLimit(_ hits: [Hit], options: SearchOptions) -> [Hit] {
        let sorted = hits.sorted {
            if $0.score != $1.score { return $0.score > $1.score }
            if $0.uid != $1.uid { return $0.uid < $1.uid }
            if $0.pageIndex != $1.pageIndex { return $0.pageIndex < $1.pageIndex }
            return $0.docid < $1.docid
        }
        var perDocument: [String: Int] = [:]
        var kept: [Hit] = []
        for hit in sorted {
            if let limit = options.maximumResultsPerDocument, perDocument[hit.uid, default: 0] >= limit { continue }
            perDocument[hit.uid, default: 0] += 1
            kept.append(hit)
            if kept.count >= options.maximumResults { break }
        }
        return kept
    }

    /// The original text and the matched byte ranges of the given rows (which match `match`):
    /// the bodies by docid, the ranges from `MatchLocator`, the same as FTS `offsets()` gives
    /// (the tests compare both) without running the full-text query again or re-tokenising each
    /// page through the SQLite tokenizer interface (`PageTextMatches`: the rows are read on this
    /// thread and inflated and located on a helper thread as well).
    /// `occurrences[i]`, when given, is each phrase's number of occurrences in row `docids[i]`
    /// (from matchinfo), so the scan of that page can stop after its last match.
    /// `isCancelled` is asked between pages: once it is true, the bodies found so far are
    /// returned.
    static func bodiesAndMatches(
        of docids: [Int64], occurrences: [[Int]?]? = nil, match: String, stemming: Bool, windowCharacters: Int? = nil,
        db: Connection, helper: Bool = true, isCancelled: () -> Bool = { false }
    ) throws -> [Int64: (String, [Range<Int>])] {
        try PageTextMatches.read(
            docids, occurrences: occurrences, match: match, stemming: stemming, windowCharacters: windowCharacters,
            db: db, helper: helper, isCancelled: isCancelled)
    }
}

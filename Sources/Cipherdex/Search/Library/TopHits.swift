/// The best rows of a search (issue 12), without describing or sorting every match.
///
/// The first stage finds every matching row and what BM25 needs of it: on a reader, straight
/// from FTS4's segments (`directRows`: each row's hits of each phrase), else through FTS4 (each
/// row's `docid` and `matchinfo(…, 'pcnax')`, read in place). It adds the rows' lengths read in
/// bulk (`DocumentLengths`: the same values as matchinfo's `l`, without its lookup per row) and
/// scores every row with `BM25` (rows read directly: computed as they are compared, never kept;
/// through FTS4: into a flat array). A bounded min-heap of scores finds the `maximumResults`-th
/// best score in one pass (`best`); only the rows at or above it (ties included) are looked up in
/// `search_pages`, given their whole 'pcnalx' values and ranked in full by
/// `SearchLibrary.rankAndLimit`. When the per-document cap or the page/annotation filter leaves
/// fewer than `maximumResults`, the next rows by score are described in turn (twice as many each
/// round). Every row left out scores strictly below every row described, so the results are
/// exactly those of ranking every row.
package enum TopHits {
    /// The kept hits, best first, and what it took.
    package struct Outcome {
        /// What `rankAndLimit` keeps: at most `maximumResults`, best first.
        var hits: [SearchLibrary.Hit]
        /// Rows that matched the query.
        package var matchedRows: Int
        /// Rows looked up in `search_pages` (the described candidates).
        package var describedRows: Int
        /// False when FTS4 ran the query with its patterns spelled out (`PatternExpansion`):
        /// the hits' matchinfo then has the phrases of that expression, not of the compiled one.
        var phrasesAsCompiled = true

        /// The kept rows, best first: FTS docid and BM25 score (for comparisons in benchmarks).
        package var ranked: [(docid: Int64, score: Double)] { hits.map { ($0.docid, $0.score) } }
    }

    /// Runs `compiled` over `search_text` and returns the best rows under `options`' caps; on a
    /// reader's connection the rows come from FTS4's segments (`directRows`) unless
    /// `directPostings` is false or the reader cannot read them.
    package static func select(
        _ compiled: CompiledSearchQuery, options: SearchOptions, db: Connection, directPostings: Bool = true
    ) throws -> Outcome {
        if directPostings, var direct = try directRows(compiled, db: db) {
            let scorer = BM25.RowScorer(
                rows: direct.tableRows, average: direct.averageLength, documents: direct.phraseRows)
            if let slots = direct.slots {
                // One term's rows in their slots, with lengths by slot: nothing is gathered.
                if let lengths = try direct.slotLengths
                    ?? DocumentLengths.slotLengths(low: slots.low, span: slots.span, db: db)
                {
                    let hits = slots.slotHits
                    let shared = direct.shared
                    return try lengths.withUnsafeBufferPointer { lengths in
                        try choose(
                            SlotScores(scorer: scorer, hits: hits, lengths: lengths), docid: { slots.low + Int64($0) },
                            matchedRows: direct.slottedRows,
                            matchInfo: { slot in
                                var row = shared
                                (row[4], row[5]) = (lengths[slot], hits[slot])
                                return row
                            }, options: options, db: db)
                    }
                }
                let gathered = slots.matches(adding: FTS4Postings.Matches())
                (direct.docids, direct.hits, direct.slots) = (gathered.docids, gathered.hits, nil)
            }
            // One column: each row's length and hits are all its score needs, so scores are
            // computed as they are compared, never kept (8 MB for `the` at 1,000,000 pages).
            var lengths = [UInt32](repeating: 0, count: direct.docids.count)
            try DocumentLengths.fill(&lengths, docids: direct.docids, stride: 1, offset: 0, columns: 1, db: db)
            let docids = direct.docids
            return try direct.hits.withUnsafeBufferPointer { hits in
                try lengths.withUnsafeBufferPointer { lengthValues in
                    try choose(
                        ComputedScores(scorer: scorer, hits: hits, lengths: lengthValues), docid: { docids[$0] },
                        matchedRows: docids.count, matchInfo: { direct.matchInfo($0, length: lengths[$0]) },
                        options: options, db: db)
                }
            }
        }
        var query = compiled
        var phrasesAsCompiled = true
        switch try PatternExpansion.expanded(compiled, db: db) {
        case .unchanged: break
        case .matchesNothing: return Outcome(hits: [], matchedRows: 0, describedRows: 0, phrasesAsCompiled: false)
        case .expanded(let expanded): (query, phrasesAsCompiled) = (expanded, false)
        }
        let rows = try ftsRows(query, db: db)
        var outcome = try rows.scores.withUnsafeBufferPointer { scores in
            try choose(
                KeptScores(scores: scores), docid: { rows.docids[$0] }, matchedRows: rows.docids.count,
                matchInfo: { Array(rows.infos[($0 * rows.stride)..<(($0 + 1) * rows.stride)]) }, options: options,
                db: db)
        }
        outcome.phrasesAsCompiled = phrasesAsCompiled
        return outcome
    }

    /// The rows' scores, one at a time.
    protocol RowScores: SendableMetatype {
        /// The number of rows (or slots).
        var count: Int { get }
        /// True when every row scores above 0 and every other index exactly 0, so that `best`
        /// tells rows by their score, without a branch on `isRow` that a slot array of a
        /// common word (two in three slots rows, in no order) mispredicts a third of the time.
        var rowsScoreAboveZero: Bool { get }
        /// Whether `index` is a row (a slot may hold none).
        func isRow(_ index: Int) -> Bool
        /// Row `index`'s score.
        func score(_ index: Int) -> Double
    }

    /// Scores kept in a buffer.
    struct KeptScores: RowScores {
        /// Each row's score.
        let scores: UnsafeBufferPointer<Double>
        var count: Int { scores.count }
        var rowsScoreAboveZero: Bool { false }
        @inline(__always)
        func isRow(_ index: Int) -> Bool { true }
        @inline(__always)
        func score(_ index: Int) -> Double { scores[index] }
    }

    /// Scores computed from each row's hits and length when asked for (`BM25.RowScorer`: the
    /// values of `BM25.score`).
    struct ComputedScores: RowScores {
        /// The scorer the rows share.
        let scorer: BM25.RowScorer
        /// Each row's hits of each phrase, row after row.
        let hits: UnsafeBufferPointer<UInt32>
        /// Each row's length.
        let lengths: UnsafeBufferPointer<UInt32>
        var count: Int { lengths.count }
        var rowsScoreAboveZero: Bool { false }
        @inline(__always)
        func isRow(_ index: Int) -> Bool { true }
        @inline(__always)
        func score(_ index: Int) -> Double { scorer.score(index, hits: hits, length: lengths[index]) }
    }

    /// One term's scores computed from its slots (`DenseTermHits`) and the lengths by slot: a slot
    /// of 0 hits is no row.
    struct SlotScores: RowScores {
        /// The scorer the rows share (one phrase).
        let scorer: BM25.RowScorer
        /// Each slot's hits.
        let hits: UnsafeBufferPointer<UInt32>
        /// Each slot's length.
        let lengths: UnsafeBufferPointer<UInt32>
        var count: Int { min(hits.count, lengths.count) }
        /// Whether the scorer scores every row above 0 (then a slot of 0 hits scores exactly 0).
        let rowsScoreAboveZero: Bool

        /// The scores of the slots `hits`, whose lengths are `lengths`.
        init(scorer: BM25.RowScorer, hits: UnsafeBufferPointer<UInt32>, lengths: UnsafeBufferPointer<UInt32>) {
            (self.scorer, self.hits, self.lengths) = (scorer, hits, lengths)
            rowsScoreAboveZero = scorer.scoresRowsAboveZero
        }

        @inline(__always)
        func isRow(_ index: Int) -> Bool { hits[index] > 0 }
        @inline(__always)
        func score(_ index: Int) -> Double { scorer.score(index, hits: hits, length: lengths[index]) }
    }

    /// `select`'s rounds: the best rows described, then more in turn while the caps leave fewer
    /// than `maximumResults`.
    private static func choose<Scores: RowScores>(
        _ scores: Scores, docid: (Int) -> Int64, matchedRows: Int, matchInfo: (Int) -> [UInt32],
        options: SearchOptions, db: Connection
    ) throws -> Outcome {
        var candidates: [SearchLibrary.Hit] = []
        var ceiling = Double.infinity
        var wanted = options.maximumResults
        var described = 0
        while true {
            // Scores are finite (BM25 of finite counts), so -infinity means "every row left".
            let (floor, chosen) = best(scores, rank: wanted, below: ceiling)
            described += chosen.count
            candidates += try describe(chosen, docid: docid, matchInfo: matchInfo, options: options, db: db)
            let kept = SearchLibrary.rankAndLimit(candidates, options: options)
            if kept.count >= options.maximumResults || floor == -.infinity {
                return Outcome(hits: kept, matchedRows: matchedRows, describedRows: described)
            }
            ceiling = floor
            wanted = wanted > Int.max / 2 ? Int.max : wanted * 2
        }
    }

    /// Every row `compiled` matches through FTS4 itself: its docid, `matchinfo(…, 'pcnax')` stored
    /// in the 'pcnalx' layout BM25 scores (p, c, n, a[c], l[c], x[3cp]; no per-row `l`:
    /// `DocumentLengths` reads the lengths in bulk), and its score. A row whose values do not
    /// have the statement's size (never seen) scores 0.
    private static func ftsRows(_ compiled: CompiledSearchQuery, db: Connection) throws
        -> (docids: [Int64], infos: [UInt32], stride: Int, scores: [Double])
    {
        let (condition, arguments) = compiled.condition(table: "search_text")
        var docids: [Int64] = []
        var infos: [UInt32] = []
        var stride = -1
        var columns = 0
        var malformed: Set<Int> = []
        try db.forEachRowView(
            "SELECT docid, matchinfo(search_text, 'pcnax') FROM search_text WHERE \(condition)", arguments
        ) { row in
            let index = docids.count
            docids.append(row.integer(0))
            row.withBytes(1) { raw in
                let count = raw.count / 4
                func word(_ offset: Int) -> UInt32 {
                    raw.loadUnaligned(fromByteOffset: offset * 4, as: UInt32.self)
                }
                if stride < 0 {
                    columns = count >= 2 ? Int(word(1)) : 0
                    stride = count + columns
                }
                // Every row of one statement has the same size.
                guard count >= 3 + columns, count + columns == stride, Int(word(1)) == columns else {
                    malformed.insert(index)
                    infos.append(contentsOf: repeatElement(0, count: max(stride, 0)))
                    return
                }
                for offset in 0..<(3 + columns) { infos.append(word(offset)) }
                infos.append(contentsOf: repeatElement(0, count: columns))
                for offset in (3 + columns)..<count { infos.append(word(offset)) }
            }
        }
        stride = max(stride, 0)
        try DocumentLengths.fill(&infos, docids: docids, stride: stride, offset: 3 + columns, columns: columns, db: db)
        var scores: [Double] = []
        scores.reserveCapacity(docids.count)
        var idf = BM25.IDFCache()
        infos.withUnsafeBufferPointer { all in
            for index in docids.indices {
                let row = UnsafeBufferPointer(rebasing: all[(index * stride)..<((index + 1) * stride)])
                scores.append(
                    malformed.contains(index) ? 0 : (try? BM25.score(matchInfo: row, weights: [], cache: &idf)) ?? 0)
            }
        }
        return (docids, infos, stride, scores)
    }

    /// The `rank`-th best of the scores below `ceiling`, or -infinity when fewer are.
    static func threshold(_ scores: [Double], rank: Int, below ceiling: Double) -> Double {
        scores.withUnsafeBufferPointer { best(KeptScores(scores: $0), rank: rank, below: ceiling).floor }
    }

    /// The `rank`-th best of the scores below `ceiling` (`floor`, -infinity when fewer are; +infinity
    /// for a rank of 0), and every row at or above it and below `ceiling`, ties included, in row
    /// order, with its score: one pass, each score computed once. A min-heap keeps the best `rank`
    /// seen, so most rows cost one comparison; a row at or above the heap's least when it comes is
    /// noted (the least only rises, so every row at or above the final floor is among them: about
    /// `rank × ln(rows / rank)` rows in random order). From `BestHalves.fromRows` rows on, the
    /// two halves are gone through on two threads (`BestHalves`): the same floor and rows.
    static func best<Scores: RowScores>(_ scores: Scores, rank: Int, below ceiling: Double)
        -> (floor: Double, chosen: [(index: Int, score: Double)])
    {
        if BestHalves.applies(rows: scores.count, rank: rank) {
            return BestHalves.best(scores, rank: rank, below: ceiling)
        }
        return best(scores, rank: rank, below: ceiling, in: 0..<scores.count)
    }

    /// `best` of the rows in `range` alone, on this thread.
    static func best<Scores: RowScores>(_ scores: Scores, rank: Int, below ceiling: Double, in range: Range<Int>)
        -> (floor: Double, chosen: [(index: Int, score: Double)])
    {
        guard rank > 0 else { return (.infinity, []) }
        var heap: [Double] = []
        heap.reserveCapacity(min(rank, range.count))
        var noted: [(index: Int, score: Double)] = []
        noted.reserveCapacity(min(rank, range.count) * 2)
        let byScore = scores.rowsScoreAboveZero
        for index in range {
            if !byScore { guard scores.isRow(index) else { continue } }
            let score = scores.score(index)
            guard score < ceiling else { continue }
            if heap.count < rank {
                // Once the heap is full its least is a row's score, above 0: no other index
                // passes the comparison below.
                if byScore { guard score > 0 else { continue } }
                noted.append((index, score))
                heap.append(score)
                var child = heap.count - 1
                while child > 0 {
                    let parent = (child - 1) / 2
                    guard heap[child] < heap[parent] else { break }
                    heap.swapAt(child, parent)
                    child = parent
                }
            } else if score >= heap[0] {
                noted.append((index, score))
                guard score > heap[0] else { continue }
                heap[0] = score
                var parent = 0
                while true {
                    let left = 2 * parent + 1
                    let right = left + 1
                    var smallest = parent
                    if left < heap.count && heap[left] < heap[smallest] { smallest = left }
                    if right < heap.count && heap[right] < heap[smallest] { smallest = right }
                    guard smallest != parent else { break }
                    heap.swapAt(parent, smallest)
                    parent = smallest
                }
            }
        }
        let floor = heap.count < rank ? -Double.infinity : heap[0]
        return (floor, noted.filter { $0.score >= floor })
    }

    /// The hits of the chosen rows: their pages' facts from `search_page_runs` (`PageRuns`: the
    /// same values as `search_pages`, from a table a few hundred times smaller), without the pages
    /// or annotations `options` leaves out.
    private static func describe(
        _ chosen: [(index: Int, score: Double)], docid: (Int) -> Int64, matchInfo: (Int) -> [UInt32],
        options: SearchOptions, db: Connection
    ) throws -> [SearchLibrary.Hit] {
        var position: [Int64: (index: Int, score: Double)] = [:]
        position.reserveCapacity(chosen.count)
        for row in chosen { position[docid(row.index)] = row }
        var hits: [SearchLibrary.Hit] = []
        hits.reserveCapacity(chosen.count)
        for row in try PageRuns.rows(position.keys.sorted(), db: db) {
            guard let (index, score) = position[row.rowid] else { continue }
            let isAnnotation = row.kind == 1
            if options.excludeAnnotations && row.kind != 0 { continue }
            if options.excludeDocumentText && !isAnnotation { continue }
            hits.append(
                SearchLibrary.Hit(
                    docid: row.rowid, uid: row.uid, pageIndex: Int(row.pageIndex), isAnnotation: isAnnotation,
                    ordinal: Int(row.ordinal), isOCR: row.isOCR == 1, score: score,
                    matchInfo: matchInfo(index)))
        }
        return hits
    }
}

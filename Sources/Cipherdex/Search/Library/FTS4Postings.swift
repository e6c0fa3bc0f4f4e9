/// One term's (or prefix's) postings read straight from FTS4's own tables (issue 12), without
/// FTS4's per-row cursor: the docids of the rows that hold it and how often, as
/// `matchinfo(…, 'x')` counts them.
///
/// A common word's query spent most of its time in FTS4's row-by-row machinery (one virtual-table
/// step and one `matchinfo` call per matching row, and for a prefix a merge of every matching
/// term's doclist into one buffer after another), not in reading the index. Here the segments are
/// read as FTS4 lays them out (sqlite.org/fts3.html, "Data Structures"):
/// - `search_text_segdir` lists the segments, newest first by `level` ascending then `idx`
///   descending; each is a b-tree whose `root` is a leaf (height 0) or an interior node, and whose
///   other nodes are blocks of `search_text_segments`;
/// - an interior node is a varint height, the varint blockid of its first child, then its terms
///   (the first whole, the others as a shared-prefix length, a suffix length and the suffix), each
///   starting the next child; the leaves a term or prefix may be in are found as FTS4's
///   `fts3ScanInteriorNode` finds them, and are consecutive blocks;
/// - a leaf is the byte 0, then its terms (shared-prefix length, suffix length, suffix; the first
///   term's prefix length is that byte), each followed by its doclist's length and the doclist;
/// - a doclist is, per row, the varint docid (the first whole, then deltas) and the position list:
///   varints of position deltas plus 2, a 1 then a column number to change column, a 0 to end; a
///   row whose list is empty is deleted from every older segment.
/// For one term, a row's entry in the newest segment that holds the term wins; a prefix adds the
/// hits of every term it begins. That is what FTS4 gives a query of one token (no token of it is
/// ever deferred), so the counts are the same. An ends-with or inner pattern (`TermPattern`:
/// `*ology`, `*装*`), which FTS4 cannot read, adds up the terms it stands for in the same way;
/// they are found by reading the segments' leaves from the pattern's `lowestTerm` on, those a
/// Han or Hangul character's pairs cannot be in skipped (`FTS4Postings+Scan`).
///
/// Anything else — a segment of another index or language (level 1024 or above), a second column,
/// a block that is missing or does not parse — returns nil, and the caller asks FTS4 (which then
/// reports a damaged index itself).
enum FTS4Postings {
    /// The rows that hold a term, ascending, with its hits in each and in all of them.
    struct Matches: Equatable {
        /// The rows' docids, ascending.
        var docids: [Int64] = []
        /// The term's hits in each row (1 or more).
        var hits: [UInt32] = []
        /// The hits summed over every row (`matchinfo`'s 'x', second value).
        var totalHits: UInt64 { hits.reduce(0) { $0 + UInt64($1) } }
    }

    /// The rows of `term` (its folded UTF-8 as the tokenizer writes it into the index) in the
    /// FTS4 table `table`, or with `prefix` of every term it begins; nil when the index holds
    /// something this reader does not read (see the type's comment).
    ///
    /// The doclists are decoded into lists (`Postings`) until they hold about one byte for every
    /// two rows of the table's docid range (`denseFrom`, a fraction of the range: 2 by default;
    /// 0 for always, `Int.max` for never, in tests); from then on they are added up in one slot
    /// per docid (`DenseTermHits`), which costs the same whatever the entries.
    static func matches(
        of term: [UInt8], prefix: Bool, table: String = "search_text", denseFrom divisor: Int = 2,
        handOffBytes: Int = DoclistPipeline.defaultHandOffBytes, db: Connection
    ) throws -> Matches? {
        try matches(
            of: TermPattern(bytes: term, prefix: prefix), table: table, denseFrom: divisor, handOffBytes: handOffBytes,
            db: db)
    }

    /// `matches` of every term `pattern` stands for (an ends-with or inner pattern's terms are
    /// added up as a prefix's are, the terms past the 32nd in lists: `DenseTermHits`).
    static func matches(
        of pattern: TermPattern, table: String = "search_text", denseFrom divisor: Int = 2,
        handOffBytes: Int = DoclistPipeline.defaultHandOffBytes, db: Connection
    ) throws -> Matches? {
        try rows(of: pattern, table: table, denseFrom: divisor, handOffBytes: handOffBytes, db: db)?.matches
    }

    /// A term's rows as `matches` reads them: in lists, or in slots (`DenseTermHits`) with the
    /// rows the slots do not hold (`rest`: docids outside them, a prefix's terms past the 32nd).
    enum TermRows {
        /// Every row in lists.
        case listed(Matches)
        /// Rows in slots, and those outside them.
        case slotted(DenseTermHits, rest: Matches)

        /// The rows in lists, ascending.
        var matches: Matches {
            switch self {
            case .listed(let matches): matches
            case .slotted(let slots, let rest): slots.matches(adding: rest)
            }
        }
    }

    /// `matches` of `pattern`, without gathering slots into lists. Doclists of `handOffBytes` or
    /// more (and those after them) are decoded on a helper thread while the next are read
    /// (`DoclistPipeline`; 0 hands off every one, `Int.max` none, in tests). A scan, whose time
    /// is reading leaves rather than decoding the few doclists it keeps, reads the segments from
    /// both ends on a one-shot search process (`SegmentsFromBothEnds`).
    ///
    /// When the rows go into slots, `whileDecoding` is called with the slots' first docid and
    /// number once every doclist is read, on this thread, while the helper may still be decoding
    /// (`TopHits` reads the slots' page lengths then).
    static func rows(
        of pattern: TermPattern, table: String = "search_text", denseFrom divisor: Int = 2,
        handOffBytes: Int = DoclistPipeline.defaultHandOffBytes, db: Connection,
        whileDecoding: (_ low: Int64, _ span: Int) throws -> Void = { _, _ in }
    ) throws -> TermRows? {
        var perTerm: [[UInt8]: [Postings]] = [:]
        var bits: [[UInt8]: Int] = [:]
        var dense: DenseTermHits?
        var bytes = 0
        // The slots' range and the bytes read before switching to them (nil: never).
        let bounds = divisor == .max ? nil : try docidBounds(table: table, db: db)
        let switchAt = bounds.map { divisor <= 0 ? 0 : ($0.high &- $0.low) / Int64(divisor) } ?? .max
        // The state above is the decoder's: one thread's at a time (`DoclistPipeline`).
        let pipeline = DoclistPipeline(handOffBytes: handOffBytes) { found, doclist in
            bytes &+= doclist.count
            if dense == nil, let bounds, Int64(bytes) >= switchAt {
                dense = DenseTermHits(low: bounds.low, high: bounds.high)
                if let dense {
                    // The lists so far become slots, each term's newest first (as they were read).
                    for (listed, lists) in perTerm.sorted(by: { $0.key.lexicographicallyPrecedes($1.key) })
                    where bits.count < DenseTermHits.maximumTerms {
                        let bit = bits.count
                        bits[listed] = bit
                        for list in lists { dense.add(list, term: bit) }
                        perTerm[listed] = nil
                    }
                }
            }
            if let dense, perTerm[found] == nil {
                if bits[found] == nil && bits.count < DenseTermHits.maximumTerms { bits[found] = bits.count }
                if let bit = bits[found] { return dense.add(doclist, term: bit) }
            }
            guard let postings = Postings(doclist: doclist) else { return false }
            perTerm[found, default: []].append(postings)
            return true
        }
        // Every doclist handed off is decoded before this returns, or throws.
        defer { _ = pipeline.finish() }
        var delivered = 0
        let read = try forEachDoclist(of: pattern, table: table, db: db, fromBothEnds: pattern.scans) {
            found, doclist in
            delivered &+= doclist.count
            return pipeline.deliver(found, doclist)
        }
        // The decoder makes slots from the same count of bytes on (unless there would be too many).
        if read, let bounds, Int64(delivered) >= switchAt,
            let span = DenseTermHits.span(low: bounds.low, high: bounds.high)
        {
            try whileDecoding(bounds.low, span)
        }
        guard pipeline.finish(), read else { return nil }
        var terms = perTerm.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { perTerm[$0] ?? [] }
        guard let dense else { return .listed(combined(terms)) }
        terms += dense.outside
        return .slotted(dense, rest: combined(terms))
    }

    /// The lowest and highest docid of `table`'s rows (its `%_docsize`); nil when it has none or
    /// no such table (`matchinfo=fts3`).
    static func docidBounds(table: String, db: Connection) throws -> (low: Int64, high: Int64)? {
        let exists = try db.scalar(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(table + "_docsize")])
        guard exists?.integerValue == 1 else { return nil }
        guard let low = try db.scalar("SELECT min(docid) FROM \(table)_docsize")?.integerValue,
            let high = try db.scalar("SELECT max(docid) FROM \(table)_docsize")?.integerValue
        else { return nil }
        return (low, high)
    }

    /// Calls `body` with each doclist of `term` (or of each term `term` begins, with `prefix`) in
    /// every segment, newest segment first; false when the index holds something this reader does
    /// not read or `body` returned false.
    ///
    /// With `fromBothEnds`, on a connection with a `ReadCompanion` (a one-shot search process),
    /// once the doclists delivered reach `SegmentsFromBothEnds.fromBytes` a helper reads the
    /// oldest segments on the companion connection while this thread goes on with the newest
    /// (`SegmentsFromBothEnds`): `body` is called on this thread, in the same order, with the
    /// same doclists (or, with `takeCopies`, the helper's segments whole: `SegmentsFromBothEnds`).
    /// For a caller that leaves the second core idle while it reads (a phrase);
    /// one term's doclists are decoded on it meanwhile (`DoclistPipeline`), and a third thread
    /// made `the` 1.14x slower at 1,000,000 pages.
    static func forEachDoclist(
        of term: [UInt8], prefix: Bool, table: String, db: Connection, fromBothEnds: Bool = false,
        bothEndsFrom startBytes: Int = SegmentsFromBothEnds.fromBytes,
        takeCopies: ((SegmentsFromBothEnds.Copies) -> Bool)? = nil,
        _ body: ([UInt8], UnsafeRawBufferPointer) -> Bool
    ) throws -> Bool {
        try forEachDoclist(
            of: TermPattern(bytes: term, prefix: prefix), table: table, db: db, fromBothEnds: fromBothEnds,
            bothEndsFrom: startBytes, takeCopies: takeCopies, body)
    }

    /// `forEachDoclist` of every term `pattern` stands for, in every segment.
    static func forEachDoclist(
        of pattern: TermPattern, table: String, db: Connection, fromBothEnds: Bool = false,
        bothEndsFrom startBytes: Int = SegmentsFromBothEnds.fromBytes,
        takeCopies: ((SegmentsFromBothEnds.Copies) -> Bool)? = nil,
        _ body: ([UInt8], UnsafeRawBufferPointer) -> Bool
    ) throws -> Bool {
        var segments: [[UInt8]] = []
        var unsupported = false
        try db.forEachRowView("SELECT level, root FROM \(table)_segdir ORDER BY level ASC, idx DESC") { row in
            let level = row.integer(0)
            if level < 0 || level >= 1024 { unsupported = true }
            segments.append(row.withBytes(1) { Array($0) })
        }
        if unsupported { return false }
        if fromBothEnds, let (companion, read) = db.readCompanion, segments.count >= 2 {
            return try SegmentsFromBothEnds(segments: segments, companion: companion, read: read).forEachDoclist(
                of: pattern, table: table, db: db, startBytes: startBytes, takeCopies: takeCopies, body)
        }
        for root in segments {
            guard try forEachDoclist(of: pattern, inSegment: root, table: table, db: db, body) else {
                return false
            }
        }
        return true
    }

    /// `forEachDoclist` in the one segment whose root node is `root`: the leaves a term or prefix
    /// may be in (`leafRange`), or for an ends-with or inner pattern those a scan reads
    /// (`scannedLeaves`). `leafRead` is called with the size of each leaf block read.
    static func forEachDoclist(
        of pattern: TermPattern, inSegment root: [UInt8], table: String, db: Connection,
        leafRead: (Int) -> Void = { _ in }, _ body: ([UInt8], UnsafeRawBufferPointer) -> Bool
    ) throws -> Bool {
        let ranges: [ClosedRange<Int64>]
        if pattern.scans {
            switch try scannedLeaves(of: pattern, node: root, table: table, db: db) {
            case nil: return false
            case .root: return root.withUnsafeBytes { readLeaf($0, pattern: pattern, found: body) }
            case .blocks(let blocks)?: ranges = blocks
            }
        } else {
            switch try leafRange(of: pattern.bytes, prefix: pattern.prefix, node: root, table: table, db: db) {
            case nil: return false
            case .root: return root.withUnsafeBytes { readLeaf($0, pattern: pattern, found: body) }
            case .blocks(let first, let last)?: ranges = [first...last]
            }
        }
        for range in ranges {
            var parsed = true
            var expected = range.lowerBound
            try db.forEachRowView(
                "SELECT blockid, block FROM \(table)_segments WHERE blockid BETWEEN ? AND ? ORDER BY blockid",
                [.integer(range.lowerBound), .integer(range.upperBound)]
            ) { row in
                if row.integer(0) != expected { parsed = false }
                expected &+= 1
                if parsed {
                    parsed = row.withBytes(1) { leaf in
                        leafRead(leaf.count)
                        return readLeaf(leaf, pattern: pattern, found: body)
                    }
                }
            }
            guard parsed, expected == range.upperBound &+ 1 else { return false }
        }
        return true
    }

    /// Each term's newest entry per row (its lists newest first), then the terms' hits added up:
    /// in two arrays indexed by docid when the docids are dense enough (one in 4 of their range or
    /// more), else by merging the sorted lists.
    static func combined(_ terms: [[Postings]]) -> Matches {
        var entries = 0
        var low = Int64.max
        var high = Int64.min
        for lists in terms {
            for list in lists {
                guard let first = list.docids.first, let last = list.docids.last else { continue }
                entries += list.docids.count
                low = min(low, first)
                high = max(high, last)
            }
        }
        var matches = Matches()
        guard entries > 0 else { return matches }
        let (range, overflow) = high.subtractingReportingOverflow(low)
        if !overflow, range < Int64(entries) * 4 + 1_024 {
            let span = Int(range) + 1
            // One slot a docid of the range: the hits so far (plain buffers: this loop runs once
            // per entry, 650,000 times for a common word at 1,000,000 pages).
            let hits = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: span)
            // The last term that gave each row: made only for a term whose lists overlap (a row
            // deleted or re-written in a newer segment); a bulk-built index's segments hold
            // disjoint runs of docids.
            var owner: UnsafeMutableBufferPointer<UInt32>?
            defer {
                hits.deallocate()
                owner?.deallocate()
            }
            hits.initialize(repeating: 0)
            for (number, lists) in terms.enumerated() {
                let mark = UInt32(truncatingIfNeeded: number + 1)
                let disjoint = Self.disjoint(lists)
                if !disjoint && owner == nil {
                    owner = UnsafeMutableBufferPointer<UInt32>.allocate(capacity: span)
                    owner?.initialize(repeating: 0)
                }
                for list in lists {
                    list.docids.withUnsafeBufferPointer { docids in
                        list.hits.withUnsafeBufferPointer { counts in
                            for index in 0..<docids.count {
                                let slot = Int(docids[index] &- low)
                                // Lists ascend (`Postings`), so every slot is in the range; the
                                // check keeps a list that did not inside the buffers.
                                guard UInt(bitPattern: slot) < UInt(span) else { continue }
                                if !disjoint, let owner {
                                    // A newer list of this term already gave this row.
                                    if owner[slot] == mark { continue }
                                    owner[slot] = mark
                                }
                                hits[slot] &+= counts[index]
                            }
                        }
                    }
                }
            }
            // The rows are at most the entries and the slots.
            return gathered(UnsafeBufferPointer(hits), low: low, capacity: min(entries, span) + 1)
        }
        var merged = terms.map { Postings.newestFirst($0) }
        while merged.count > 1 {
            var next: [Postings] = []
            for start in Swift.stride(from: 0, to: merged.count, by: 2) {
                next.append(start + 1 < merged.count ? Postings.sum(merged[start], merged[start + 1]) : merged[start])
            }
            merged = next
        }
        guard let all = merged.first else { return matches }
        for index in all.docids.indices where all.hits[index] > 0 {
            matches.docids.append(all.docids[index])
            matches.hits.append(all.hits[index])
        }
        return matches
    }

    /// The slots holding hits (slot `i` is docid `low + i`), ascending, in one pass without a
    /// branch per slot (a common word's slots are a random two thirds full): each slot is written
    /// at the next free place, which moves on only for a row. `capacity` must exceed the rows.
    static func gathered(_ hits: UnsafeBufferPointer<UInt32>, low: Int64, capacity: Int) -> Matches {
        var rows = 0
        var counts: [UInt32] = []
        let docids = [Int64](unsafeUninitializedCapacity: capacity) { docids, initialized in
            counts = [UInt32](unsafeUninitializedCapacity: capacity) { values, written in
                for slot in 0..<hits.count {
                    let count = hits[slot]
                    docids[rows] = low &+ Int64(slot)
                    values[rows] = count
                    rows &+= count > 0 ? 1 : 0
                }
                written = rows
            }
            initialized = rows
        }
        return Matches(docids: docids, hits: counts)
    }

    /// Whether no two of `lists` (each ascending) can hold the same docid: their ranges
    /// `first...last`, in order, do not overlap.
    static func disjoint(_ lists: [Postings]) -> Bool {
        let ranges = lists.compactMap { list in list.docids.first.map { ($0, list.docids[list.docids.count - 1]) } }
            .sorted { $0.0 < $1.0 }
        for index in ranges.indices.dropFirst() where ranges[index].0 <= ranges[index - 1].1 { return false }
        return true
    }
}

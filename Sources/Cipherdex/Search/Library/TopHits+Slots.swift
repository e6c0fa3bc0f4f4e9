/// A query of several words or prefixes combined where their rows were read: in slots (issue 12).
///
/// Each common word's rows are read into one slot per docid (`DenseTermHits`). Gathering each
/// into lists (docids and hits, fresh memory for every row) and then merging the lists (union per
/// clause, intersection across clauses, exclusions subtracted) took a fifth of `patient dose`'s
/// process at 1,000,000 pages. When every piece of the query, exclusions included, is in slots of
/// the same range with nothing outside them, the rows are found instead from one bit a slot per
/// piece: a clause's rows are its pieces' bits ORed, the query's the clauses' ANDed, less the
/// exclusions'; then only the rows kept are written out, with each piece's hits from its slots.
/// The rows, hits and shared values are the ones the lists give (`DirectRows`).
extension TopHits {
    /// `clauses`' rows (each clause's pieces, in matchinfo's order) less `excluded`'s, when every
    /// piece is in slots of one range with no row outside them; nil otherwise (the caller merges
    /// lists). `shared` is p, c, n, a, l: each piece's 0, hits and rows are appended.
    static func slotCombined(
        _ clauses: [[FTS4Postings.TermRows]], excluded: [FTS4Postings.TermRows], shared: [UInt32]
    ) -> DirectRows? {
        func slots(_ rows: FTS4Postings.TermRows) -> DenseTermHits? {
            guard case .slotted(let slots, let rest) = rows, rest.docids.isEmpty else { return nil }
            return slots
        }
        let pieces = clauses.map { $0.compactMap(slots) }
        let exclusions = excluded.compactMap(slots)
        guard let first = pieces.first?.first, zip(pieces, clauses).allSatisfy({ $0.count == $1.count }),
            exclusions.count == excluded.count,
            (pieces.joined() + exclusions).allSatisfy({ $0.low == first.low && $0.span == first.span })
        else { return nil }
        let (low, span) = (first.low, first.span)
        let words = (span + 63) / 64
        // The query's rows, one bit a slot.
        var kept = [UInt64](repeating: .max, count: words)
        if span % 64 != 0 { kept[words - 1] = (1 << UInt64(span % 64)) - 1 }
        var bits = [UInt64](repeating: 0, count: words)
        for clause in pieces {
            bits.withUnsafeMutableBufferPointer { bits in
                bits.update(repeating: 0)
                for piece in clause { orRows(of: piece, into: bits) }
            }
            for word in 0..<words { kept[word] &= bits[word] }
        }
        for exclusion in exclusions {
            bits.withUnsafeMutableBufferPointer { bits in
                bits.update(repeating: 0)
                orRows(of: exclusion, into: bits)
            }
            for word in 0..<words { kept[word] &= ~bits[word] }
        }
        let flat = Array(pieces.joined())
        var shared = shared
        shared[0] = UInt32(flat.count)
        for piece in flat {
            let (rows, hits) = piece.totals()
            shared += [0, UInt32(truncatingIfNeeded: hits), UInt32(truncatingIfNeeded: rows)]
        }
        let count = kept.reduce(0) { $0 + $1.nonzeroBitCount }
        let phrases = flat.count
        let slotHits = flat.map(\.slotHits)
        var docids: [Int64] = []
        let hits = [UInt32](unsafeUninitializedCapacity: count * phrases) { hits, initialized in
            docids = [Int64](unsafeUninitializedCapacity: count) { docids, written in
                var row = 0
                for (word, value) in kept.enumerated() {
                    var remaining = value
                    while remaining != 0 {
                        let slot = word << 6 | remaining.trailingZeroBitCount
                        remaining &= remaining &- 1
                        docids[row] = low &+ Int64(slot)
                        for phrase in 0..<phrases { hits[row * phrases + phrase] = slotHits[phrase][slot] }
                        row += 1
                    }
                }
                written = row
            }
            initialized = count * phrases
        }
        return DirectRows(docids: docids, hits: hits, shared: shared)
    }

    /// Sets the bit of every slot of `slots` with hits.
    private static func orRows(of slots: DenseTermHits, into bits: UnsafeMutableBufferPointer<UInt64>) {
        let hits = slots.slotHits
        let full = hits.count / 64
        for word in 0..<full {
            var value: UInt64 = 0
            let base = word << 6
            for bit in 0..<64 where hits[base + bit] != 0 { value |= 1 << UInt64(bit) }
            bits[word] |= value
        }
        for slot in (full << 6)..<hits.count where hits[slot] != 0 {
            bits[slot >> 6] |= 1 << UInt64(slot & 63)
        }
    }
}

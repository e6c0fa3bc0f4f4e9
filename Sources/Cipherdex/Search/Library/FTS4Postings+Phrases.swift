import Dispatch
import Foundation

extension FTS4Postings {
    /// One token of a phrase: its folded UTF-8 and the terms it stands for (itself, those it
    /// begins, or for a phrase's first token those it ends: `*装 java`).
    typealias PhraseToken = TermPattern

    /// The rows where `tokens` stand one after the other, with how often (`matchinfo`'s 'x' of a
    /// phrase: the positions where the whole phrase starts), ascending; nil when the index holds
    /// something this reader does not read.
    ///
    /// Each token's doclists (every term it stands for, in every segment) are copied, still
    /// encoded, and read a window of 8,192 docids at a time (`PhraseWindow`). Only a row every
    /// token holds has its positions decoded: the first token's into a list of starts, each next
    /// token's merged with them as it is decoded (a token of one term) or stamped into a table
    /// indexed by position (a prefix of several), and the starts kept that find the token at
    /// their offset (`PhraseCounter`). Memory is that of the encoded doclists, of one window's
    /// entries and of a table as long as the longest row.
    ///
    /// On a one-shot search process's connection, each token's oldest segments are read on a
    /// second connection meanwhile (`SegmentsFromBothEnds`, from `bothEndsFrom` bytes of a
    /// token's doclists).
    static func phraseMatches(
        _ tokens: [PhraseToken], table: String = "search_text", db: Connection,
        bothEndsFrom startBytes: Int = SegmentsFromBothEnds.fromBytes
    ) throws -> Matches? {
        var all: [PhraseWindow.Doclists] = []
        for token in tokens {
            let doclists = PhraseWindow.Doclists()
            var terms: [[UInt8]: Int] = [:]
            func number(_ term: [UInt8]) -> Int {
                let number = terms[term] ?? terms.count
                terms[term] = number
                return number
            }
            let read = try forEachDoclist(
                of: token, table: table, db: db, fromBothEnds: true,
                bothEndsFrom: startBytes,
                takeCopies: { copies in
                    // A segment a helper read: its pages moved in, not copied again.
                    doclists.adopt(copies.chunk, ranges: copies.ranges, terms: copies.terms.map(number))
                    return true
                }
            ) { term, doclist in
                doclists.add(doclist, term: number(term))  // newest segment first
                return true
            }
            guard read else { return nil }
            all.append(doclists)
        }
        let bounds = try docidBounds(table: table, db: db)
        if ProcessInfo.processInfo.activeProcessorCount > 1, let bounds {
            let (range, overflow) = bounds.high.subtractingReportingOverflow(bounds.low)
            if !overflow, range >= PhraseHalf.fromDocids {
                return phraseMatches(
                    all, splitAt: bounds.low + Int64(Double(range) * PhraseHalf.callerShare), highest: bounds.high)
            }
        }
        return phraseMatches(all.map(PhraseWindow.init), through: bounds?.high)
    }

    /// `phraseMatches` of the doclists (one per token, in phrase order) on two threads: the rows
    /// below `split` on this one, the others on a helper (`PhraseHalf`), the same matches as one
    /// thread counts (the rows are counted one by one, wherever the windows start).
    /// `highest`, the table's highest docid, bounds the rows (each half's lists are given room
    /// for one row a docid up to it, so that they never grow by copying; see
    /// `phraseMatches(_:below:through:)`).
    static func phraseMatches(_ doclists: [PhraseWindow.Doclists], splitAt split: Int64, highest: Int64) -> Matches? {
        // Made first: they seal the doclists before the helper has them.
        let windows = doclists.map(PhraseWindow.init)
        let upper = PhraseHalf(doclists, from: split, highest: highest)
        DispatchQueue.global(qos: .userInitiated).async { upper.countIfUnclaimed() }
        // Room for the upper half's rows too: they are appended below.
        let lower = phraseMatches(windows, below: split, through: highest)
        guard let rest = upper.result(), var lower else { return nil }
        lower.docids += rest.docids
        lower.hits += rest.hits
        return lower
    }

    /// The rows where the tokens of `windows` (one per token, in phrase order) stand one after
    /// the other, with how often; nil when a doclist does not parse or a position is not below
    /// `PhraseCounter.positionLimit`. Only the rows every token holds have their position lists
    /// decoded, so damage in another row's list goes unseen, as it does not change the result
    /// (every list's extent is still checked).
    /// With `bound`, only the rows below it.
    ///
    /// With `highest` (a docid no row exceeds), the lists are first given room for one row per
    /// docid from the first row to `highest`: address space only, as the pages of room never
    /// written are never touched, where lists grown by doubling copy themselves into fresh memory
    /// (on a virtual machine each fresh page costs 1.4 to 12 µs; BENCHMARKS.md, "Fresh memory").
    static func phraseMatches(_ windows: [PhraseWindow], below bound: Int64 = .max, through highest: Int64? = nil)
        -> Matches?
    {
        var matches = Matches()
        guard !windows.isEmpty else { return matches }
        guard !windows.contains(where: \.failed) else { return nil }
        if let highest, let first = windows.compactMap(\.nextDocid).min(), first <= highest {
            let (span, overflow) = highest.subtractingReportingOverflow(first)
            if !overflow, span < Int64(DenseTermHits.maximumSlots) {
                matches.docids.reserveCapacity(Int(span) + 1)
                matches.hits.reserveCapacity(Int(span) + 1)
            }
        }
        var counter = PhraseCounter()
        while let base = windows.compactMap(\.nextDocid).min(), base < bound {
            for window in windows { guard window.load(from: base, below: bound) else { return nil } }
            let rows = windows.map(\.rows)
            let single = rows.allSatisfy(\.single)
            slots: for slot in 0..<PhraseWindow.size {
                for row in rows where !row.holds(slot) { continue slots }
                guard let count = counter.occurrences(in: slot, of: rows, single: single) else { return nil }
                if count > 0 {
                    matches.docids.append(base + Int64(slot))
                    matches.hits.append(count)
                }
            }
        }
        return matches
    }
}

import Foundation

/// A term's (or a prefix's terms') hits added up straight from the doclists into one slot per
/// docid of the table's range (issue 12), for a term common enough that the slots cost less than
/// lists: the same rows and hits as `FTS4Postings.combined` gives for the same doclists.
///
/// A common word's doclists, decoded first into one `Postings` per segment, took 12 bytes per
/// entry before they were added up: 64 MB for `the*` (7 terms, 5.3 million entries) at 1,000,000
/// pages, a fifth of its process's time spent in page faults. Here a slot holds the hits so far
/// (4 bytes), and each term has one bit a slot telling whether it already gave that row (a
/// bitset made when the term's first list comes: 125 KB at 1,000,000 pages, where a 4-byte mask
/// a slot took 4 MB of fresh memory; BENCHMARKS.md, "Fresh memory").
///
/// Terms are numbered in the order they are first seen; a term's lists come newest segment
/// first, so a row whose bit is set already has that term's newest entry (an empty one: the row
/// no longer holds the term) and older entries of it are skipped, as `combined` skips them. A
/// docid outside the slots (a row deleted since, never seen in a consistent index) is kept in a
/// list of its term's, added by `combined` at the end.
final class DenseTermHits {
    /// Terms with a bit; a prefix's later terms are read as lists (`FTS4Postings.matches`).
    static let maximumTerms = 32
    /// Most slots: a table of more rows, or a range holding more gaps, is read as lists.
    static let maximumSlots = 1 << 28

    /// The first slot's docid.
    let low: Int64
    /// The number of slots.
    let span: Int
    private let hits: UnsafeMutableBufferPointer<UInt32>
    /// Per term, one bit a slot (nil until the term's first list): set once the term gave that row.
    private var given: [UnsafeMutablePointer<UInt64>?] = Array(repeating: nil, count: DenseTermHits.maximumTerms)
    /// Each term bit's entries outside the slots, a list per doclist that had any, newest first.
    private(set) var outside: [[Postings]] = []

    /// Slots for the docids `low...high`; nil when there would be none or more than `maximumSlots`.
    init?(low: Int64, high: Int64) {
        guard let span = Self.span(low: low, high: high) else { return nil }
        self.low = low
        self.span = span
        // `calloc`: memory the system hands out is zero already, and is written once, not twice.
        guard let hits = calloc(span, MemoryLayout<UInt32>.stride) else {
            fatalError("out of memory for a term's slots")
        }
        self.hits = UnsafeMutableBufferPointer(start: hits.assumingMemoryBound(to: UInt32.self), count: span)
    }

    /// The number of slots for the docids `low...high`; nil when there would be none or more than
    /// `maximumSlots`.
    static func span(low: Int64, high: Int64) -> Int? {
        let (range, overflow) = high.subtractingReportingOverflow(low)
        guard !overflow, range >= 0, range < Int64(maximumSlots) else { return nil }
        return Int(range) + 1
    }

    deinit {
        free(hits.baseAddress)
        for bits in given { free(bits) }
    }

    /// Term `term`'s bitset, made (all clear) on first use.
    private func bits(of term: Int) -> UnsafeMutablePointer<UInt64> {
        if let bits = given[term] { return bits }
        guard let made = calloc((span + 63) / 64, MemoryLayout<UInt64>.stride) else {
            fatalError("out of memory for a term's slots")
        }
        let bits = made.assumingMemoryBound(to: UInt64.self)
        given[term] = bits
        return bits
    }

    /// Adds a doclist of the term with bit `term` (below `maximumTerms`), older than every list
    /// of that term added before; false when it does not parse (what `Postings(doclist:)` refuses).
    func add(_ doclist: UnsafeRawBufferPointer, term: Int) -> Bool {
        precondition(term >= 0 && term < Self.maximumTerms, "a term bit out of range")
        var stray = Postings()
        let (low, span, hits, given) = (self.low, UInt(span), self.hits, bits(of: term))
        let parsed = Postings.forEachEntry(of: doclist) { docid, count in
            // Below `low`, the difference is negative (a large unsigned slot); it cannot wrap
            // into the slots, whose last docid is at most `Int64.max`.
            let slot = UInt(bitPattern: Int(truncatingIfNeeded: docid &- low))
            guard slot < span else {
                stray.docids.append(docid)
                stray.hits.append(count)
                return
            }
            let index = Int(slot)
            let (word, bit) = (index >> 6, UInt64(1) << UInt64(index & 63))
            let bits = given[word]
            // A newer list of this term already gave this row.
            if bits & bit != 0 { return }
            given[word] = bits | bit
            hits[index] &+= count
        }
        guard parsed else { return false }
        keepOutside(stray, term: term)
        return true
    }

    /// Adds `postings`, a list of the term with bit `term` read before the slots were made (older
    /// than every list of that term added before).
    func add(_ postings: Postings, term: Int) {
        precondition(term >= 0 && term < Self.maximumTerms, "a term bit out of range")
        let given = bits(of: term)
        var stray = Postings()
        for (docid, count) in zip(postings.docids, postings.hits) {
            let slot = UInt(bitPattern: Int(truncatingIfNeeded: docid &- low))
            guard slot < UInt(span) else {
                stray.docids.append(docid)
                stray.hits.append(count)
                continue
            }
            let index = Int(slot)
            let (word, bit) = (index >> 6, UInt64(1) << UInt64(index & 63))
            if given[word] & bit != 0 { continue }
            given[word] |= bit
            hits[index] &+= count
        }
        keepOutside(stray, term: term)
    }

    private func keepOutside(_ stray: Postings, term: Int) {
        guard !stray.docids.isEmpty else { return }
        while outside.count <= term { outside.append([]) }
        outside[term].append(stray)
    }

    /// Each slot's hits (0: no row), for as long as this object lives.
    var slotHits: UnsafeBufferPointer<UInt32> { UnsafeBufferPointer(hits) }

    /// The number of slots with hits, and their hits added up.
    func totals() -> (rows: Int, hits: UInt64) {
        var rows = 0
        var total: UInt64 = 0
        for count in hits {
            rows &+= count > 0 ? 1 : 0
            total &+= UInt64(count)
        }
        return (rows, total)
    }

    /// The rows with hits, ascending, with `rest`'s (rows outside the slots, or other terms')
    /// added in: a row in both has the sum of its hits.
    func matches(adding rest: FTS4Postings.Matches) -> FTS4Postings.Matches {
        let gathered = FTS4Postings.gathered(UnsafeBufferPointer(hits), low: low, capacity: span + 1)
        guard !rest.docids.isEmpty else { return gathered }
        return Self.added(gathered, rest)
    }

    /// Two ascending row lists merged, the hits of a row in both added.
    static func added(_ a: FTS4Postings.Matches, _ b: FTS4Postings.Matches) -> FTS4Postings.Matches {
        var out = FTS4Postings.Matches()
        out.docids.reserveCapacity(a.docids.count + b.docids.count)
        out.hits.reserveCapacity(a.docids.count + b.docids.count)
        var i = 0
        var j = 0
        while i < a.docids.count || j < b.docids.count {
            if j == b.docids.count || (i < a.docids.count && a.docids[i] < b.docids[j]) {
                out.docids.append(a.docids[i])
                out.hits.append(a.hits[i])
                i += 1
            } else if i == a.docids.count || b.docids[j] < a.docids[i] {
                out.docids.append(b.docids[j])
                out.hits.append(b.hits[j])
                j += 1
            } else {
                let sum = a.hits[i] &+ b.hits[j]
                if sum > 0 {
                    out.docids.append(a.docids[i])
                    out.hits.append(sum)
                }
                i += 1
                j += 1
            }
        }
        return out
    }
}

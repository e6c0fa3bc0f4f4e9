import Foundation

/// One phrase token's rows, a window of `size` docids at a time: every doclist of the token (all
/// its terms, all segments), each row's entry from its term's newest segment (an empty entry: the
/// row no longer holds that term), each row's entries chained so that its positions are decoded
/// only when every token of the phrase holds the row (`rows`).
///
/// A class owning plain buffers, so that the phrase's inner loop reads them through `Rows`
/// without reference counting.
final class PhraseWindow {
    /// Docids per window: 8,192, so that a window's entries (12 bytes each, one per term of the
    /// token holding a row) stay in the core's second-level cache between `load` and counting;
    /// two common prefixes of several terms each (`"of the"`, `"the patient"` at 1,000,000
    /// pages) were 2–5% faster than with windows of 65,536, and a phrase is counted on two
    /// threads from 32,768 docids (`PhraseHalf.fromDocids`) rather than 262,144 (BENCHMARKS.md,
    /// "Fewer fresh pages in the PDF helper").
    static let size = 8_192

    /// A token's doclists, still encoded, in the order they were added (newest segment first):
    /// their bytes one after the other in one anonymous mapping (`GrowableMapping`, grown by
    /// `mremap`: never copied, and only the pages written are touched), then read in place by the
    /// token's `PhraseWindow`.
    /// `@unchecked Sendable`: once sealed (a `PhraseWindow` made from it) nothing changes it, and
    /// windows on two threads read it (`PhraseHalf`); `add` refuses to run after that.
    final class Doclists: @unchecked Sendable {
        private let buffer: GrowableMapping
        /// The number of bytes of every doclist together.
        private(set) var count = 0
        /// True once a `PhraseWindow` reads the buffer in place: no doclist may be added then.
        fileprivate var sealed = false
        /// True when the doclists outgrew the mapping (the window then refuses them).
        private(set) var tooLarge = false
        /// Where each doclist starts and ends in the buffer (adopted pages leave a gap before
        /// them, `adopt`).
        private(set) var starts: [Int] = []
        private(set) var ends: [Int] = []
        /// Each doclist's term (numbered in the order first seen).
        private(set) var terms: [Int] = []

        /// No doclist yet.
        init() {
            if let reserved = GrowableMapping(capacity: Self.reservation, reserving: true) {
                (buffer, self.reserved) = (reserved, true)
            } else if let small = GrowableMapping(capacity: 64 << 10) {
                (buffer, reserved) = (small, false)
            } else {
                fatalError("out of memory for a phrase's doclists")
            }
        }

        /// Whether `buffer` is the whole reservation: only then are pages moved in (a mapping
        /// that must still grow could not once they are).
        private let reserved: Bool

        /// The address space a token's doclists reserve: as much as a window reads (offsets of
        /// 32 bits), so that the mapping never grows and pages a helper copied can be moved in
        /// (`adopt`). Where the system refuses it, a small mapping grows as it fills.
        static let reservation = Int(UInt32.max)

        /// Adds a doclist of term number `term`.
        func add(_ doclist: UnsafeRawBufferPointer, term: Int) {
            precondition(!sealed, "a doclist added after its PhraseWindow was made")
            guard !tooLarge else { return }
            if count + doclist.count > buffer.capacity {
                guard buffer.grow(toAtLeast: max(count + doclist.count, buffer.capacity * 2)) else {
                    // Past the reservation (after pages were moved in, it cannot grow): more
                    // than a window reads, so the phrase is left to FTS4.
                    tooLarge = true
                    return
                }
            }
            if let source = doclist.baseAddress, doclist.count > 0 {
                (buffer.baseAddress + count).copyMemory(from: source, byteCount: doclist.count)
            }
            starts.append(count)
            count += doclist.count
            ends.append(count)
            terms.append(term)
        }

        /// Adds the doclists another thread copied into `chunk` (at `ranges` in it, of terms
        /// numbered `terms`), in that order, by moving the chunk's pages after the doclists so
        /// far (`GrowableMapping.adopt`: on Linux nothing is copied; `chunk` is left empty), or,
        /// without the reservation or when the system refuses, by copying them as `add` does.
        func adopt(_ chunk: GrowableMapping, ranges: [Range<Int>], terms chunkTerms: [Int]) {
            precondition(!sealed, "doclists adopted after their PhraseWindow was made")
            let base = GrowableMapping.pages(count)
            guard let last = ranges.last, reserved, !tooLarge, buffer.adopt(chunk, at: base) else {
                for (range, term) in zip(ranges, chunkTerms) {
                    add(
                        UnsafeRawBufferPointer(start: chunk.baseAddress + range.lowerBound, count: range.count),
                        term: term)
                }
                return
            }
            for (range, term) in zip(ranges, chunkTerms) {
                starts.append(base + range.lowerBound)
                ends.append(base + range.upperBound)
                terms.append(term)
            }
            count = base + last.upperBound
        }

        /// Every doclist's bytes, valid until the next `add` and while this object lives.
        var bytes: UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(start: buffer.baseAddress.assumingMemoryBound(to: UInt8.self), count: count)
        }
    }

    /// One row's entry: where its position list starts and ends in the doclists' bytes, and the
    /// row's next entry (-1: none). Twelve bytes, so that a window's entries stay in the cache
    /// longer (a token's doclists of 4 GiB or more are left to FTS4).
    struct Entry {
        var start: UInt32
        var end: UInt32
        var next: Int32
    }

    /// The loaded window, read-only, for as long as its window is alive and not reloaded.
    struct Rows {
        fileprivate let bytes: UnsafeBufferPointer<UInt8>
        fileprivate let heads: UnsafePointer<Int32>
        fileprivate let entries: UnsafePointer<Entry>
        /// True when no row of the window has more than one entry (a token of one term, the
        /// usual case): each row's positions are then one ascending list, `list(_:)`.
        let single: Bool

        /// Whether the row at `slot` holds the token.
        @inline(__always)
        func holds(_ slot: Int) -> Bool { heads[slot] >= 0 }

        /// The token's only position list in the row at `slot` (which holds it, in a `single`
        /// window): the bytes and where the list starts and ends in them.
        @inline(__always)
        func list(_ slot: Int) -> (bytes: UnsafeBufferPointer<UInt8>, start: Int, end: Int) {
            let entry = entries[Int(heads[slot])]
            return (bytes, Int(entry.start), Int(entry.end))
        }

        /// The token's positions in the row at `slot` (each term's ascending, the terms one after
        /// the other).
        @inline(__always)
        func positions(_ slot: Int) -> Positions { Positions(bytes: bytes, entries: entries, entry: heads[slot]) }
    }

    /// Decodes a row's positions, entry after entry; `failed` when a position list does not
    /// parse.
    struct Positions {
        fileprivate let bytes: UnsafeBufferPointer<UInt8>
        fileprivate let entries: UnsafePointer<Entry>
        private var entry: Int32
        private var offset = 0
        private var end = 0
        private var at: UInt64 = 0
        /// True when a position list did not parse (`next` then returns nil).
        private(set) var failed = false

        fileprivate init(bytes: UnsafeBufferPointer<UInt8>, entries: UnsafePointer<Entry>, entry: Int32) {
            (self.bytes, self.entries, self.entry) = (bytes, entries, entry)
            if entry >= 0 { (offset, end) = (Int(entries[Int(entry)].start), Int(entries[Int(entry)].end)) }
        }

        /// The next position, nil at the end or when `failed`.
        @inline(__always)
        mutating func next() -> UInt64? {
            while entry >= 0 {
                while offset < end {
                    let value: UInt64
                    let byte = bytes[offset]
                    if byte < 0x80 {
                        value = UInt64(byte)
                        offset += 1
                    } else {
                        guard let decoded = VarintReader.decode(bytes, at: &offset, end: end) else { return failing() }
                        value = decoded
                    }
                    if value == 1 {
                        // A column marker: only column 0 is read.
                        guard offset < end, bytes[offset] == 0 else { return failing() }
                        offset += 1
                        at = 0
                        continue
                    }
                    guard value >= 2 else { return failing() }
                    let (sum, overflow) = at.addingReportingOverflow(value - 2)
                    guard !overflow else { return failing() }
                    at = sum
                    return at
                }
                entry = entries[Int(entry)].next
                at = 0
                if entry >= 0 { (offset, end) = (Int(entries[Int(entry)].start), Int(entries[Int(entry)].end)) }
            }
            return nil
        }

        private mutating func failing() -> UInt64? {
            failed = true
            entry = -1
            return nil
        }
    }

    /// The token's doclists, kept alive for `bytes`, which reads them in place.
    private let doclists: Doclists
    private let bytes: UnsafeBufferPointer<UInt8>
    private let ends: [Int]
    /// The doclists by term, each term's newest first: the first entry a term has for a row wins.
    private let order: [Int]
    private let terms: [Int]
    /// Per doclist: where its next row's position list starts, that row's docid (`Int64.max` at
    /// the end), and whether a row was read yet.
    private let offsets: UnsafeMutablePointer<Int>
    private let nexts: UnsafeMutablePointer<Int64>
    private let started: UnsafeMutablePointer<Bool>
    /// Per slot of the loaded window: whose term last claimed it, and its first entry (-1: the
    /// token is not in that row).
    private let claims: UnsafeMutablePointer<Int>
    private let heads: UnsafeMutablePointer<Int32>
    /// The loaded window's entries, their number and room, the last claim's mark, and whether
    /// every doclist parsed so far (`load` works on copies of these, then stores them back).
    private var entries: UnsafeMutablePointer<Entry>
    private var entryCount = 0
    /// Room for one entry a slot from the start: a token of one term in a few segments needs no
    /// more, and room never written is never touched, where doubling from less copied itself
    /// into fresh pages in every window made (BENCHMARKS.md, "Fresh memory").
    private var entryCapacity = PhraseWindow.size
    private var claimMark = 0
    private var valid = true
    /// Whether a row of the loaded window has more than one entry.
    private var chained = false

    init(_ doclists: Doclists) {
        self.doclists = doclists
        // Written once, before any other thread has the doclists (`PhraseHalf`).
        if !doclists.sealed { doclists.sealed = true }
        bytes = doclists.bytes
        ends = doclists.ends
        terms = doclists.terms
        order = doclists.ends.indices.sorted { (doclists.terms[$0], $0) < (doclists.terms[$1], $1) }
        let count = doclists.ends.count
        offsets = .allocate(capacity: max(1, count))
        for index in 0..<count { (offsets + index).initialize(to: doclists.starts[index]) }
        nexts = .allocate(capacity: max(1, count))
        nexts.initialize(repeating: 0, count: count)
        started = .allocate(capacity: max(1, count))
        started.initialize(repeating: false, count: count)
        claims = .allocate(capacity: Self.size)
        claims.initialize(repeating: 0, count: Self.size)
        heads = .allocate(capacity: Self.size)
        heads.initialize(repeating: -1, count: Self.size)
        entries = .allocate(capacity: entryCapacity)
        if doclists.tooLarge || bytes.count >= Int(UInt32.max) {
            fail()
            return
        }
        let source = bytes
        for index in 0..<count where !readDocid(source, index, end: doclists.ends[index]) {
            fail()
            break
        }
    }

    deinit {
        offsets.deallocate()
        nexts.deallocate()
        started.deallocate()
        claims.deallocate()
        heads.deallocate()
        entries.deallocate()
    }

    /// True when a doclist did not parse (or the doclists are too large to read here).
    var failed: Bool { !valid }

    /// The least docid not yet loaded, nil when every doclist is read (or `failed`).
    var nextDocid: Int64? {
        guard valid else { return nil }
        var least = Int64.max
        for index in 0..<ends.count { least = min(least, nexts[index]) }
        return least == .max ? nil : least
    }

    /// The loaded window's rows.
    var rows: Rows { Rows(bytes: bytes, heads: heads, entries: entries, single: !chained) }

    /// Reads doclist `index`'s next docid (a delta after its first) at `offsets[index]` into
    /// `nexts[index]` (`Int64.max` at the doclist's end `end`), leaving `offsets[index]` at the
    /// row's position list; false when it does not parse or does not ascend.
    @inline(__always)
    private func readDocid(_ bytes: UnsafeBufferPointer<UInt8>, _ index: Int, end: Int) -> Bool {
        var position = offsets[index]
        guard position < end else {
            nexts[index] = .max
            return true
        }
        guard let delta = VarintReader.decode(bytes, at: &position, end: end) else { return false }
        let previous = started[index] ? nexts[index] : 0
        let docid = previous &+ Int64(bitPattern: delta)
        guard !started[index] || docid > previous, docid != .max else { return false }
        started[index] = true
        nexts[index] = docid
        offsets[index] = position
        return true
    }

    private func fail() {
        valid = false
        nexts.update(repeating: .max, count: ends.count)
    }

    /// Moves past every row below `limit` without loading it, checking each as `load` does (its
    /// docid ascends, its position list ends): a second thread's windows start at `limit`
    /// (`PhraseHalf`). False when a doclist does not parse.
    func skip(below limit: Int64) -> Bool {
        guard valid else { return false }
        let source = bytes
        for index in 0..<ends.count {
            let end = ends[index]
            while nexts[index] < limit {
                guard let list = Postings.positionList(source, from: offsets[index], end: end) else { return failing() }
                offsets[index] = list.end + 1
                guard readDocid(source, index, end: end) else { return failing() }
            }
        }
        return true
    }

    /// Loads the window of docids `base ..< base + size` (and below `bound`): every row of it, from
    /// every doclist, each row's winning entries (one per term that still holds it) chained from
    /// its head; false when a doclist does not parse. No position is decoded here.
    func load(from base: Int64, below bound: Int64 = .max) -> Bool {
        guard valid else { return false }
        let limit = min(base > Int64.max - Int64(Self.size) ? Int64.max : base + Int64(Self.size), bound)
        let (heads, claims, nexts, offsets) = (self.heads, self.claims, self.nexts, self.offsets)
        heads.update(repeating: -1, count: Self.size)
        var (entries, entryCount, entryCapacity, claimMark) = (self.entries, 0, self.entryCapacity, self.claimMark)
        var chained = false
        defer {
            (self.entries, self.entryCount, self.entryCapacity, self.claimMark, self.chained) = (
                entries, entryCount, entryCapacity, claimMark, chained
            )
        }
        let source = bytes
        let (ends, terms, order) = (self.ends, self.terms, self.order)
        var lastTerm = -1
        for index in order {
            if terms[index] != lastTerm {
                lastTerm = terms[index]
                claimMark += 1
            }
            let end = ends[index]
            while nexts[index] < limit {
                let docid = nexts[index]
                guard docid >= base else { return failing() }
                let slot = Int(docid - base)
                let start = offsets[index]
                guard let list = Postings.positionList(source, from: start, end: end) else { return failing() }
                if claims[slot] != claimMark {
                    claims[slot] = claimMark
                    if list.count > 0 {
                        if entryCount == entryCapacity {
                            guard entryCapacity < Int(Int32.max) / 2 else { return failing() }
                            let grown = UnsafeMutablePointer<Entry>.allocate(capacity: entryCapacity * 2)
                            grown.moveInitialize(from: entries, count: entryCount)
                            entries.deallocate()
                            entries = grown
                            entryCapacity *= 2
                        }
                        if heads[slot] >= 0 { chained = true }
                        (entries + entryCount).initialize(
                            to: Entry(start: UInt32(start), end: UInt32(list.end), next: heads[slot]))
                        heads[slot] = Int32(entryCount)
                        entryCount += 1
                    }
                }
                offsets[index] = list.end + 1
                guard readDocid(source, index, end: end) else { return failing() }
            }
        }
        return true
    }

    private func failing() -> Bool {
        fail()
        return false
    }
}

/// One phrase token's rows, a window of `size` docids at a time: every doclist of the token (all
/// its terms, all segments), each row's entry from its term's newest segment (an empty entry: the
/// row no longer holds that term), the terms' positions merged per row.
struct PhraseWindow {
    /// Docids per window.
    static let size = 65_536

    /// A token's doclists, still encoded, in the order they were added (newest segment first).
    struct Doclists {
        /// Every doclist's bytes, one after the other.
        var bytes: [UInt8] = []
        /// Where each doclist ends in `bytes`.
        var ends: [Int] = []
        /// Each doclist's term (numbered in the order first seen).
        var terms: [Int] = []

        /// Adds a doclist of term number `term`.
        mutating func add(_ doclist: UnsafeRawBufferPointer, term: Int) {
            bytes.append(contentsOf: doclist)
            ends.append(bytes.count)
            terms.append(term)
        }
    }

    private let doclists: Doclists
    /// The doclists by term, each term's newest first: the first entry a term has for a row wins.
    private let order: [Int]
    /// Per doclist: where its next row's position list starts, that row's docid (`Int64.max` at
    /// the end), and whether a row was read yet.
    private var offsets: [Int]
    private var nexts: [Int64]
    private var started: [Bool]
    /// The loaded window: its first docid; per slot, whose term last claimed it (`claims`), where
    /// its positions are in `positionsBuffer` and how many there are.
    private var base: Int64 = 0
    private var claims: [Int]
    private var starts: [Int]
    private var counts: [Int]
    private var positionsBuffer: [UInt32] = []
    private var claimMark = 0
    private var valid = true

    init(_ doclists: Doclists) {
        self.doclists = doclists
        order = doclists.ends.indices.sorted { (doclists.terms[$0], $0) < (doclists.terms[$1], $1) }
        offsets = doclists.ends.indices.map { $0 == 0 ? 0 : doclists.ends[$0 - 1] }
        nexts = Array(repeating: 0, count: doclists.ends.count)
        started = Array(repeating: false, count: doclists.ends.count)
        claims = Array(repeating: 0, count: Self.size)
        starts = Array(repeating: 0, count: Self.size)
        counts = Array(repeating: 0, count: Self.size)
        var offsets = self.offsets
        var nexts = self.nexts
        var started = self.started
        let ends = doclists.ends
        let parsed = doclists.bytes.withUnsafeBufferPointer { bytes in
            ends.indices.allSatisfy {
                Self.readDocid(bytes, $0, end: ends[$0], offsets: &offsets, nexts: &nexts, started: &started)
            }
        }
        (self.offsets, self.nexts, self.started) = (offsets, nexts, started)
        if !parsed { fail() }
    }

    /// The least docid not yet loaded, nil when every doclist is read.
    var nextDocid: Int64? {
        guard valid, let least = nexts.min(), least != .max else { return nil }
        return least
    }

    /// Reads doclist `index`'s next docid (a delta after its first) at `offsets[index]` into
    /// `nexts[index]` (`Int64.max` at the doclist's end `end`), leaving `offsets[index]` at the
    /// row's position list; false when it does not parse or does not ascend.
    @inline(__always)
    private static func readDocid(
        _ bytes: UnsafeBufferPointer<UInt8>, _ index: Int, end: Int, offsets: inout [Int], nexts: inout [Int64],
        started: inout [Bool]
    ) -> Bool {
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

    private mutating func fail() {
        valid = false
        for index in nexts.indices { nexts[index] = .max }
    }

    /// Loads the window of docids `base ..< base + size`: every row of it, from every doclist;
    /// false when a doclist does not parse. First each row's winning entries (one per term) and
    /// their position counts, then the positions, each row's together, sorted where several terms
    /// gave some.
    mutating func load(from base: Int64) -> Bool {
        self.base = base
        let limit = base > Int64.max - Int64(Self.size) ? Int64.max : base + Int64(Self.size)
        var entries: [(slot: Int, start: Int, end: Int)] = []
        var (claims, counts, offsets, nexts, started) = (
            self.claims, self.counts, self.offsets, self.nexts, self.started
        )
        (self.claims, self.counts, self.offsets, self.nexts, self.started) = ([], [], [], [], [])
        var claimMark = self.claimMark
        let (ends, terms, order) = (doclists.ends, doclists.terms, self.order)
        let parsed = doclists.bytes.withUnsafeBufferPointer { bytes -> Bool in
            for slot in 0..<Self.size { counts[slot] = 0 }
            var lastTerm = -1
            for index in order {
                if terms[index] != lastTerm {
                    lastTerm = terms[index]
                    claimMark += 1
                }
                let end = ends[index]
                while nexts[index] < limit {
                    let docid = nexts[index]
                    guard docid >= base else { return false }
                    let slot = Int(docid - base)
                    let start = offsets[index]
                    guard let list = Postings.positionList(bytes, from: start, end: end) else { return false }
                    if claims[slot] != claimMark {
                        claims[slot] = claimMark
                        if list.count > 0 {
                            entries.append((slot, start, list.end))
                            counts[slot] += Int(list.count)
                        }
                    }
                    offsets[index] = list.end + 1
                    guard Self.readDocid(bytes, index, end: end, offsets: &offsets, nexts: &nexts, started: &started)
                    else { return false }
                }
            }
            return true
        }
        (self.claims, self.counts, self.offsets, self.nexts, self.started) = (claims, counts, offsets, nexts, started)
        self.claimMark = claimMark
        guard parsed else { return failing() }
        var total = 0
        for slot in 0..<Self.size {
            starts[slot] = total
            total += counts[slot]
        }
        positionsBuffer = Array(repeating: 0, count: total)
        var filled = [Int](repeating: 0, count: Self.size)
        var mixed: [Int] = []
        var isMixed = [Bool](repeating: false, count: Self.size)
        let decoded = positionsBuffer.withUnsafeMutableBufferPointer { out -> Bool in
            doclists.bytes.withUnsafeBufferPointer { bytes -> Bool in
                for entry in entries {
                    if filled[entry.slot] > 0 && !isMixed[entry.slot] {
                        isMixed[entry.slot] = true
                        mixed.append(entry.slot)
                    }
                    var offset = entry.start
                    var at: UInt64 = 0
                    var write = starts[entry.slot] + filled[entry.slot]
                    while offset < entry.end {
                        guard let value = VarintReader.decode(bytes, at: &offset, end: entry.end) else { return false }
                        if value == 1 {
                            // A column marker: only column 0 is read.
                            guard offset < entry.end, bytes[offset] == 0 else { return false }
                            offset += 1
                            at = 0
                            continue
                        }
                        guard value >= 2 else { return false }
                        let (next, overflow) = at.addingReportingOverflow(value - 2)
                        at = next
                        guard !overflow, at <= UInt64(UInt32.max), write < starts[entry.slot] + counts[entry.slot]
                        else {
                            return false
                        }
                        out[write] = UInt32(at)
                        write += 1
                    }
                    filled[entry.slot] = write - starts[entry.slot]
                }
                for slot in mixed {
                    let range = starts[slot]..<(starts[slot] + counts[slot])
                    var row = UnsafeMutableBufferPointer(rebasing: out[range])
                    row.sort()
                }
                return true
            }
        }
        return decoded ? valid : failing()
    }

    private mutating func failing() -> Bool {
        fail()
        return false
    }

    /// Whether the loaded window's row at `slot` holds the token.
    func holds(_ slot: Int) -> Bool { counts[slot] > 0 }

    /// The positions of the loaded window's row at `slot`, ascending.
    func positions(_ slot: Int) -> ArraySlice<UInt32> { positionsBuffer[starts[slot]..<(starts[slot] + counts[slot])] }
}

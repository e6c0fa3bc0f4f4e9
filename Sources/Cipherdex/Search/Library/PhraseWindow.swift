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
    /// Per doclist: where its next row starts, that row's docid (nil at the end) and the docid
    /// before it.
    private var offsets: [Int]
    private var nexts: [Int64?]
    private var previous: [Int64]
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
        nexts = Array(repeating: nil, count: doclists.ends.count)
        previous = Array(repeating: 0, count: doclists.ends.count)
        claims = Array(repeating: 0, count: Self.size)
        starts = Array(repeating: 0, count: Self.size)
        counts = Array(repeating: 0, count: Self.size)
        for index in doclists.ends.indices { peek(index) }
    }

    /// The least docid not yet loaded, nil when every doclist is read.
    var nextDocid: Int64? { valid ? nexts.compactMap { $0 }.min() : nil }

    /// Decodes doclist `index`'s next docid into `nexts` (nil at its end).
    private mutating func peek(_ index: Int) {
        let end = doclists.ends[index]
        var position = offsets[index]
        guard position < end else {
            nexts[index] = nil
            return
        }
        var delta: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < end, shift < 64 else { return fail() }
            let byte = doclists.bytes[position]
            position += 1
            delta |= UInt64(byte & 0x7f) << shift
            if byte < 0x80 { break }
            shift += 7
        }
        let first = offsets[index] == (index == 0 ? 0 : doclists.ends[index - 1])
        let docid = previous[index] &+ Int64(bitPattern: delta)
        guard first || docid > previous[index] else { return fail() }
        nexts[index] = docid
        offsets[index] = position  // now at the row's position list
    }

    private mutating func fail() {
        valid = false
        for index in nexts.indices { nexts[index] = nil }
    }

    /// Loads the window of docids `base ..< base + size`: every row of it, from every doclist;
    /// false when a doclist does not parse. First each row's winning entries (one per term) and
    /// their position counts, then the positions, each row's together, sorted where several terms
    /// gave some.
    mutating func load(from base: Int64) -> Bool {
        self.base = base
        for slot in 0..<Self.size { counts[slot] = 0 }
        let limit = base + Int64(Self.size)
        var entries: [(slot: Int, start: Int, end: Int)] = []
        var lastTerm = -1
        for index in order {
            if doclists.terms[index] != lastTerm {
                lastTerm = doclists.terms[index]
                claimMark += 1
            }
            while let docid = nexts[index], docid < limit {
                guard docid >= base else { return failing() }
                let slot = Int(docid - base)
                let start = offsets[index]
                guard let (end, count) = listEnd(from: start, in: index) else { return failing() }
                if claims[slot] != claimMark {
                    claims[slot] = claimMark
                    if count > 0 {
                        entries.append((slot, start, end))
                        counts[slot] += count
                    }
                }
                previous[index] = docid
                offsets[index] = end + 1
                peek(index)
                if !valid { return false }
            }
        }
        var total = 0
        for slot in 0..<Self.size {
            starts[slot] = total
            total += counts[slot]
        }
        positionsBuffer = Array(repeating: 0, count: total)
        var filled = [Int](repeating: 0, count: Self.size)
        var mixed: [Int] = []
        var isMixed = [Bool](repeating: false, count: Self.size)
        let parsed = positionsBuffer.withUnsafeMutableBufferPointer { out -> Bool in
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
                        var value: UInt64 = 0
                        var shift: UInt64 = 0
                        while true {
                            guard offset < entry.end, shift < 64 else { return false }
                            let byte = bytes[offset]
                            offset += 1
                            value |= UInt64(byte & 0x7f) << shift
                            if byte < 0x80 { break }
                            shift += 7
                        }
                        if value == 1 {
                            // A column marker: only column 0 is read.
                            guard offset < entry.end, bytes[offset] == 0 else { return false }
                            offset += 1
                            at = 0
                            continue
                        }
                        guard value >= 2 else { return false }
                        at += value - 2
                        guard at <= UInt64(UInt32.max), write < starts[entry.slot] + counts[entry.slot] else {
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
        return parsed ? valid : failing()
    }

    /// Where the position list starting at `start` in doclist `index` ends (its 0) and how many
    /// positions it holds; nil when it runs past the doclist.
    private func listEnd(from start: Int, in index: Int) -> (end: Int, count: Int)? {
        let end = doclists.ends[index]
        return doclists.bytes.withUnsafeBufferPointer { bytes -> (Int, Int)? in
            var position = start
            var count = 0
            var continuing = false
            while position < end {
                let byte = bytes[position]
                if !continuing {
                    if byte == 0 { return (position, count) }
                    if byte == 1 {
                        // A column marker and its column: not a position.
                        position += 2
                        continue
                    }
                }
                if byte < 0x80 { count += 1 }
                continuing = byte >= 0x80
                position += 1
            }
            return nil
        }
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

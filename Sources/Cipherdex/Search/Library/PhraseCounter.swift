/// Counts a phrase in one row of loaded `PhraseWindow`s without sorting a position: the first
/// token's positions are the candidate starts; a start `p` stays when token `i` is at `p + i`.
///
/// When every token's window is `single` (one term, so each row one ascending list), each next
/// token's list is merged with the starts as it is decoded, in one pass. Otherwise (a prefix of
/// several terms: a row's lists one after the other), each next token's positions are stamped
/// with a new generation in a table indexed by position, and a start stays when `p + i` bears it.
/// A list the merge does not take (a column marker, a position of several bytes that does not
/// parse, one at or past `positionLimit`) is counted the general way, which refuses it or not.
struct PhraseCounter: ~Copyable {
    /// Positions at or past this are left to FTS4 (a row of 4,194,304 tokens is no page).
    static let positionLimit = 1 << 22

    private var stamps: UnsafeMutablePointer<UInt32>
    private var stampCount = 0
    private var generation: UInt32
    private var starts: UnsafeMutablePointer<UInt32>
    private var startCapacity = 1024
    /// The rows counted by merging so far (the others were counted the general way).
    private(set) var mergedRows = 0

    /// A counter whose first row's stamps are `generation + 1` (tests start it near the end, where
    /// the table is cleared and the generations start again).
    init(generation: UInt32 = 0) {
        self.generation = generation
        stamps = .allocate(capacity: 0)
        starts = .allocate(capacity: startCapacity)
    }

    deinit {
        stamps.deallocate()
        starts.deallocate()
    }

    /// How often the tokens of `rows` stand one after the other in row `slot`, which every one
    /// holds; nil when a position list does not parse or a position is not below
    /// `positionLimit`.
    mutating func occurrences(in slot: Int, of rows: [PhraseWindow.Rows], single: Bool = false) -> UInt32? {
        if single, let merged = mergedOccurrences(in: slot, of: rows) {
            mergedRows += 1
            return merged
        }
        var count = 0
        var first = rows[0].positions(slot)
        while let position = first.next() {
            guard position < UInt64(Self.positionLimit) else { return nil }
            if count == startCapacity { growStarts() }
            starts[count] = UInt32(position)
            count += 1
        }
        guard !first.failed else { return nil }
        for index in 1..<max(1, rows.count) {
            if count == 0 { return 0 }
            if generation == .max {
                stamps.update(repeating: 0, count: stampCount)
                generation = 0
            }
            generation += 1
            let mark = generation
            var longest = -1
            var positions = rows[index].positions(slot)
            while let position = positions.next() {
                guard position < UInt64(Self.positionLimit) else { return nil }
                let at = Int(position)
                if at >= stampCount { growStamps(to: at + 1) }
                stamps[at] = mark
                if at > longest { longest = at }
            }
            guard !positions.failed else { return nil }
            var kept = 0
            for start in 0..<count {
                let at = Int(starts[start]) + index
                if at <= longest && stamps[at] == mark {
                    starts[kept] = starts[start]
                    kept += 1
                }
            }
            count = kept
        }
        return UInt32(clamping: count)
    }

    /// `occurrences` for rows whose windows are all `single`, by merging; nil when a list holds
    /// what the merge leaves to the general way.
    private mutating func mergedOccurrences(in slot: Int, of rows: [PhraseWindow.Rows]) -> UInt32? {
        let limit = UInt64(Self.positionLimit)
        var count = 0
        do {
            var (bytes, offset, end) = rows[0].list(slot)
            var at: UInt64 = 0
            while offset < end {
                guard let delta = Self.delta(bytes, &offset, end), delta < limit - at else { return nil }
                at += delta
                if count == startCapacity { growStarts() }
                starts[count] = UInt32(truncatingIfNeeded: at)
                count += 1
            }
        }
        for index in 1..<max(1, rows.count) {
            if count == 0 { return 0 }
            var (bytes, offset, end) = rows[index].list(slot)
            var at: UInt64 = 0
            var (next, kept) = (0, 0)
            let shift = UInt64(index)
            while offset < end {
                guard let delta = Self.delta(bytes, &offset, end), delta < limit - at else { return nil }
                at += delta
                guard at >= shift, next < count else { continue }
                let wanted = UInt32(truncatingIfNeeded: at - shift)
                while next < count && starts[next] < wanted { next += 1 }
                while next < count && starts[next] == wanted {
                    starts[kept] = wanted
                    kept += 1
                    next += 1
                }
            }
            count = kept
        }
        return UInt32(clamping: count)
    }

    /// The next position's delta in a list (its varint less 2), nil for a column marker or
    /// what does not parse.
    @inline(__always)
    private static func delta(_ bytes: UnsafeBufferPointer<UInt8>, _ offset: inout Int, _ end: Int) -> UInt64? {
        let byte = bytes[offset]
        if byte >= 2 && byte < 0x80 {
            offset += 1
            return UInt64(byte - 2)
        }
        guard byte >= 0x80, let value = VarintReader.decode(bytes, at: &offset, end: end), value >= 2 else {
            return nil
        }
        return value - 2
    }

    private mutating func growStarts() {
        let grown = UnsafeMutablePointer<UInt32>.allocate(capacity: startCapacity * 2)
        grown.moveInitialize(from: starts, count: startCapacity)
        starts.deallocate()
        starts = grown
        startCapacity *= 2
    }

    private mutating func growStamps(to least: Int) {
        let capacity = min(Self.positionLimit, max(least, 2 * stampCount, 4096))
        let grown = UnsafeMutablePointer<UInt32>.allocate(capacity: capacity)
        grown.moveInitialize(from: stamps, count: stampCount)
        (grown + stampCount).initialize(repeating: 0, count: capacity - stampCount)
        stamps.deallocate()
        stamps = grown
        stampCount = capacity
    }
}

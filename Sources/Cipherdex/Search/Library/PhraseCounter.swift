/// Counts a phrase in one row of loaded `PhraseWindow`s without sorting a position: the first
/// token's positions are the candidate starts; each next token `i`'s positions are stamped with a
/// new generation in a table indexed by position, and a start `p` stays when `p + i` bears it.
struct PhraseCounter: ~Copyable {
    /// Positions at or past this are left to FTS4 (a row of 4,194,304 tokens is no page).
    static let positionLimit = 1 << 22

    private var stamps: UnsafeMutablePointer<UInt32>
    private var stampCount = 0
    private var generation: UInt32
    private var starts: UnsafeMutablePointer<UInt32>
    private var startCapacity = 1024

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
    mutating func occurrences(in slot: Int, of rows: [PhraseWindow.Rows]) -> UInt32? {
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

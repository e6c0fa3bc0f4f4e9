/// The leaves of FTS4's segments a read needs, and the terms read from them: those a term or
/// prefix may be in (as FTS4 finds them), or those a scan for an ends-with or inner pattern reads.
extension FTS4Postings {
    /// Where a term's leaves are: the root itself, or the blocks `first...last`.
    enum LeafRange: Equatable {
        case root
        case blocks(first: Int64, last: Int64)
    }

    /// The leaves of the segment whose root is `node` that may hold `term` (or, with `prefix`,
    /// a term it begins), as FTS4's `fts3SelectLeaf` finds them; nil when a node does not parse
    /// or a child is not lower than its parent (`below`: the parent's height).
    static func leafRange(
        of term: [UInt8], prefix: Bool, node: [UInt8], table: String, db: Connection, below: UInt64 = .max
    ) throws -> LeafRange? {
        guard
            let height = node.withUnsafeBytes({ raw -> UInt64? in
                var reader = VarintReader(raw)
                return reader.next()
            }), height < below
        else { return nil }
        if height == 0 { return below == .max ? .root : nil }
        guard let (first, last) = scanInterior(node, term: term) else { return nil }
        if height == 1 { return .blocks(first: first, last: prefix ? last : first) }
        // Children are interior nodes too: the first leaf from the first child, the last from the last.
        guard let firstChild = try block(first, table: table, db: db),
            case .blocks(let firstLeaf, let lastInFirst)? = try leafRange(
                of: term, prefix: prefix, node: firstChild, table: table, db: db, below: height)
        else { return nil }
        guard prefix else { return .blocks(first: firstLeaf, last: firstLeaf) }
        if last == first { return .blocks(first: firstLeaf, last: lastInFirst) }
        guard let lastChild = try block(last, table: table, db: db),
            case .blocks(_, let lastLeaf)? = try leafRange(
                of: term, prefix: true, node: lastChild, table: table, db: db, below: height)
        else { return nil }
        return .blocks(first: firstLeaf, last: lastLeaf)
    }

    /// `fts3ScanInteriorNode`: the child that may hold the first term at or after `term`, and the
    /// last child that may hold a term `term` begins.
    static func scanInterior(_ node: [UInt8], term: [UInt8]) -> (first: Int64, last: Int64)? {
        node.withUnsafeBytes { scanInterior($0, term: term) }
    }

    private static func scanInterior(_ node: UnsafeRawBufferPointer, term: [UInt8]) -> (first: Int64, last: Int64)? {
        var reader = VarintReader(node)
        guard reader.next() != nil, var child = reader.next().map({ Int64(bitPattern: $0) }) else { return nil }
        var first: Int64?
        var last: Int64?
        var buffer: [UInt8] = []
        var isFirstTerm = true
        while !reader.atEnd && (first == nil || last == nil) {
            var shared = 0
            if !isFirstTerm {
                guard let value = reader.next(), value <= UInt64(buffer.count) else { return nil }
                shared = Int(value)
            }
            isFirstTerm = false
            guard let suffixLength = reader.next(),
                let suffix = reader.bytes(Int(clamping: suffixLength))
            else { return nil }
            buffer.removeSubrange(shared...)
            buffer.append(contentsOf: suffix)
            let compared = compare(term, buffer.prefix(min(buffer.count, term.count)))
            if first == nil && (compared < 0 || (compared == 0 && buffer.count > term.count)) { first = child }
            if last == nil && compared < 0 { last = child }
            guard child < Int64.max - 1 else { return nil }
            child += 1
        }
        return (first ?? child, last ?? child)
    }

    /// `memcmp` of `term` with `other` over the shorter length: negative, 0 or positive.
    fileprivate static func compare(_ term: [UInt8], _ other: ArraySlice<UInt8>) -> Int {
        for (a, b) in zip(term, other) where a != b { return a < b ? -1 : 1 }
        return 0
    }

    /// Block `id` of `table`'s segments, nil when there is none.
    static func block(_ id: Int64, table: String, db: Connection) throws -> [UInt8]? {
        var found: [UInt8]?
        try db.forEachRowView("SELECT block FROM \(table)_segments WHERE blockid = ?", [.integer(id)]) { row in
            found = row.withBytes(0) { Array($0) }
        }
        return found
    }

    /// Calls `found` with each term of the leaf that `pattern` stands for and its doclist; false
    /// when the leaf does not parse or `found` returned false. A term or prefix stops at the
    /// first term past it (terms are in order); a scan reads the whole leaf (`scanLeaf`).
    static func readLeaf(
        _ leaf: UnsafeRawBufferPointer, pattern: TermPattern, found: ([UInt8], UnsafeRawBufferPointer) -> Bool
    ) -> Bool {
        if pattern.scans { return scanLeaf(leaf, pattern: pattern, found: found) }
        let term = pattern.bytes
        let prefix = pattern.prefix
        var reader = VarintReader(leaf)
        var current: [UInt8] = []
        while !reader.atEnd {
            guard let shared = reader.next(), let suffixLength = reader.next(), shared <= current.count,
                let suffix = reader.raw(Int(clamping: suffixLength))
            else { return false }
            current.removeSubrange(Int(shared)...)
            current.append(contentsOf: suffix)
            guard let length = reader.next(), let doclist = reader.raw(Int(clamping: length)) else { return false }
            let wanted = prefix ? current.starts(with: term) : current == term
            if wanted {
                guard found(current, doclist) else { return false }
            } else if compare(term, current[...]) < 0 && !(prefix && current.starts(with: term)) {
                return true  // past every wanted term: terms are in order
            }
        }
        return true
    }

    /// The leaves of one segment a scan reads (`scannedLeaves`).
    enum ScannedLeaves: Equatable {
        /// The root is the segment's only leaf.
        case root
        /// Runs of consecutive leaf blocks, ascending.
        case blocks([ClosedRange<Int64>])
    }

    /// The leaves of the segment whose root is `node` that may hold a term an ends-with or inner
    /// pattern stands for: every leaf whose terms are not all below `pattern.lowestTerm`, and
    /// of those only the ones `TermPattern.mayHoldMatch` cannot rule out from the bounds the
    /// interior nodes give each child (`interiorChildren`). Nil when a node does not parse or a
    /// child is not lower than its parent.
    static func scannedLeaves(of pattern: TermPattern, node: [UInt8], table: String, db: Connection) throws
        -> ScannedLeaves?
    {
        guard
            let height = node.withUnsafeBytes({ raw -> UInt64? in
                var reader = VarintReader(raw)
                return reader.next()
            })
        else { return nil }
        if height == 0 { return .root }
        var ranges: [ClosedRange<Int64>] = []
        guard
            try collectLeaves(
                of: pattern, node: node, low: [], high: nil, below: .max, into: &ranges, table: table, db: db)
        else { return nil }
        return .blocks(ranges)
    }

    /// Adds to `ranges` the leaves under the interior node `node`, whose terms are all at or
    /// above `low` and below `high` (nil: no bound), that a scan for `pattern` reads; false when
    /// a node does not parse or is not lower than `below`.
    private static func collectLeaves(
        of pattern: TermPattern, node: [UInt8], low: [UInt8], high: [UInt8]?, below: UInt64,
        into ranges: inout [ClosedRange<Int64>], table: String, db: Connection
    ) throws -> Bool {
        guard let (height, first, separators) = interiorChildren(node), height > 0, height < below else {
            return false
        }
        for index in 0...separators.count {
            let childLow = index == 0 ? low : separators[index - 1]
            let childHigh = index == separators.count ? high : separators[index]
            guard pattern.mayHoldMatch(from: childLow, below: childHigh) else { continue }
            let (child, overflow) = first.addingReportingOverflow(Int64(index))
            guard !overflow else { return false }
            if height == 1 {
                if let last = ranges.last, last.upperBound &+ 1 == child {
                    ranges[ranges.count - 1] = last.lowerBound...child
                } else {
                    ranges.append(child...child)
                }
                continue
            }
            guard let block = try block(child, table: table, db: db),
                try collectLeaves(
                    of: pattern, node: block, low: childLow, high: childHigh, below: height, into: &ranges,
                    table: table, db: db)
            else { return false }
        }
        return true
    }

    /// `readLeaf` for an ends-with or inner pattern: every term of the leaf is compared (rebuilt
    /// in place in a buffer of its own from each term's shared prefix and suffix; a vocabulary of
    /// millions of terms is compared this way), and only a match is copied out.
    static func scanLeaf(
        _ leaf: UnsafeRawBufferPointer, pattern: TermPattern, found: ([UInt8], UnsafeRawBufferPointer) -> Bool
    ) -> Bool {
        guard let base = leaf.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return true }
        let bytes = UnsafeBufferPointer(start: base, count: leaf.count)
        // A term is no longer than its leaf.
        let term = UnsafeMutablePointer<UInt8>.allocate(capacity: max(leaf.count, 1))
        defer { term.deallocate() }
        var length = 0
        var offset = 0
        let end = bytes.count
        let kind = pattern.kind
        return pattern.bytes.withUnsafeBufferPointer { token in
            while offset < end {
                guard let shared = VarintReader.decode(bytes, at: &offset, end: end),
                    let suffixLength = VarintReader.decode(bytes, at: &offset, end: end),
                    shared <= UInt64(length), suffixLength <= UInt64(end - offset)
                else { return false }
                var index = Int(shared)
                for source in offset..<(offset + Int(suffixLength)) {
                    term[index] = base[source]
                    index += 1
                }
                offset += Int(suffixLength)
                length = index
                guard let doclistLength = VarintReader.decode(bytes, at: &offset, end: end),
                    doclistLength <= UInt64(end - offset)
                else { return false }
                let doclist = UnsafeRawBufferPointer(start: base + offset, count: Int(doclistLength))
                offset += Int(doclistLength)
                let current = UnsafeBufferPointer(start: term, count: length)
                if TermPattern.matches(current, kind: kind, token: token) {
                    guard found(Array(current), doclist) else { return false }
                }
            }
            return true
        }
    }

    /// An interior node's height, its first child's blockid and its terms (child `i + 1` holds
    /// the terms from term `i` on; every term of child `i` is below it); nil when it does not
    /// parse.
    static func interiorChildren(_ node: [UInt8]) -> (height: UInt64, first: Int64, separators: [[UInt8]])? {
        node.withUnsafeBytes { raw in
            var reader = VarintReader(raw)
            guard let height = reader.next(), let first = reader.next(), first <= UInt64(Int64.max) else { return nil }
            var separators: [[UInt8]] = []
            var buffer: [UInt8] = []
            while !reader.atEnd {
                var shared = 0
                if !separators.isEmpty {
                    guard let value = reader.next(), value <= UInt64(buffer.count) else { return nil }
                    shared = Int(value)
                }
                guard let suffixLength = reader.next(), let suffix = reader.raw(Int(clamping: suffixLength)) else {
                    return nil
                }
                buffer.removeSubrange(shared...)
                buffer.append(contentsOf: suffix)
                separators.append(buffer)
            }
            return (height, Int64(first), separators)
        }
    }
}

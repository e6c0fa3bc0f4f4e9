/// One term's rows in one FTS4 segment, or several segments' merged (`FTS4Postings`): docids
/// ascending, and the term's hits in each row, 0 for a row the segment deletes.
struct Postings: Equatable {
    /// The rows, ascending.
    var docids: [Int64] = []
    /// The term's hits in column 0 of each row; 0: the row is deleted.
    var hits: [UInt32] = []

    /// Creates postings from arrays of the same length.
    init(docids: [Int64] = [], hits: [UInt32] = []) {
        self.docids = docids
        self.hits = hits
    }

    /// Decodes an FTS4 doclist (docid varints, the first whole then deltas, each followed by its
    /// position list); nil when it does not parse, holds a column other than 0 or its docids do
    /// not ascend.
    init?(doclist: UnsafeRawBufferPointer) {
        var docids: [Int64] = []
        var hits: [UInt32] = []
        docids.reserveCapacity(doclist.count / 3)
        hits.reserveCapacity(doclist.count / 3)
        let parsed = Self.forEachEntry(of: doclist) { docid, count in
            docids.append(docid)
            hits.append(count)
        }
        guard parsed else { return nil }
        self.init(docids: docids, hits: hits)
    }

    /// Calls `body` with each row of an FTS4 doclist, in order: its docid and its hits (0: the row
    /// is deleted); false, after the rows before the damage, when the doclist does not parse,
    /// holds a column other than 0 or its docids do not ascend.
    @inline(__always)
    static func forEachEntry(of doclist: UnsafeRawBufferPointer, _ body: (Int64, UInt32) -> Void) -> Bool {
        let bytes = doclist.assumingMemoryBound(to: UInt8.self)
        let end = bytes.count
        var offset = 0
        var docid: Int64 = 0
        var first = true
        while offset < end {
            guard let delta = VarintReader.decode(bytes, at: &offset, end: end) else { return false }
            let next = docid &+ Int64(bitPattern: delta)
            if !first && next <= docid { return false }
            first = false
            docid = next
            guard let list = positionList(bytes, from: offset, end: end) else { return false }
            offset = list.end + 1
            body(docid, list.count)
        }
        return true
    }

    /// The position list starting at `start` (varints of position deltas plus 2, a 1 then a
    /// column number to change column, a 0 to end): where its 0 is and how many positions it
    /// holds; nil when it runs to `end` or names a column other than 0 (only column 0 is read).
    ///
    /// Eight bytes at a time while none of them is a 0 or 1 starting a varint (the bytes after
    /// a byte below 0x80): each byte below 0x80 ends one position. The same reading, byte for
    /// byte, as the loop that finishes the list (`positionListBytewise`).
    @inline(__always)
    static func positionList(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int)
        -> (end: Int, count: UInt32)?
    {
        var offset = start
        var count: UInt32 = 0
        var continuing = false
        if let base = bytes.baseAddress {
            let high: UInt64 = 0x8080_8080_8080_8080
            let low: UInt64 = 0x7F7F_7F7F_7F7F_7F7F
            while offset + 8 <= end {
                let word = UInt64(littleEndian: UnsafeRawPointer(base + offset).loadUnaligned(as: UInt64.self))
                let continuations = word & high
                // A byte starts a varint when the byte before it ends one.
                let starts = ~((continuations << 8) | (continuing ? 0x80 : 0)) & high
                // Bytes that are 0 or 1, exactly: the others have a bit above bit 0.
                let upper = word & 0xFEFE_FEFE_FEFE_FEFE
                let small = ~(((upper & low) &+ low) | upper) & high
                let special = small & starts
                if special == 0 {
                    count &+= endings(~continuations & high)
                    continuing = word >> 63 != 0
                    offset += 8
                    continue
                }
                // The bytes before the first special one: positions, then the bytewise loop.
                let bits = special.trailingZeroBitCount & ~7
                let below: UInt64 = bits == 0 ? 0 : (1 << UInt64(bits)) - 1
                count &+= endings(~continuations & high & below)
                offset += bits / 8
                continuing = false
                break
            }
        }
        return positionListBytewise(bytes, from: offset, end: end, count: count, continuing: continuing)
    }

    /// The number of bytes of `flags` with bit 7 set (its other bits clear): a multiply adds them
    /// up in the top byte (x86-64's baseline has no population count instruction).
    @inline(__always)
    private static func endings(_ flags: UInt64) -> UInt32 {
        UInt32(((flags >> 7) &* 0x0101_0101_0101_0101) >> 56)
    }

    /// `positionList` one byte at a time from `offset`, with `count` positions already read and
    /// `continuing` true when the byte before `offset` continues a varint.
    @inline(__always)
    static func positionListBytewise(
        _ bytes: UnsafeBufferPointer<UInt8>, from start: Int, end: Int, count: UInt32, continuing: Bool
    ) -> (end: Int, count: UInt32)? {
        var offset = start
        var count = count
        var continuing = continuing
        while offset < end {
            let byte = bytes[offset]
            if !continuing {
                if byte == 0 { return (offset, count) }
                if byte == 1 {
                    guard offset + 1 < end, bytes[offset + 1] == 0 else { return nil }
                    offset += 2
                    continue
                }
            }
            if byte < 0x80 { count &+= 1 }
            continuing = byte >= 0x80
            offset += 1
        }
        return nil
    }

    /// The lists of `lists` (newest first) merged, each row's entry from the newest list that
    /// has it: pairs of neighbours merged in turn, so the work is n log(lists).
    static func newestFirst(_ lists: [Postings]) -> Postings {
        var lists = lists
        while lists.count > 1 {
            var next: [Postings] = []
            next.reserveCapacity((lists.count + 1) / 2)
            for start in Swift.stride(from: 0, to: lists.count, by: 2) {
                next.append(
                    start + 1 < lists.count ? merge(lists[start], lists[start + 1], adding: false) : lists[start])
            }
            lists = next
        }
        return lists.first ?? Postings()
    }

    /// The rows of both with their hits added (two terms of one prefix).
    static func sum(_ a: Postings, _ b: Postings) -> Postings { merge(a, b, adding: true) }

    /// The union of `newer` and `older`: for a row in both, the hits added, or `newer`'s.
    private static func merge(_ newer: Postings, _ older: Postings, adding: Bool) -> Postings {
        var out = Postings()
        out.docids.reserveCapacity(newer.docids.count + older.docids.count)
        out.hits.reserveCapacity(newer.docids.count + older.docids.count)
        var i = 0
        var j = 0
        let a = newer.docids
        let b = older.docids
        while i < a.count && j < b.count {
            if a[i] < b[j] {
                out.docids.append(a[i])
                out.hits.append(newer.hits[i])
                i += 1
            } else if b[j] < a[i] {
                out.docids.append(b[j])
                out.hits.append(older.hits[j])
                j += 1
            } else {
                out.docids.append(a[i])
                out.hits.append(adding ? newer.hits[i] &+ older.hits[j] : newer.hits[i])
                i += 1
                j += 1
            }
        }
        out.docids.append(contentsOf: a[i...])
        out.hits.append(contentsOf: newer.hits[i...])
        out.docids.append(contentsOf: b[j...])
        out.hits.append(contentsOf: older.hits[j...])
        return out
    }
}

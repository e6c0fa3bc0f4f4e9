/// The per-row token counts of `search_text` (matchinfo's `l`), read for many rows at once
/// (issue 12): from `search_page_lengths` (`PageLengths`, 256 pages a row) on a reader's
/// connection when the table has one column and the store has the chunks, else from FTS4's
/// `search_text_docsize` as below.
///
/// `matchinfo(…, 'l')` looks each row up in `%_docsize` through a statement of its own (about
/// 2 µs a row, most of a common word's query at 100,000 pages). Here, when the rows are dense
/// in their docid range (one in 8 or more), that range of `search_text_docsize` is scanned in
/// order and merged with the (ascending) docids; otherwise they are looked up 500 at a time.
/// The values are FTS4's own: one varint (little-endian base 128) per column, as `l` decodes them.
enum DocumentLengths {
    /// Writes row `i`'s column lengths into `infos[i * stride + offset + column]` for each of
    /// `columns` columns; a row without a `search_text_docsize` entry keeps 0.
    static func fill(
        _ infos: inout [UInt32], docids: [Int64], stride: Int, offset: Int, columns: Int, db: Connection
    ) throws {
        guard let first = docids.first, let last = docids.last, columns > 0, stride >= offset + columns else { return }
        func store(_ index: Int, _ raw: UnsafeRawBufferPointer) {
            var position = 0
            for column in 0..<columns {
                var value: UInt64 = 0
                var shift: UInt64 = 0
                while position < raw.count {
                    let byte = raw[position]
                    position += 1
                    if shift < 64 { value |= UInt64(byte & 0x7f) << shift }
                    shift += 7
                    if byte < 0x80 { break }
                }
                infos[index * stride + offset + column] = UInt32(truncatingIfNeeded: value)
            }
        }
        let ascending = zip(docids, docids.dropFirst()).allSatisfy { $0 < $1 }
        if ascending && columns == 1, try readsChunks(db) {
            try fillFromChunks(&infos, docids: docids, stride: stride, offset: offset, db: db)
            return
        }
        if ascending && (last - first) / 8 < Int64(docids.count) {
            var index = 0
            try db.forEachRowView(
                "SELECT docid, size FROM search_text_docsize WHERE docid BETWEEN ? AND ?",
                [.integer(first), .integer(last)]
            ) { row in
                let docid = row.integer(0)
                while index < docids.count && docids[index] < docid { index += 1 }
                guard index < docids.count, docids[index] == docid else { return }
                row.withBytes(1) { store(index, $0) }
            }
            return
        }
        var position: [Int64: Int] = [:]
        position.reserveCapacity(docids.count)
        for (index, docid) in docids.enumerated() { position[docid] = index }
        try db.forEachRowView(
            inBatchesOf: docids, { "SELECT docid, size FROM search_text_docsize WHERE docid IN (\($0))" }
        ) {
            row in
            guard let index = position[row.integer(0)] else { return }
            row.withBytes(1) { store(index, $0) }
        }
    }

    /// Whether lengths may come from `search_page_lengths` on `db`: a reader's connection (the
    /// writer's chunks may wait for the end of its transaction) in a store that has them.
    private static func readsChunks(_ db: Connection) throws -> Bool {
        try db.scalar("PRAGMA query_only")?.integerValue == 1
            && db.scalar("SELECT count(*) FROM sqlite_master WHERE name = 'search_page_lengths'")?.integerValue == 1
    }

    /// The lengths of the `span` docids from `low` on, one a slot (0 for a docid without a row),
    /// from `search_page_lengths` in one scan of the range's chunks; nil when the connection is
    /// not a reader's or the store has no chunks (the caller then reads lengths by row).
    static func slotLengths(low: Int64, span: Int, db: Connection) throws -> [UInt32]? {
        guard span > 0, try readsChunks(db) else { return nil }
        let high = low + Int64(span - 1)
        var lengths = [UInt32](repeating: 0, count: span)
        try lengths.withUnsafeMutableBufferPointer { lengths in
            try db.forEachRowView(
                "SELECT chunk, lengths FROM search_page_lengths WHERE chunk BETWEEN ? AND ? ORDER BY chunk",
                [.integer(low >> 8), .integer(high >> 8)]
            ) { row in
                let first = row.integer(0) << 8
                row.withBytes(1) { raw in
                    guard raw.count == PageLengths.chunkBytes else { return }
                    for slot in max(low, first)...min(high, first | 255) {
                        lengths[Int(slot - low)] = UInt32(
                            littleEndian: raw.loadUnaligned(fromByteOffset: Int(slot - first) * 4, as: UInt32.self))
                    }
                }
            }
        }
        return lengths
    }

    /// `fill` from `search_page_lengths` for ascending `docids` and one column: the chunks of the
    /// docids' range in one scan when the docids reach at least one chunk in 8 of it, else only
    /// their chunks, 500 at a time.
    private static func fillFromChunks(
        _ infos: inout [UInt32], docids: [Int64], stride: Int, offset: Int, db: Connection
    ) throws {
        var chunks: [Int64] = []
        for docid in docids where chunks.last != docid >> 8 { chunks.append(docid >> 8) }
        guard let firstChunk = chunks.first, let lastChunk = chunks.last else { return }
        var index = 0
        func store(_ chunk: Int64, _ raw: UnsafeRawBufferPointer) {
            while index < docids.count && docids[index] >> 8 < chunk { index += 1 }
            guard raw.count == PageLengths.chunkBytes else { return }
            while index < docids.count && docids[index] >> 8 == chunk {
                let slot = Int(docids[index] & 255)
                infos[index * stride + offset] = UInt32(
                    littleEndian: raw.loadUnaligned(fromByteOffset: slot * 4, as: UInt32.self))
                index += 1
            }
        }
        if (lastChunk - firstChunk) / 8 < Int64(chunks.count) {
            try db.forEachRowView(
                "SELECT chunk, lengths FROM search_page_lengths WHERE chunk BETWEEN ? AND ? ORDER BY chunk",
                [.integer(firstChunk), .integer(lastChunk)]
            ) { row in row.withBytes(1) { store(row.integer(0), $0) } }
            return
        }
        try db.forEachRowView(
            inBatchesOf: chunks,
            { "SELECT chunk, lengths FROM search_page_lengths WHERE chunk IN (\($0)) ORDER BY chunk" }
        ) { row in row.withBytes(1) { store(row.integer(0), $0) } }
    }
}

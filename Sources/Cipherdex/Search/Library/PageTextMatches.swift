import Dispatch
import Foundation

/// The original text of search rows and the byte ranges of a query's matches in it, for
/// previews (issue 12), with the work split between two threads.
///
/// The calling thread reads the stored values (`search_text_content.c0body`, as stored: SQLCipher
/// decrypts their pages in `sqlite3_step`, which only the connection's thread may call) and hands
/// them, a few rows at a time, to one helper thread, which inflates them and finds their matches
/// (`MatchLocator`) while the caller reads on; once every row is read, the caller takes what is
/// left itself (`HandOffQueue`). For 500 previews that is about half the work off the reading
/// thread. Each thread has its own decompressor and locator.
///
/// The values read are those `cipherdex_uncompress(c0body)` gives: TEXT as it is, a compressed
/// BLOB inflated, NULL as empty text, anything else (or a BLOB that does not inflate) an error, the
/// `DatabaseError` that function reports, never wrong text. The text ends at its first NUL byte,
/// where FTS4's tokenizer stops (page text is stored without NULs, `SearchIndexWriter.indexable`;
/// a row edited to hold one is read as FTS4 cut it).
enum PageTextMatches {
    /// A row's stored value, copied off the connection.
    enum Stored: Sendable {
        case null
        case text([UInt8])
        case compressed([UInt8])
        /// An INTEGER or REAL: no page text is stored that way.
        case unreadable
    }

    /// One row of `search_text_content`.
    struct Row: Sendable {
        let docid: Int64
        let stored: Stored
    }

    /// A row's text and its matches' byte ranges.
    typealias Located = (docid: Int64, body: String, ranges: [Range<Int>])

    /// Rows handed over at a time (one wake-up of the helper).
    static let batchRows = 8
    /// With fewer rows than this the calling thread does everything (a helper costs more).
    static let helperFromRows = 24

    /// The texts and matches of `docids` (rows that match `match`), by docid; rows that are gone
    /// are left out. `occurrences[i]`, when given, is each phrase's number of occurrences in row
    /// `docids[i]`, so a page's scan can stop after its last match; `windowCharacters` lets it
    /// stop past a preview's reach. `isCancelled` is asked between rows and between batches
    /// located: once it is true, the batches being located are finished and returned, the rest
    /// left out. `helper: false`
    /// keeps all the work on the calling thread (for the tests comparing both).
    static func read(
        _ docids: [Int64], occurrences: [[Int]?]?, match: String, stemming: Bool, windowCharacters: Int?,
        db: Connection, helper: Bool = true, isCancelled: () -> Bool
    ) throws -> [Int64: (String, [Range<Int>])] {
        var expected: [Int64: [Int]] = [:]
        if let occurrences {
            for (docid, counts) in zip(docids, occurrences) { expected[docid] = counts }
        }
        let queue = HandOffQueue<[Row], [Located]>()
        let path = db.path
        let useHelper = helper && docids.count >= helperFromRows && ProcessInfo.processInfo.activeProcessorCount > 1
        if useHelper {
            DispatchQueue.global(qos: .userInitiated).async { [expected] in
                var matcher = Matcher(
                    match: match, stemming: stemming, expected: expected, windowCharacters: windowCharacters,
                    path: path)
                queue.serve { try matcher.locate($0) }
            }
        }
        var matcher = Matcher(
            match: match, stemming: stemming, expected: expected, windowCharacters: windowCharacters, path: path)
        // Without the helper, each batch is done as it is read.
        var inline: [Located] = []
        var batch: [Row] = []
        var cancelled = false
        func handOver() throws {
            if useHelper { queue.put(batch) } else { inline += try matcher.locate(batch) }
            batch.removeAll(keepingCapacity: true)
        }
        do {
            // From FTS4's content shadow table (`search_text_content(docid INTEGER PRIMARY KEY,
            // c0body)`, renamed with the table): a `docid IN` on the FTS table itself is one
            // xFilter per docid, and SQLCipher 3.4.1's FTS4 prepares a new seek statement in each
            // (~15% of a 500-result query). The text is stored compressed.
            try db.forEachRowView(
                inBatchesOf: docids, { "SELECT docid, c0body FROM search_text_content WHERE docid IN (\($0))" },
                stop: {
                    if isCancelled() { cancelled = true }
                    return cancelled
                }
            ) { row in
                if cancelled || isCancelled() {
                    cancelled = true
                    return
                }
                batch.append(Row(docid: row.integer(0), stored: stored(row)))
                if batch.count >= batchRows { try handOver() }
            }
            if !batch.isEmpty && !cancelled { try handOver() }
        } catch {
            // The helper finishes what it holds and returns; nothing waits for it.
            queue.close()
            queue.discardUntaken()
            throw error
        }
        queue.close()
        if cancelled { queue.discardUntaken() }
        var result: [Int64: (String, [Range<Int>])] = [:]
        result.reserveCapacity(docids.count)
        for located in inline { result[located.docid] = (located.body, located.ranges) }
        // Reading is the quick part: a cancellation usually comes while the rows are located,
        // so it is asked again before each batch (all were located after a cancel before).
        for outputs in try queue.finish(stoppingWhen: isCancelled, { try matcher.locate($0) }) {
            for located in outputs { result[located.docid] = (located.body, located.ranges) }
        }
        return result
    }

    /// A row's value copied off the statement, by storage class.
    private static func stored(_ row: RowView) -> Stored {
        switch row.storageClass(1) {
        case .null: return .null
        case .text: return .text(row.withBytes(1) { Array($0) })
        case .blob: return .compressed(row.withBytes(1) { Array($0) })
        case .integer, .real: return .unreadable
        }
    }

    /// What one thread needs to turn stored rows into texts and matches.
    struct Matcher {
        var locator: MatchLocator
        let decompressor = PageTextCompression.Decompressor()
        let expected: [Int64: [Int]]
        let windowCharacters: Int?
        /// The database file, for the errors.
        let path: String

        init(match: String, stemming: Bool, expected: [Int64: [Int]], windowCharacters: Int?, path: String) {
            locator = MatchLocator(match: match, stemming: stemming)
            self.expected = expected
            self.windowCharacters = windowCharacters
            self.path = path
        }

        /// The rows' texts and matches; a value that is not page text throws what
        /// `cipherdex_uncompress` reports.
        mutating func locate(_ rows: [Row]) throws -> [Located] {
            try rows.map { row in
                var body: String
                switch row.stored {
                case .null: body = ""
                case .text(let bytes): body = PageTextMatches.text(bytes)
                case .compressed(let bytes):
                    guard let inflated = try? bytes.withUnsafeBytes({ try decompressor.decompressed($0) }) else {
                        throw damaged(PageTextCompression.notCompressedMessage)
                    }
                    body = PageTextMatches.text(inflated)
                case .unreadable: throw damaged(PageTextCompression.notTextMessage)
                }
                let counts = expected[row.docid]
                let ranges = body.withUTF8 {
                    locator.byteRanges(in: $0, occurrences: counts, windowCharacters: windowCharacters)
                }
                return (row.docid, body, ranges)
            }
        }

        /// The error SQLite reports for `cipherdex_uncompress`'s `sqlite3_result_error`.
        private func damaged(_ message: String) -> DatabaseError {
            .sqlite(code: 1, extendedCode: 1, message: message, path: path)
        }
    }

    /// UTF-8 `bytes` as text up to the first NUL, invalid sequences repaired.
    static func text(_ bytes: [UInt8]) -> String {
        bytes.withUnsafeBufferPointer { buffer in
            let end = buffer.firstIndex(of: 0) ?? buffer.count
            return String(decoding: UnsafeBufferPointer(rebasing: buffer[..<end]), as: UTF8.self)
        }
    }
}

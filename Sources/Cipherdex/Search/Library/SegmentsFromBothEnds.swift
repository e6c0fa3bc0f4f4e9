import Dispatch
import Foundation

/// `FTS4Postings.forEachDoclist` with a term's segments read from both ends: this thread reads
/// the newest on its connection and hands each doclist to `body` as before, while a helper reads
/// the oldest on the read's `ReadCompanion` and copies theirs; once the two meet, this thread
/// hands the helper's copies to `body`, segment after segment, newest first. So `body` sees the
/// same doclists in the same order, on this thread, and the pages of a phrase's common tokens
/// (`of*` and `the*` of `"of the"`: 55 MB of doclists at 1,000,000 pages, each 16 KiB page
/// authenticated and decrypted by SQLCipher) are read on two cores instead of one.
///
/// The helper starts only once `fromBytes` of doclists are delivered with two segments or more
/// left (a rare term never starts it); for a scan (`TermPattern.scans`), which delivers few
/// doclists but reads every leaf of a part of the vocabulary, once `fromBytes` of leaves are
/// read. Each segment is claimed under the lock by one side: this
/// thread from the front, the helper from the back; this thread waits only for a segment the
/// helper claimed, which it is reading, never for a helper that has not started. A segment the
/// helper could not read (an error, a block that does not parse) is read again here, which gives
/// what reading it here always gave. When `body` or a segment stops the walk, the helper claims
/// no more (the read's end waits for the segment it is in, `ReadCompanion.end()`).
///
/// `@unchecked Sendable`: `state` is read and written only while `condition` is locked; the
/// segments and the companion are read-only.
final class SegmentsFromBothEnds: @unchecked Sendable {
    /// The bytes of doclists delivered before the helper starts.
    static let fromBytes = 256 << 10

    /// One segment's doclists as the helper copied them, one after the other in a mapping of
    /// their own (which the caller may move whole into its own, `PhraseWindow.Doclists.adopt`).
    final class Copies {
        /// The doclists' bytes.
        let chunk: GrowableMapping
        /// Each doclist's term and where it is in `chunk`, in the order read.
        private(set) var terms: [[UInt8]] = []
        private(set) var ranges: [Range<Int>] = []
        private var used = 0

        fileprivate init?() {
            guard let chunk = GrowableMapping(capacity: 64 << 10) else { return nil }
            self.chunk = chunk
        }

        /// Appends a copy of `doclist`; false when the mapping cannot grow.
        fileprivate func append(_ term: [UInt8], _ doclist: UnsafeRawBufferPointer) -> Bool {
            if used + doclist.count > chunk.capacity {
                guard chunk.grow(toAtLeast: max(used + doclist.count, chunk.capacity * 2)) else { return false }
            }
            if let source = doclist.baseAddress, doclist.count > 0 {
                (chunk.baseAddress + used).copyMemory(from: source, byteCount: doclist.count)
            }
            terms.append(term)
            ranges.append(used..<(used + doclist.count))
            used += doclist.count
            return true
        }

        /// Doclist `index`'s bytes, valid while the chunk is not moved.
        fileprivate func doclist(_ index: Int) -> UnsafeRawBufferPointer {
            UnsafeRawBufferPointer(start: chunk.baseAddress + ranges[index].lowerBound, count: ranges[index].count)
        }
    }

    /// What the helper read of one segment; nil when it failed.
    private typealias Outcome = Copies?

    private struct State {
        /// The next segment this thread takes, and the first the helper took (the helper takes
        /// the one before it next).
        var front = 0
        var back: Int
        var outcomes: [Int: Outcome] = [:]
        /// Set once this thread is done: the helper takes no more.
        var stopped = false
        var fromTheHelper = 0
        var readAgain = 0

        mutating func takeFront() -> Int {
            front += 1
            return front - 1
        }

        mutating func takeBack() -> Int {
            back -= 1
            return back
        }
    }

    private let segments: [[UInt8]]
    private let companion: ReadCompanion
    private let read: Int
    /// An `NSCondition` rather than `Mutex`, whose lock ThreadSanitizer does not see on Linux.
    private let condition = NSCondition()
    private var state: State

    /// The segments (root nodes, newest first) of one read (`read`) whose companion is
    /// `companion`.
    init(segments: [[UInt8]], companion: ReadCompanion, read: Int) {
        self.segments = segments
        self.companion = companion
        self.read = read
        state = State(back: segments.count)
    }

    /// The segments the helper read and this thread handed on, and those it claimed but could
    /// not read, which this thread read again (for tests).
    var segmentsFromTheHelper: Int { locked { $0.fromTheHelper } }
    var segmentsReadAgain: Int { locked { $0.readAgain } }

    /// `FTS4Postings.forEachDoclist` over the segments, on `db` (the read's connection); the
    /// helper starts once `startBytes` of doclists are delivered. With `takeCopies`, each segment
    /// the helper read is handed on whole, its copies' mapping with them, instead of doclist by
    /// doclist to `body` (which still gets every other).
    func forEachDoclist(
        of pattern: TermPattern, table: String, db: Connection, startBytes: Int = fromBytes,
        takeCopies: ((Copies) -> Bool)? = nil, _ body: ([UInt8], UnsafeRawBufferPointer) -> Bool
    ) throws -> Bool {
        defer { locked { $0.stopped = true } }
        var delivered = 0
        var started = false
        while let index = locked({ $0.front < $0.back ? $0.takeFront() : nil }) {
            let read = try FTS4Postings.forEachDoclist(
                of: pattern, inSegment: segments[index], table: table, db: db,
                leafRead: { if pattern.scans { delivered &+= $0 } }
            ) { found, doclist in
                delivered &+= doclist.count
                return body(found, doclist)
            }
            guard read else { return false }
            if !started, delivered >= startBytes, locked({ $0.back - $0.front >= 2 }) {
                started = true
                DispatchQueue.global(qos: .userInitiated).async {
                    self.readFromTheBack(of: pattern, table: table)
                }
            }
        }
        // The helper's segments, newest first: each claimed by it, so each gets an outcome.
        let first = locked { state in
            state.stopped = true
            return state.back
        }
        for index in first..<segments.count {
            guard let copies = outcome(of: index) else {
                locked { $0.readAgain += 1 }
                guard
                    try FTS4Postings.forEachDoclist(
                        of: pattern, inSegment: segments[index], table: table, db: db, body)
                else { return false }
                continue
            }
            locked { $0.fromTheHelper += 1 }
            if let takeCopies {
                guard takeCopies(copies) else { return false }
                continue
            }
            for (index, found) in copies.terms.enumerated() {
                guard body(found, copies.doclist(index)) else { return false }
            }
        }
        return true
    }

    /// The helper: claims segments from the back and copies their doclists, on the companion,
    /// while the read runs and this thread has not stopped.
    private func readFromTheBack(of pattern: TermPattern, table: String) {
        _ = try? companion.read(during: read) { connection in
            while let index = locked({ $0.stopped || $0.back <= $0.front ? nil : $0.takeBack() }) {
                let copies = Copies()
                let read = try? copies.map { copies in
                    try FTS4Postings.forEachDoclist(
                        of: pattern, inSegment: segments[index], table: table, db: connection
                    ) { copies.append($0, $1) }
                }
                let outcome: Outcome = read == true ? copies : nil
                condition.lock()
                state.outcomes[index] = .some(outcome)
                condition.broadcast()
                condition.unlock()
            }
        }
    }

    /// Segment `index`'s outcome once the helper has it (it claimed it), removed from the state.
    private func outcome(of index: Int) -> Outcome {
        condition.lock()
        defer { condition.unlock() }
        while state.outcomes[index] == nil { condition.wait() }
        return state.outcomes.removeValue(forKey: index) ?? nil
    }

    private func locked<T>(_ body: (inout State) -> T) -> T {
        condition.lock()
        defer { condition.unlock() }
        return body(&state)
    }
}

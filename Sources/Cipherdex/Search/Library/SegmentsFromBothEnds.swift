import CipherdexStore
import Dispatch
import Foundation

/// `FTS4Postings.forEachDoclist` with a term's segments read from both ends: this thread reads
/// the newest on its connection and hands each doclist to `body` as before, while a helper reads
/// the oldest on the read's `ReadCompanion` and copies theirs; once the two meet, this thread
/// hands the helper's copies to `body`, segment after segment, newest first. So `body` sees the
/// same doclists in the same order, on this thread, and the pages of a common term (3,604 of 16
/// KiB for `the` at 1,000,000 pages, each authenticated and decrypted by SQLCipher) are read on
/// two cores instead of one.
///
/// The helper starts only once `fromBytes` of doclists are delivered with two segments or more
/// left (a rare term never starts it). Each segment is claimed under the lock by one side: this
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

    /// What the helper read of one segment: its doclists in order, copied; nil when it failed.
    private typealias Outcome = [(term: [UInt8], doclist: [UInt8])]?

    private struct State {
        /// The next segment this thread takes, and the first the helper took (the helper takes
        /// the one before it next).
        var front = 0
        var back: Int
        var outcomes: [Int: Outcome] = [:]
        /// Set once this thread is done: the helper takes no more.
        var stopped = false
        var fromTheHelper = 0

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

    /// The segments the helper read and this thread handed on (for tests).
    var segmentsFromTheHelper: Int { locked { $0.fromTheHelper } }

    /// `FTS4Postings.forEachDoclist` over the segments, on `db` (the read's connection); the
    /// helper starts once `startBytes` of doclists are delivered.
    func forEachDoclist(
        of term: [UInt8], prefix: Bool, table: String, db: Connection, startBytes: Int = fromBytes,
        _ body: ([UInt8], UnsafeRawBufferPointer) -> Bool
    ) throws -> Bool {
        defer { locked { $0.stopped = true } }
        var delivered = 0
        var started = false
        while let index = locked({ $0.front < $0.back ? $0.takeFront() : nil }) {
            let read = try FTS4Postings.forEachDoclist(
                of: term, prefix: prefix, inSegment: segments[index], table: table, db: db
            ) { found, doclist in
                delivered &+= doclist.count
                return body(found, doclist)
            }
            guard read else { return false }
            if !started, delivered >= startBytes, locked({ $0.back - $0.front >= 2 }) {
                started = true
                DispatchQueue.global(qos: .userInitiated).async {
                    self.readFromTheBack(of: term, prefix: prefix, table: table)
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
                guard
                    try FTS4Postings.forEachDoclist(
                        of: term, prefix: prefix, inSegment: segments[index], table: table, db: db, body)
                else { return false }
                continue
            }
            locked { $0.fromTheHelper += 1 }
            for (found, doclist) in copies {
                guard doclist.withUnsafeBytes({ body(found, $0) }) else { return false }
            }
        }
        return true
    }

    /// The helper: claims segments from the back and copies their doclists, on the companion,
    /// while the read runs and this thread has not stopped.
    private func readFromTheBack(of term: [UInt8], prefix: Bool, table: String) {
        _ = try? companion.read(during: read) { connection in
            while let index = locked({ $0.stopped || $0.back <= $0.front ? nil : $0.takeBack() }) {
                var copies: [(term: [UInt8], doclist: [UInt8])] = []
                let read = try? FTS4Postings.forEachDoclist(
                    of: term, prefix: prefix, inSegment: segments[index], table: table, db: connection
                ) { found, doclist in
                    copies.append((found, Array(doclist.bindMemory(to: UInt8.self))))
                    return true
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

import Dispatch
import Foundation

/// A term's doclists read on the connection's thread and decoded, in the order read, on one
/// helper thread (issue 12): SQLCipher decrypts a common word's pages (HMAC-SHA1 and AES of 16 KiB
/// each, in `sqlite3_step`, which only the connection's thread may call) while the helper adds up
/// the doclists already read, instead of one after the other.
///
/// Doclists are decoded on the reading thread, as they come, until one of `handOffBytes` or more
/// comes: from then on each is copied and queued, and the helper decodes them in order. The
/// decoding (`consume`) is one thread's at a time, always in the order read, so it may keep state
/// (a term's lists, its slots) without a lock: before the hand-off the reader runs it; after it,
/// the helper; once `finish()` returns, the reader again.
///
/// The reader never waits for a helper that has not started (on a busy machine its turn can come
/// late): when the queue holds `maximumQueuedBytes` or the reading is done, it cancels such a
/// helper and decodes what is queued itself. A helper that has started is waited for, and the
/// queue never holds more than about `maximumQueuedBytes` of copies while it runs.
///
/// `@unchecked Sendable`: the queue and the states are read and written only while `condition` is
/// held; `consume` runs on one thread at a time as said above; `handedOff`, `tookOver` and
/// `finishedResult` are the reader's alone.
final class DoclistPipeline: @unchecked Sendable {
    /// Decodes one doclist of a term; false when it does not parse.
    typealias Consumer = (_ term: [UInt8], _ doclist: UnsafeRawBufferPointer) -> Bool

    /// The helper's progress.
    private enum Helper {
        case none, waiting, running, finished, cancelled
    }

    /// A doclist from its size up is handed to the helper (with what follows it).
    static let defaultHandOffBytes = 64 << 10
    /// Copies queued at most by default while the helper runs (the reader waits for it beyond
    /// that; before it starts, the reader decodes them itself).
    static let defaultMaximumQueuedBytes = 16 << 20

    private let handOffBytes: Int
    private let maximumQueuedBytes: Int
    private let consume: Consumer
    private let startHelper: (@escaping @Sendable () -> Void) -> Void
    private let condition = NSCondition()
    private var queue: [(term: [UInt8], doclist: [UInt8])] = []
    private var head = 0
    private var queuedBytes = 0
    private var helper = Helper.none
    private var closed = false
    /// False once a doclist did not parse: the rest are not decoded.
    private var parsed = true
    private var handedOff = false
    /// The reader took over from a helper that had not started: no hand-off again.
    private var tookOver = false
    private var finishedResult: Bool?

    /// A pipeline that decodes with `consume`, handing doclists of `handOffBytes` or more (and
    /// those after them) to a helper that `startHelper` runs (a global queue; tests delay it),
    /// with at most about `maximumQueuedBytes` of copies waiting for it.
    init(
        handOffBytes: Int = DoclistPipeline.defaultHandOffBytes,
        maximumQueuedBytes: Int = DoclistPipeline.defaultMaximumQueuedBytes,
        startHelper: @escaping (@escaping @Sendable () -> Void) -> Void = {
            DispatchQueue.global(qos: .userInitiated).async(execute: $0)
        },
        consume: @escaping Consumer
    ) {
        self.handOffBytes = handOffBytes
        self.maximumQueuedBytes = maximumQueuedBytes
        self.startHelper = startHelper
        self.consume = consume
    }

    /// The next doclist read (reader only, in order); false once one did not parse (the reader
    /// may stop reading).
    func deliver(_ term: [UInt8], _ doclist: UnsafeRawBufferPointer) -> Bool {
        if !handedOff {
            if tookOver || doclist.count < handOffBytes {
                let result = consume(term, doclist)
                if !result { condition.withLock { parsed = false } }
                return result
            }
            handedOff = true
            condition.withLock { helper = .waiting }
            startHelper { [self] in serve() }
        }
        let copy = Array(doclist)
        condition.lock()
        while parsed && helper == .running && queuedBytes >= maximumQueuedBytes { condition.wait() }
        guard parsed else {
            condition.unlock()
            return false
        }
        queue.append((term, copy))
        queuedBytes += copy.count
        let takeOver = helper == .waiting && queuedBytes >= maximumQueuedBytes
        if takeOver { helper = .cancelled }
        condition.broadcast()
        condition.unlock()
        if takeOver {
            // The helper has not started: decode what is queued here, and from now on as read.
            handedOff = false
            tookOver = true
            return drainHere()
        }
        return true
    }

    /// Says that every doclist is read and waits for them to be decoded (reader only; once is
    /// enough, later calls return the same): true when every one parsed.
    func finish() -> Bool {
        if let finishedResult { return finishedResult }
        condition.lock()
        closed = true
        if helper == .waiting { helper = .cancelled }
        condition.broadcast()
        while helper == .running { condition.wait() }
        condition.unlock()
        let result = drainHere()
        finishedResult = result
        return result
    }

    /// Decodes on the reader's thread every doclist still queued (the helper is cancelled or
    /// finished); false when one did not parse.
    private func drainHere() -> Bool {
        let (items, stillParsed) = condition.withLock { () -> ([(term: [UInt8], doclist: [UInt8])], Bool) in
            let items = Array(queue[head...])
            queue = []
            head = 0
            queuedBytes = 0
            return (items, parsed)
        }
        guard stillParsed else { return false }
        for item in items where !item.doclist.withUnsafeBytes({ consume(item.term, $0) }) {
            condition.withLock { parsed = false }
            return false
        }
        return true
    }

    /// The helper: decodes the queued doclists in order until the reader is done and none is left.
    private func serve() {
        condition.lock()
        guard helper == .waiting else {
            condition.unlock()
            return
        }
        helper = .running
        while true {
            while head == queue.count && !closed && parsed { condition.wait() }
            guard head < queue.count, parsed else { break }
            let item = queue[head]
            queue[head] = ([], [])
            head += 1
            condition.unlock()
            let result = item.doclist.withUnsafeBytes { consume(item.term, $0) }
            condition.lock()
            queuedBytes -= item.doclist.count
            if !result { parsed = false }
            condition.broadcast()
        }
        helper = .finished
        condition.broadcast()
        condition.unlock()
    }
}

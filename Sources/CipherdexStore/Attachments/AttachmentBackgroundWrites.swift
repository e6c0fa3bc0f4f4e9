import Dispatch
import Synchronization

/// The serial helper thread of an `AttachmentCipherWriter`: it writes sealed batches out
/// (`pwrite`) while the writer's caller reads and seals the next window, and in between it helps
/// seal and hash. Work runs in submission order, so a batch is always written before the helper
/// joins the window after it.
///
/// Every `writebackBytes` written, it asks the kernel to start writing them to storage
/// (`AttachmentFileIO.startWriteback`), so disk writes overlap the sealing and the final `fsync`
/// of a large attachment has little left to do. Once `writebackLag` more such ranges have been
/// started after a range, it waits for that range's write-back and drops its pages from the page
/// cache (`AttachmentFileIO.finishWriteback`): a large attachment then cycles through about
/// `(writebackLag + 1) × writebackBytes` of page cache, whose memory the next batches reuse,
/// instead of touching fresh memory for every page it writes (which, on this project's virtual
/// machines, cost a host page fault per page: BENCHMARKS.md, "Attachment writes and the page
/// cache"). It also paces the writer to the disk instead of letting it run ahead by the whole
/// file. Durability is unchanged: it still comes from the writer's closing `fsync`.
///
/// A failed write is kept and rethrown by `checkFailure()`; later writes are skipped.
final class AttachmentBackgroundWrites: @unchecked Sendable {
    /// Bytes written between two write-back requests.
    static let writebackBytes: UInt64 = 8 << 20
    /// Write-back ranges left in flight before the oldest is waited for and dropped.
    static let writebackLag = 2
    private let queue = DispatchQueue(label: "cipherdex.attachment-writer", qos: .userInitiated)
    /// Start of the written range not yet handed to write-back (touched only on `queue`).
    private var writebackStart: UInt64?
    /// Ranges whose write-back was started but not yet waited for, oldest first (only on `queue`).
    private var inFlight: [(offset: UInt64, count: UInt64)] = []
    /// One group per batch buffer: leaves when the buffer's write is done.
    private let groups: [DispatchGroup]
    private let failure = Mutex<AttachmentError?>(nil)

    /// Prepares for `buffers` batch buffers.
    init(buffers: Int) {
        groups = (0..<buffers).map { _ in DispatchGroup() }
    }

    /// Queues the write of `bytes` (batch buffer `buffer`) at `offset` of `fd`.
    func submit(fd: Int32, bytes: UnsafeRawBufferPointer, offset: UInt64, buffer: Int, id: String) {
        let write = PendingWrite(fd: fd, bytes: bytes, offset: offset, id: id)
        queue.async(group: groups[buffer]) { [self] in
            guard failure.withLock({ $0 == nil }) else { return }
            do throws(AttachmentError) {
                try AttachmentFileIO.write(write.fd, write.bytes, at: write.offset, id: write.id)
                let start = writebackStart ?? write.offset
                let end = write.offset + UInt64(write.bytes.count)
                if end - start >= Self.writebackBytes {
                    AttachmentFileIO.startWriteback(write.fd, offset: start, count: end - start)
                    writebackStart = end
                    inFlight.append((start, end - start))
                    if inFlight.count > Self.writebackLag {
                        let oldest = inFlight.removeFirst()
                        try AttachmentFileIO.finishWriteback(
                            write.fd, offset: oldest.offset, count: oldest.count, id: write.id)
                    }
                } else {
                    writebackStart = start
                }
            } catch {
                failure.withLock { $0 = error }
            }
        }
    }

    /// Runs `body` on the helper thread once the writes queued before it are done (nobody waits
    /// for it: it only takes work that is still left when it starts).
    func help(_ body: @escaping @Sendable () -> Void) {
        queue.async(execute: body)
    }

    /// Waits until batch buffer `buffer` may be reused.
    func waitForBuffer(_ buffer: Int) {
        groups[buffer].wait()
    }

    /// Waits until everything queued is done.
    func waitForAll() {
        queue.sync {}
    }

    /// Throws the first failed write, if any.
    func checkFailure() throws(AttachmentError) {
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

/// A batch write handed to the helper thread; the writer keeps the buffer alive until it is done.
private struct PendingWrite: @unchecked Sendable {
    let fd: Int32
    let bytes: UnsafeRawBufferPointer
    let offset: UInt64
    let id: String
}

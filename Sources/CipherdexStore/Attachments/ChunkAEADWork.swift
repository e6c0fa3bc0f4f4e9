import Synchronization

/// The chunks of one window, sealed or opened by whichever threads call `drain()`: each takes
/// the next chunk from a shared counter (`SharedWorkItems`) and works on that chunk's own input
/// and output.
///
/// Sealing and opening only read the AEAD context's key material, and every job has its own
/// buffers, so any number of threads may drain at once. The caller drains too, then calls
/// `waitUntilFinished()` before using the output (or `firstFailure`); the buffers must stay
/// alive until then, not longer (a drainer that starts later takes nothing).
final class ChunkAEADWork: @unchecked Sendable {
    /// Whether the window is being written or read.
    enum Direction {
        /// Plaintext in, ciphertext and tag out.
        case seal
        /// Ciphertext and tag in, verified plaintext out.
        case open
    }

    /// One chunk.
    struct Job {
        /// Plaintext (sealing) or ciphertext and tag (opening).
        let input: UnsafeRawBufferPointer
        /// Its index in the file (bound into the nonce).
        let index: UInt64
        /// Whether it is the final chunk (bound into the nonce).
        let isFinal: Bool
        /// Ciphertext and tag (16 bytes more than the input) or plaintext (16 bytes fewer).
        let output: UnsafeMutableRawBufferPointer
    }

    private let direction: Direction
    private let jobs: [Job]
    private let aead: Sodium.ChunkAEAD
    private let associatedData: [UInt8]
    private let items: SharedWorkItems
    /// Lowest job number that failed to open (`Int.max`: none).
    private let failedJob = Atomic<Int>(Int.max)

    init(_ direction: Direction, jobs: [Job], aead: Sodium.ChunkAEAD, associatedData: [UInt8]) {
        self.direction = direction
        self.jobs = jobs
        self.aead = aead
        self.associatedData = associatedData
        self.items = SharedWorkItems(count: jobs.count)
    }

    /// How many chunks there are.
    var count: Int { jobs.count }

    /// The file index of the first chunk (in file order) that failed authentication, if any;
    /// read only after `waitUntilFinished()`. Its output, like every other, must be discarded.
    var firstFailure: UInt64? {
        let job = failedJob.load(ordering: .relaxed)
        return job == Int.max ? nil : jobs[job].index
    }

    /// Seals or opens chunks until none is left to take (others may still be finishing theirs:
    /// `waitUntilFinished()`).
    func drain() {
        guard var taken = items.take() else { return }
        withUnsafeTemporaryAllocation(byteCount: aead.algorithm.nonceBytes, alignment: 8) { nonce in
            associatedData.withUnsafeBytes { ad in
                while true {
                    let number = taken
                    let job = jobs[number]
                    AttachmentCipherFormat.writeNonce(into: nonce, chunkIndex: job.index, isFinal: job.isFinal)
                    switch direction {
                    case .seal:
                        aead.seal(job.input, into: job.output, nonce: UnsafeRawBufferPointer(nonce), associatedData: ad)
                    case .open:
                        let verified = aead.open(
                            job.input, into: job.output, nonce: UnsafeRawBufferPointer(nonce), associatedData: ad)
                        if !verified {
                            var current = failedJob.load(ordering: .relaxed)
                            while number < current {
                                let exchange = failedJob.compareExchange(
                                    expected: current, desired: number, ordering: .relaxed)
                                if exchange.exchanged { break }
                                current = exchange.original
                            }
                        }
                    }
                    items.finish()
                    guard let following = items.take() else { return }
                    taken = following
                }
            }
        }
    }

    /// Returns once every chunk is sealed or opened, by whichever thread took it.
    func waitUntilFinished() {
        items.waitUntilFinished()
    }
}

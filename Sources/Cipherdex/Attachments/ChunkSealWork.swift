import Synchronization

/// The chunks of one write window, sealed by whichever threads call `drain()`: each takes the
/// next chunk from an atomic counter and seals it into that chunk's own slot of the batch.
///
/// Sealing only reads the AEAD context's key material, and every job has its own plaintext and
/// output, so any number of threads may drain at once. The caller keeps the plaintext and the
/// output alive, and waits for every drainer before writing the batch out.
final class ChunkSealWork: @unchecked Sendable {
    /// One chunk to seal.
    struct Job {
        /// The chunk's plaintext.
        let plaintext: UnsafeRawBufferPointer
        /// Its index in the file (bound into the nonce).
        let index: UInt64
        /// Whether it is the final chunk (bound into the nonce).
        let isFinal: Bool
        /// Where ciphertext and tag go: `plaintext.count + 16` bytes.
        let output: UnsafeMutableRawBufferPointer
    }

    private let jobs: [Job]
    private let aead: Sodium.ChunkAEAD
    private let associatedData: [UInt8]
    private let next = Atomic<Int>(0)

    init(jobs: [Job], aead: Sodium.ChunkAEAD, associatedData: [UInt8]) {
        self.jobs = jobs
        self.aead = aead
        self.associatedData = associatedData
    }

    /// How many chunks there are to seal.
    var count: Int { jobs.count }

    /// Seals chunks until none is left.
    func drain() {
        guard next.load(ordering: .relaxed) < jobs.count else { return }
        withUnsafeTemporaryAllocation(byteCount: aead.algorithm.nonceBytes, alignment: 8) { nonce in
            associatedData.withUnsafeBytes { ad in
                while true {
                    let index = next.add(1, ordering: .relaxed).oldValue
                    guard index < jobs.count else { return }
                    let job = jobs[index]
                    AttachmentCipherFormat.writeNonce(into: nonce, chunkIndex: job.index, isFinal: job.isFinal)
                    aead.seal(job.plaintext, into: job.output, nonce: UnsafeRawBufferPointer(nonce), associatedData: ad)
                }
            }
        }
    }
}

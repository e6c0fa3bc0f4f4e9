import Dispatch
import Foundation
import Synchronization
internal import CSodium

extension Sodium {
    /// The keyed content hash used to find identical attachments: a two-level BLAKE2b tree.
    /// Content is cut into 64 KiB leaves (whatever pieces it arrives in); each leaf gets a keyed
    /// BLAKE2b-256, and the root is a keyed BLAKE2b-256 over a label, the leaf hashes and the
    /// length. Leaves are independent, so both cores hash them: the other core while the caller's
    /// thread encrypts and writes the piece, then both.
    final class ContentHash {
        /// Leaf size in bytes.
        static let leafBytes = 64 * 1024
        private let key: SecureBytes?
        private let root: StreamingHash
        private var length: UInt64 = 0
        /// Bytes of an incomplete leaf carried between pieces (wiped when finished).
        private let pending: UnsafeMutableRawBufferPointer
        private var pendingCount = 0
        private var finished = false

        /// Starts a hash keyed with `key` (nil: unkeyed, for unencrypted stores).
        init(key: SecureBytes?) {
            self.key = key
            self.root = StreamingHash(key: key)
            self.pending = .allocate(byteCount: Self.leafBytes, alignment: 64)
            root.update(UnsafeRawBufferPointer(start: Array("cdx-content-tree-v1".utf8), count: 19))
        }

        deinit {
            sodium_memzero(pending.baseAddress!, pending.count)
            pending.deallocate()
        }

        /// Adds `bytes`, hashing its whole leaves on the other core while `workOnThisThread` runs,
        /// then on both.
        func update(_ bytes: UnsafeRawBufferPointer, concurrentlyWith workOnThisThread: () throws -> Void) rethrows {
            length += UInt64(bytes.count)
            var leaves: [UnsafeRawBufferPointer] = []
            var offset = 0
            if pendingCount > 0 {
                let take = min(Self.leafBytes - pendingCount, bytes.count)
                if take > 0 {
                    (pending.baseAddress! + pendingCount).copyMemory(from: bytes.baseAddress!, byteCount: take)
                }
                pendingCount += take
                offset = take
                if pendingCount == Self.leafBytes {
                    leaves.append(UnsafeRawBufferPointer(pending))
                }
            }
            while bytes.count - offset >= Self.leafBytes {
                leaves.append(UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + Self.leafBytes)]))
                offset += Self.leafBytes
            }
            let work = LeafWork(key: key, leaves: leaves)
            if leaves.count >= 4 {
                // Both cores take leaves from one counter: the other core from the start, this
                // one once it has encrypted and written the piece — so the hashing balances itself.
                let group = DispatchGroup()
                DispatchQueue.global(qos: .userInitiated).async(group: group) { work.drain() }
                defer { group.wait() }
                try workOnThisThread()
                work.drain()
                group.wait()
            } else {
                try workOnThisThread()
                work.drain()
            }
            let digests = work.digests
            digests.withUnsafeBytes { root.update($0) }
            if pendingCount == Self.leafBytes { pendingCount = 0 }
            let rest = bytes.count - offset
            if rest > 0 {
                (pending.baseAddress! + pendingCount).copyMemory(from: bytes.baseAddress! + offset, byteCount: rest)
                pendingCount += rest
            }
        }

        /// The 32-byte digest; the hash cannot be used afterwards.
        func finish() -> [UInt8] {
            precondition(!finished, "hash already finished")
            finished = true
            if pendingCount > 0 {
                let last = LeafWork(key: key, leaves: [UnsafeRawBufferPointer(rebasing: pending[0..<pendingCount])])
                last.drain()
                last.digests.withUnsafeBytes { root.update($0) }
            }
            var total = length.bigEndian
            withUnsafeBytes(of: &total) { root.update($0) }
            return root.finish()
        }
    }
}

/// The leaves of one piece, hashed by whichever threads call `drain()`: each takes the next leaf
/// from an atomic counter and writes its digest to that leaf's own slot. The caller keeps the
/// buffers alive and waits for every drainer before reading `digests`.
private final class LeafWork: @unchecked Sendable {
    let key: SecureBytes?
    let leaves: [UnsafeRawBufferPointer]
    private let next = Atomic<Int>(0)
    private let output: UnsafeMutableBufferPointer<UInt8>

    init(key: SecureBytes?, leaves: [UnsafeRawBufferPointer]) {
        self.key = key
        self.leaves = leaves
        self.output = .allocate(capacity: max(1, leaves.count * 32))
    }

    deinit {
        output.deallocate()
    }

    /// The digests, in leaf order (read only after every `drain()` returned).
    var digests: [UInt8] { Array(UnsafeBufferPointer(rebasing: output[0..<(leaves.count * 32)])) }

    /// Hashes leaves until none is left.
    func drain() {
        while true {
            let index = next.add(1, ordering: .relaxed).oldValue
            guard index < leaves.count else { return }
            let leaf = leaves[index]
            let destination = output.baseAddress! + index * 32
            if let key {
                key.withUnsafeBytes { keyBytes in
                    _ = crypto_generichash(
                        destination, 32, leaf.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(leaf.count),
                        keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
                }
            } else {
                _ = crypto_generichash(
                    destination, 32, leaf.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(leaf.count), nil, 0)
            }
        }
    }
}

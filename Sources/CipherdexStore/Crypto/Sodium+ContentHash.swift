internal import CSodium
import Dispatch
import Foundation
import Synchronization

extension Sodium {
    /// The keyed content hash used to find identical attachments: a two-level tree.
    ///
    /// Content is cut into 64 KiB leaves (whatever pieces it arrives in). With a key, each leaf
    /// gets SipHash-2-4 with a 128-bit output (libsodium `crypto_shorthash_siphashx24`, a PRF
    /// under a 16-byte leaf key derived from `key`), and the root is a keyed BLAKE2b-256 over the
    /// label `cdx-content-tree-v2`, the leaf digests and the length. SipHash costs about 0.5
    /// CPU-seconds per GiB here against BLAKE2b's 1.3, which is what lets attachment writes keep
    /// up with `age`. Without a key (unencrypted stores) nothing is secret, so leaves need a
    /// collision-resistant hash: unkeyed BLAKE2b-256 under the label `cdx-content-tree-v1`.
    /// Leaves are independent, so both cores hash them.
    final class ContentHash {
        /// Leaf size in bytes.
        static let leafBytes = 64 * 1024
        /// The SipHash leaf key (keyed hash), or nil (unkeyed BLAKE2b leaves).
        private let leafKey: SecureBytes?
        private let root: StreamingHash
        private var length: UInt64 = 0
        /// Bytes of an incomplete leaf carried between pieces (wiped when finished).
        private let pending: UnsafeMutableRawBufferPointer
        private var pendingCount = 0
        private var finished = false

        /// Starts a hash keyed with `key` (nil: unkeyed, for unencrypted stores).
        init(key: SecureBytes?) {
            self.leafKey = key.map(Sodium.sipHashLeafKey(from:))
            self.root = StreamingHash(key: key)
            self.pending = .allocate(byteCount: Self.leafBytes, alignment: 64)
            let label = Array((key == nil ? "cdx-content-tree-v1" : "cdx-content-tree-v2").utf8)
            label.withUnsafeBytes { root.update($0) }
        }

        deinit {
            sodium_memzero(pending.baseAddress!, pending.count)
            pending.deallocate()
        }

        /// Adds `bytes`, hashing its whole leaves on the other core while `workOnThisThread` runs,
        /// then on both.
        func update(_ bytes: UnsafeRawBufferPointer, concurrentlyWith workOnThisThread: () throws -> Void) rethrows {
            let work = beginUpdate(bytes)
            if work.count >= 4 {
                // Both cores take leaves from one counter: the other core from the start, this
                // one once it has done its own work — so the hashing balances itself.
                // The caller waits only for leaves the other core took, not for it to start.
                DispatchQueue.global(qos: .userInitiated).async { work.drain() }
                defer {
                    work.drain()
                    work.waitUntilFinished()
                }
                try workOnThisThread()
            } else {
                try workOnThisThread()
                work.drain()
            }
            endUpdate(work, bytes)
        }

        /// First half of adding `bytes`: the leaves it completes, for any threads to `drain()`.
        /// `bytes` must stay valid and unchanged until `endUpdate(_:_:)` (which waits for every
        /// leaf taken to be finished) has returned for the same bytes; no other update may come
        /// between.
        func beginUpdate(_ bytes: UnsafeRawBufferPointer) -> ContentLeafWork {
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
            return ContentLeafWork(leafKey: leafKey, leaves: leaves, consumed: offset)
        }

        /// Second half: folds the drained leaves into the root and keeps the incomplete tail.
        func endUpdate(_ work: ContentLeafWork, _ bytes: UnsafeRawBufferPointer) {
            work.waitUntilFinished()
            work.digests.withUnsafeBytes { root.update($0) }
            if pendingCount == Self.leafBytes { pendingCount = 0 }
            let rest = bytes.count - work.consumed
            if rest > 0 {
                (pending.baseAddress! + pendingCount).copyMemory(
                    from: bytes.baseAddress! + work.consumed, byteCount: rest)
                pendingCount += rest
            }
        }

        /// The 32-byte digest; the hash cannot be used afterwards.
        func finish() -> [UInt8] {
            precondition(!finished, "hash already finished")
            finished = true
            if pendingCount > 0 {
                let last = ContentLeafWork(
                    leafKey: leafKey, leaves: [UnsafeRawBufferPointer(rebasing: pending[0..<pendingCount])],
                    consumed: 0)
                last.drain()
                last.waitUntilFinished()
                last.digests.withUnsafeBytes { root.update($0) }
            }
            var total = length.bigEndian
            withUnsafeBytes(of: &total) { root.update($0) }
            return root.finish()
        }
    }
}

extension Sodium {
    /// The 16-byte SipHash leaf key: keyed BLAKE2b-128 of a label under the 32-byte hash key.
    fileprivate static func sipHashLeafKey(from key: SecureBytes) -> SecureBytes {
        ensureInitialized()
        let label = Array("cdx-content-leaf-siphash".utf8)
        return SecureBytes(count: Int(crypto_shorthash_siphashx24_KEYBYTES)) { destination in
            key.withUnsafeBytes { keyBytes in
                _ = crypto_generichash(
                    destination.baseAddress!.assumingMemoryBound(to: UInt8.self), destination.count, label,
                    UInt64(label.count), keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
            }
        }
    }
}

/// The leaves of one piece, hashed by whichever threads call `drain()`: each takes the next leaf
/// from a shared counter (`SharedWorkItems`) and writes its digest to that leaf's own slot. The
/// caller keeps the buffers alive until `waitUntilFinished()` returns, then reads `digests`.
final class ContentLeafWork: @unchecked Sendable {
    let leafKey: SecureBytes?
    let leaves: [UnsafeRawBufferPointer]
    /// Bytes of the piece taken by these leaves or by the pending leaf.
    let consumed: Int
    /// Bytes per leaf digest: 16 (SipHash-128) or 32 (BLAKE2b-256).
    let digestBytes: Int
    private let items: SharedWorkItems
    private let output: UnsafeMutableBufferPointer<UInt8>

    init(leafKey: SecureBytes?, leaves: [UnsafeRawBufferPointer], consumed: Int) {
        self.leafKey = leafKey
        self.leaves = leaves
        self.consumed = consumed
        self.digestBytes = leafKey == nil ? 32 : Int(crypto_shorthash_siphashx24_BYTES)
        self.output = .allocate(capacity: max(1, leaves.count * digestBytes))
        self.items = SharedWorkItems(count: leaves.count)
    }

    deinit {
        output.deallocate()
    }

    /// How many leaves there are to hash.
    var count: Int { leaves.count }

    /// The digests, in leaf order (read only after `waitUntilFinished()`).
    var digests: [UInt8] { Array(UnsafeBufferPointer(rebasing: output[0..<(leaves.count * digestBytes)])) }

    /// Hashes leaves until none is left to take (others may still be finishing theirs:
    /// `waitUntilFinished()`).
    func drain() {
        while let index = items.take() {
            defer { items.finish() }
            let leaf = leaves[index]
            let destination = output.baseAddress! + index * digestBytes
            if let leafKey {
                leafKey.withUnsafeBytes { keyBytes in
                    _ = crypto_shorthash_siphashx24(
                        destination, leaf.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(leaf.count),
                        keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            } else {
                _ = crypto_generichash(
                    destination, 32, leaf.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(leaf.count), nil, 0)
            }
        }
    }

    /// Returns once every leaf is hashed, by whichever thread took it.
    func waitUntilFinished() {
        items.waitUntilFinished()
    }
}

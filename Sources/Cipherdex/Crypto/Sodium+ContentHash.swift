import Dispatch
import Foundation
internal import CSodium

extension Sodium {
    /// The keyed content hash used to find identical attachments: a two-level BLAKE2b tree.
    /// Content is cut into 64 KiB leaves (whatever pieces it arrives in); each leaf gets a keyed
    /// BLAKE2b-256, and the root is a keyed BLAKE2b-256 over a label, the leaf hashes and the
    /// length. Leaves are independent, so while a piece is being encrypted and written on the
    /// caller's thread, its leaves are hashed on the other core.
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

        /// Adds `bytes`, hashing its whole leaves on another core while `work` runs here.
        func update(_ bytes: UnsafeRawBufferPointer, concurrentlyWith work: () throws -> Void) rethrows {
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
            var digests: [UInt8]
            if leaves.count >= 4 {
                // The caller's thread encrypts and writes (and makes the system calls); the
                // leaves are hashed on the other core meanwhile.
                let job = LeafJob(key: key, leaves: leaves)
                let box = DigestBox()
                let group = DispatchGroup()
                DispatchQueue.global(qos: .userInitiated).async(group: group) { box.digests = job.run() }
                defer { group.wait() }
                try work()
                group.wait()
                digests = box.digests
            } else {
                try work()
                digests = LeafJob(key: key, leaves: leaves).run()
            }
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
                let last = LeafJob(key: key, leaves: [UnsafeRawBufferPointer(rebasing: pending[0..<pendingCount])]).run()
                last.withUnsafeBytes { root.update($0) }
            }
            var total = length.bigEndian
            withUnsafeBytes(of: &total) { root.update($0) }
            return root.finish()
        }
    }
}

/// Leaves hashed on one thread; the caller keeps the buffers alive and waits for the result.
private struct LeafJob: @unchecked Sendable {
    let key: SecureBytes?
    let leaves: [UnsafeRawBufferPointer]

    func run() -> [UInt8] {
        var output = [UInt8](repeating: 0, count: leaves.count * 32)
        output.withUnsafeMutableBufferPointer { out in
            for (index, leaf) in leaves.enumerated() {
                let destination = out.baseAddress! + index * 32
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
        return output
    }
}

/// Carries the other thread's digests back (written before the group is left, read after).
private final class DigestBox: @unchecked Sendable {
    var digests: [UInt8] = []
}

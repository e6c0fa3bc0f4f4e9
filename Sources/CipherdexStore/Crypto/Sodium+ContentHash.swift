internal import CSodium
import Dispatch
import Foundation
import Synchronization

extension Sodium {
    /// The keyed content hash used to find identical attachments: a two-level tree
    /// (FORMAT.md, section 7.4).
    ///
    /// Content is cut into 64 KiB leaves (whatever pieces it arrives in). With a key (tree v3),
    /// each leaf gets Poly1305 under one 32-byte leaf key derived from `key` (OpenSSL's, or
    /// libsodium's `crypto_onetimeauth_poly1305`: the same tags), and the root is a keyed
    /// BLAKE2b-256 over the label `cdx-content-tree-v3`, the 16-byte leaf digests and the length.
    /// The leaves need only be almost universal, not a PRF: their digests never leave this
    /// process, and only the keyed BLAKE2b root (a PRF) of all of them is stored. Poly1305 takes
    /// about 0.15 CPU-seconds per GiB here, against SipHash-2-4's 0.5 (tree v2, still computed
    /// for tests of older stores) and BLAKE2b's 1.1 (BENCHMARKS.md, "Attachment CPU"). Without a
    /// key (unencrypted stores) nothing is secret, so leaves need a collision-resistant hash:
    /// unkeyed BLAKE2b-256 under the label `cdx-content-tree-v1`. Leaves are independent, so both
    /// cores hash them.
    final class ContentHash {
        /// The trees this build computes; new content always gets `standard(keyed:)`.
        enum Tree: String, Sendable {
            /// Unkeyed BLAKE2b-256 leaves and root (unencrypted stores).
            case v1Unkeyed = "cdx-content-tree-v1"
            /// SipHash-2-4-128 leaves under a 16-byte leaf key, keyed BLAKE2b-256 root (encrypted
            /// stores, content written before tree v3).
            case v2SipHash = "cdx-content-tree-v2"
            /// Poly1305 leaves under a 32-byte leaf key, keyed BLAKE2b-256 root (encrypted stores).
            case v3Poly1305 = "cdx-content-tree-v3"

            /// The tree new content gets: v3 with a key, v1 without.
            static func standard(keyed: Bool) -> Tree { keyed ? .v3Poly1305 : .v1Unkeyed }

            /// Whether the tree takes a key.
            var isKeyed: Bool { self != .v1Unkeyed }

            /// Bytes per leaf digest.
            var digestBytes: Int { self == .v1Unkeyed ? 32 : 16 }
        }

        /// Leaf size in bytes.
        static let leafBytes = 64 * 1024
        /// The tree computed.
        let tree: Tree
        /// The leaf key (keyed trees), or nil (unkeyed BLAKE2b leaves).
        private let leafKey: SecureBytes?
        /// Whether Poly1305 leaves go through OpenSSL first.
        private let usingOpenSSL: Bool
        private let root: StreamingHash
        private var length: UInt64 = 0
        /// Bytes of an incomplete leaf carried between pieces (wiped when finished).
        private let pending: UnsafeMutableRawBufferPointer
        private var pendingCount = 0
        private var finished = false

        /// Starts a hash keyed with `key` (nil: unkeyed, for unencrypted stores), of the tree new
        /// content gets unless `tree` says otherwise; a keyed tree needs a key and the unkeyed
        /// one none. `usingOpenSSL: false` computes Poly1305 leaves with libsodium only (for tests:
        /// the digests are the same).
        init(key: SecureBytes?, tree: Tree? = nil, usingOpenSSL: Bool = true) {
            let tree = tree ?? Tree.standard(keyed: key != nil)
            precondition(tree.isKeyed == (key != nil), "\(tree.rawValue) is \(tree.isKeyed ? "" : "un")keyed")
            self.tree = tree
            self.usingOpenSSL = usingOpenSSL
            self.leafKey = key.map { Sodium.leafKey(of: tree, from: $0) }
            self.root = StreamingHash(key: key)
            self.pending = .allocate(byteCount: Self.leafBytes, alignment: 64)
            Array(tree.rawValue.utf8).withUnsafeBytes { root.update($0) }
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
            return ContentLeafWork(
                tree: tree, leafKey: leafKey, leaves: leaves, consumed: offset, usingOpenSSL: usingOpenSSL)
        }

        /// Second half: folds the drained leaves into the root and keeps the incomplete tail.
        func endUpdate(_ work: ContentLeafWork, _ bytes: UnsafeRawBufferPointer) {
            work.waitUntilFinished()
            work.withDigests { root.update($0) }
            if pendingCount == Self.leafBytes { pendingCount = 0 }
            let rest = bytes.count - work.consumed
            if rest > 0 {
                (pending.baseAddress! + pendingCount).copyMemory(
                    from: bytes.baseAddress! + work.consumed, byteCount: rest)
                pendingCount += rest
            }
        }

        /// `hashes` (attachment id, content hash under `key`) with every hash unique, as the
        /// `attachments.content_hash` column needs: the first row of each hash keeps it, and a
        /// later row with the same content — two copies an older tree left (content hashed with
        /// tree v2 and added again under v3 is stored twice, FORMAT.md 7.4), which a conversion
        /// now hashes alike — gets its duplicate form instead: BLAKE2b-256 keyed with `key` (or
        /// unkeyed without one) of `"cdx-content-duplicate-v1" ‖ hash ‖ id`. That never equals a
        /// content hash, so new content is shared with the first copy only.
        static func distinct(_ hashes: [(String, [UInt8])], key: SecureBytes?) -> [(String, [UInt8])] {
            var seen: Set<[UInt8]> = []
            return hashes.map { id, hash in
                guard !seen.insert(hash).inserted else { return (id, hash) }
                return (id, duplicateForm(of: hash, id: id, key: key))
            }
        }

        /// The duplicate form of `hash` for row `id` (see `distinct(_:key:)`).
        static func duplicateForm(of hash: [UInt8], id: String, key: SecureBytes?) -> [UInt8] {
            let form = StreamingHash(key: key)
            (Array("cdx-content-duplicate-v1".utf8) + hash + Array(id.utf8)).withUnsafeBytes { form.update($0) }
            return form.finish()
        }

        /// The 32-byte digest; the hash cannot be used afterwards.
        func finish() -> [UInt8] {
            precondition(!finished, "hash already finished")
            finished = true
            if pendingCount > 0 {
                let last = ContentLeafWork(
                    tree: tree, leafKey: leafKey, leaves: [UnsafeRawBufferPointer(rebasing: pending[0..<pendingCount])],
                    consumed: 0, usingOpenSSL: usingOpenSSL)
                last.drain()
                last.waitUntilFinished()
                last.withDigests { root.update($0) }
            }
            var total = length.bigEndian
            withUnsafeBytes(of: &total) { root.update($0) }
            return root.finish()
        }
    }
}

extension Sodium {
    /// The leaf key of a keyed tree: keyed BLAKE2b of the tree's leaf label under the 32-byte
    /// hash key, 16 bytes for SipHash (v2) and 32 for Poly1305 (v3).
    fileprivate static func leafKey(of tree: ContentHash.Tree, from key: SecureBytes) -> SecureBytes {
        ensureInitialized()
        let (label, count) =
            tree == .v2SipHash
            ? ("cdx-content-leaf-siphash", Int(crypto_shorthash_siphashx24_KEYBYTES))
            : ("cdx-content-leaf-poly1305", OpenSSLPoly1305.keyBytes)
        let bytes = Array(label.utf8)
        return SecureBytes(count: count) { destination in
            key.withUnsafeBytes { keyBytes in
                _ = crypto_generichash(
                    destination.baseAddress!.assumingMemoryBound(to: UInt8.self), destination.count, bytes,
                    UInt64(bytes.count), keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
            }
        }
    }
}

/// The leaves of one piece, hashed by whichever threads call `drain()`: each takes the next leaf
/// from a shared counter (`SharedWorkItems`) and writes its digest to that leaf's own slot. The
/// caller keeps the buffers alive until `waitUntilFinished()` returns, then reads `digests`.
final class ContentLeafWork: @unchecked Sendable {
    let tree: Sodium.ContentHash.Tree
    let leafKey: SecureBytes?
    let leaves: [UnsafeRawBufferPointer]
    /// Bytes of the piece taken by these leaves or by the pending leaf.
    let consumed: Int
    /// Bytes per leaf digest: 16 (Poly1305, SipHash-128) or 32 (BLAKE2b-256).
    let digestBytes: Int
    /// Whether Poly1305 leaves go through OpenSSL first (else libsodium only).
    let usingOpenSSL: Bool
    private let items: SharedWorkItems
    private let output: UnsafeMutableBufferPointer<UInt8>

    init(
        tree: Sodium.ContentHash.Tree, leafKey: SecureBytes?, leaves: [UnsafeRawBufferPointer], consumed: Int,
        usingOpenSSL: Bool = true
    ) {
        self.tree = tree
        self.usingOpenSSL = usingOpenSSL
        self.leafKey = leafKey
        self.leaves = leaves
        self.consumed = consumed
        self.digestBytes = tree.digestBytes
        self.output = .allocate(capacity: max(1, leaves.count * digestBytes))
        self.items = SharedWorkItems(count: leaves.count)
    }

    deinit {
        // With one Poly1305 key for every leaf, known leaves and their digests would give that
        // key away: the digests never leave this buffer, which is wiped.
        sodium_memzero(output.baseAddress!, output.count)
        output.deallocate()
    }

    /// How many leaves there are to hash.
    var count: Int { leaves.count }

    /// Calls `body` with the digests, in leaf order (only after `waitUntilFinished()`); they are
    /// not copied anywhere else.
    func withDigests(_ body: (UnsafeRawBufferPointer) -> Void) {
        body(UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(output)[0..<(leaves.count * digestBytes)]))
    }

    /// Hashes leaves until none is left to take (others may still be finishing theirs:
    /// `waitUntilFinished()`).
    func drain() {
        // One OpenSSL context per thread, made when this thread takes its first Poly1305 leaf.
        var poly1305: OpenSSLPoly1305?
        var triedOpenSSL = !usingOpenSSL
        while let index = items.take() {
            defer { items.finish() }
            let leaf = leaves[index]
            let destination = output.baseAddress! + index * digestBytes
            let message = leaf.baseAddress?.assumingMemoryBound(to: UInt8.self)
            switch (tree, leafKey) {
            case (.v3Poly1305, let leafKey?):
                if !triedOpenSSL {
                    triedOpenSSL = true
                    poly1305 = OpenSSLPoly1305()
                }
                leafKey.withUnsafeBytes { keyBytes in
                    if poly1305?.tag(leaf, key: keyBytes, into: destination) == true { return }
                    _ = crypto_onetimeauth_poly1305(
                        destination, message, UInt64(leaf.count),
                        keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            case (.v2SipHash, let leafKey?):
                leafKey.withUnsafeBytes { keyBytes in
                    _ = crypto_shorthash_siphashx24(
                        destination, message, UInt64(leaf.count),
                        keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
            default:
                _ = crypto_generichash(destination, 32, message, UInt64(leaf.count), nil, 0)
            }
        }
    }

    /// Returns once every leaf is hashed, by whichever thread took it.
    func waitUntilFinished() {
        items.waitUntilFinished()
    }
}

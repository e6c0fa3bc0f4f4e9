import Foundation

/// The data key one open unwrapped, kept for the next open of the same metadata with the same
/// configuration (restore's writable fallback opens a backup twice): its key provider is not
/// asked again and a passphrase's Argon2id does not run again. The key stays in `SecureBytes`,
/// zeroed when the memo (and its configuration) goes away.
final class UnwrappedKeyMemo: @unchecked Sendable {
    /// What was unwrapped, and from which metadata (reused only for metadata equal to it).
    private struct Kept {
        let metadata: StoreMetadata
        let dataKey: SecureBytes
        let slotID: Int
    }

    /// Guards `kept`.
    private let lock = NSLock()
    /// The last result kept, nil before the first.
    private var kept: Kept?

    /// `unwrap()`'s result for `metadata`, or the one `memo` kept for metadata equal to it (its
    /// MAC was verified then); a fresh result is kept in `memo`.
    static func unwrap(
        _ metadata: StoreMetadata, keeping memo: UnwrappedKeyMemo?,
        _ unwrap: () throws -> (dataKey: SecureBytes, slotID: Int)
    ) throws -> (dataKey: SecureBytes, slotID: Int) {
        guard let memo else { return try unwrap() }
        if let kept = memo.lock.withLock({ memo.kept }), kept.metadata == metadata {
            return (kept.dataKey, kept.slotID)
        }
        let unwrapped = try unwrap()
        memo.lock.withLock {
            memo.kept = Kept(metadata: metadata, dataKey: unwrapped.dataKey, slotID: unwrapped.slotID)
        }
        return unwrapped
    }
}

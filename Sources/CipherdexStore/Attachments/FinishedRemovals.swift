import Synchronization

/// The ids of committed attachment removals whose files are durably gone (unlinked, their folder
/// synced), waiting for their `attachment_removals` records to be deleted in the next removal's
/// transaction. Shared by every copy of a store's `AttachmentStorage`. Each id is looked at once
/// (rescanning every record at every removal made bulk removals quadratic: review 26 finding 3).
final class FinishedRemovals: Sendable {
    private let ids = Mutex<[String]>([])

    /// Notes that `id`'s files are gone, their folder synced.
    func add(_ id: String) { ids.withLock { $0.append(id) } }

    /// The ids noted, forgotten.
    func take() -> [String] {
        ids.withLock { ids in
            defer { ids = [] }
            return ids
        }
    }
}

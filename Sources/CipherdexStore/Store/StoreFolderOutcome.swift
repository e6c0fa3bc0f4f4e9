/// What `Store.deleteReportingFolder(at:)` (`Store.delete(at:)`) did with the store's folder once every file of the store was gone
/// (the store is deleted in every case).
package enum StoreFolderOutcome: Equatable, Sendable {
    /// The folder was removed.
    case removed
    /// The folder was kept, as it should be: it holds `remaining` (sorted), which are not the
    /// store's (files of the user's, or a mount point inside).
    case kept(remaining: [String])
    /// The folder holds nothing of the store's any more but could not be removed (`rmdir`
    /// failed: the parent folder not writable, the folder a mount point…): `reason` says so and
    /// why (`it is empty but removing it failed: Permission denied (errno 13)`, `it is an empty
    /// mount point`).
    case notRemoved(reason: String)

    /// One line saying where the folder stands, for a report after "deleted": nil when it was
    /// removed.
    package var note: String? {
        switch self {
        case .removed:
            return nil
        case .kept(let remaining):
            let shown = remaining.prefix(3).joined(separator: ", ")
            let more = remaining.count > 3 ? ", … (\(remaining.count) in all)" : ""
            return remaining.isEmpty
                ? "its folder was kept: it holds files that are not the store's"
                : "its folder was kept: it holds what is not the store's: \(shown)\(more)"
        case .notRemoved(let reason):
            return "its folder was left: \(reason)"
        }
    }
}

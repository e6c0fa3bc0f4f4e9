import Synchronization

/// The backups running on one store. While any runs, the files of attachments whose removal
/// commits are not unlinked (a backup's snapshot may still list them): they are unlinked when
/// the last backup ends, or, after a crash, by the next open (their removal records stay).
final class BackupHolds: Sendable {
    private struct State {
        var running = 0
        var deferredUnlinks: [String] = []
    }

    private let state = Mutex(State())

    /// Registers a backup; call before its snapshot starts.
    func begin() {
        state.withLock { $0.running += 1 }
    }

    /// Ends a backup; returns the ids whose unlink waited for the last one.
    func end() -> [String] {
        state.withLock { state in
            state.running -= 1
            guard state.running == 0 else { return [] }
            defer { state.deferredUnlinks = [] }
            return state.deferredUnlinks
        }
    }

    /// Whether the file of removed attachment `id` may be unlinked now; false means it was
    /// queued for the end of the running backups.
    func mayUnlink(_ id: String) -> Bool {
        state.withLock { state in
            guard state.running > 0 else { return true }
            state.deferredUnlinks.append(id)
            return false
        }
    }
}

import Dispatch
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Dispatch's own descriptors (an epoll instance, an eventfd, a timerfd), made before a store's
/// files are opened. On Linux, Dispatch makes them the first time one of its worker threads or
/// sources starts and ends the process (SIGILL, `_dispatch_epoll_init`) when it cannot: that
/// first start came mid-operation (closing a store, hashing an attachment during `decrypt`), and
/// a process run out of descriptors died there instead of getting `resourcesExhausted`
/// (resources audit 3).
package enum DispatchReadiness {
    /// The descriptors Dispatch's event loop takes.
    static let descriptors = 3
    private static let started = Atomic<Bool>(false)

    /// Starts a Dispatch worker and waits for it, once per process, when `descriptors`
    /// descriptors are free; with fewer, nothing is started (no store can be opened then
    /// anyway: its lock takes two, its metadata a third) and a later call tries again.
    package static func ensure() {
        guard !started.load(ordering: .acquiring) else { return }
        var probes: [Int32] = []
        for _ in 0..<descriptors {
            // Any descriptor will do (standard input may be closed in a library's process).
            let probe = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard probe >= 0 else { break }
            probes.append(probe)
        }
        for probe in probes { _ = close(probe) }
        guard probes.count == descriptors else { return }
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {}
        group.wait()
        started.store(true, ordering: .releasing)
    }
}

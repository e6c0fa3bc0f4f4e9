import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Starts Dispatch's event loop at the program's start, while descriptors are to be had.
///
/// On Linux, Dispatch makes the descriptors of its event loop (an epoll instance, an eventfd,
/// a timerfd) the first time one of its worker threads starts, and ends the process (SIGILL,
/// `_dispatch_epoll_init`) when it cannot. That first worker used to start late, when closing a
/// store: under a tight `ulimit -n` a command that had used the last descriptors then died by
/// the signal, where it should have said `resourcesExhausted` (exit 22).
enum DispatchWarmUp {
    /// The descriptors Dispatch's event loop takes.
    static let descriptors = 3

    /// Starts a worker thread and waits for it, when `descriptors` descriptors are free; with
    /// fewer the program cannot open a store anyway (its lock takes two, its metadata a third),
    /// and what it does say (`resourcesExhausted`, or a command needing no store) is said
    /// without Dispatch.
    static func start() {
        var probes: [Int32] = []
        for _ in 0..<descriptors {
            let probe = fcntl(0, F_DUPFD_CLOEXEC, 0)
            guard probe >= 0 else { break }
            probes.append(probe)
        }
        for probe in probes { _ = close(probe) }
        guard probes.count == descriptors else { return }
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {}
        group.wait()
    }
}

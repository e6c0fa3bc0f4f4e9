import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// Room for the descriptors a command needs, made before it opens anything: the soft limit on
/// open files is raised toward the hard one (to at most `wanted`), and Dispatch makes its own
/// descriptors (an epoll instance and an event descriptor) now, while three are in use. Dispatch
/// made them the first time a worker thread or source started, mid-command, and trapped (SIGILL)
/// when none was free: a `decrypt` run out of descriptors died halfway, leaving its unencrypted
/// copy beside the store until the next open (resources audit 3). Out of descriptors later, a
/// command now fails with an error.
enum DescriptorHeadroom {
    /// The soft limit asked for, when the hard limit allows it.
    static let wanted: rlim_t = 8192

    /// Raises the soft limit and starts Dispatch's event machinery.
    static func prepare() {
        var limit = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < wanted,
            limit.rlim_cur < limit.rlim_max
        {
            limit.rlim_cur = min(wanted, limit.rlim_max)
            _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        }
        DispatchReadiness.ensure()
    }
}

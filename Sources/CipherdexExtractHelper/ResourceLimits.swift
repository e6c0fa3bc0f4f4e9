#if canImport(Glibc)
    import Glibc
#endif

/// The limits the helper puts on itself before it reads any input.
enum ResourceLimits {
    /// A failed `setrlimit`.
    struct LimitError: Error, CustomStringConvertible {
        /// Which limit and why.
        var description: String
    }

    /// Caps the address space at `memoryBytes` (RLIMIT_AS) and CPU time at `cpuSeconds`
    /// (RLIMIT_CPU: SIGXCPU at the soft limit, SIGKILL one second later), forbids core dumps
    /// (they would put document text on disk) and file writes (RLIMIT_FSIZE 0, with SIGXFSZ
    /// ignored so a stray write fails instead of killing; pipes are not affected).
    static func apply(memoryBytes: Int, cpuSeconds: Int) throws {
        try set(RLIMIT_CORE, soft: 0, hard: 0, name: "RLIMIT_CORE")
        try set(RLIMIT_FSIZE, soft: 0, hard: 0, name: "RLIMIT_FSIZE")
        signal(SIGXFSZ, SIG_IGN)
        try set(RLIMIT_CPU, soft: rlim_t(cpuSeconds), hard: rlim_t(cpuSeconds + 1), name: "RLIMIT_CPU")
        try set(RLIMIT_AS, soft: rlim_t(memoryBytes), hard: rlim_t(memoryBytes), name: "RLIMIT_AS")
    }

    /// Lowers one limit (never raises a hard limit the process was given).
    private static func set(_ resource: __rlimit_resource, soft: rlim_t, hard: rlim_t, name: String) throws {
        var current = rlimit()
        getrlimit(__rlimit_resource_t(resource.rawValue), &current)
        var limit = rlimit(rlim_cur: min(soft, current.rlim_max), rlim_max: min(hard, current.rlim_max))
        guard setrlimit(__rlimit_resource_t(resource.rawValue), &limit) == 0 else {
            throw LimitError(description: "cannot set \(name): errno \(errno)")
        }
    }
}

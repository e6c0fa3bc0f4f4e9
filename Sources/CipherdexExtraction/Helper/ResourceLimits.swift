#if canImport(Glibc)
    import Glibc
#endif

/// The limits the helper puts on itself: once before it reads any input, and a CPU-time budget
/// before each request.
enum ResourceLimits {
    /// A failed `setrlimit`.
    struct LimitError: Error, CustomStringConvertible {
        /// What was wrong.
        var description: String
    }

    /// Caps the address space at `memoryBytes` (RLIMIT_AS), forbids core dumps (they would put
    /// document text on disk; RLIMIT_CORE 0 does not stop a core_pattern pipe, the helper's not
    /// being dumpable, set before, does) and file writes (RLIMIT_FSIZE 0, with SIGXFSZ ignored so a stray
    /// write fails instead of killing; pipes are not affected), and sets RLIMIT_CPU for the
    /// first request (soft `cpuSeconds`) under a lifetime hard cap of `requests` budgets of
    /// `cpuSeconds + 1` (at the soft limit SIGXCPU ends the process; at the hard one, SIGKILL).
    static func apply(memoryBytes: Int, cpuSeconds: Int, requests: Int) throws {
        try set(RLIMIT_CORE, soft: 0, hard: 0, name: "RLIMIT_CORE")
        try set(RLIMIT_FSIZE, soft: 0, hard: 0, name: "RLIMIT_FSIZE")
        signal(SIGXFSZ, SIG_IGN)
        let (budgets, overflow) = requests.multipliedReportingOverflow(by: cpuSeconds + 1)
        let hard = overflow ? rlim_t(Int32.max) : rlim_t(min(budgets, Int(Int32.max)))
        try set(RLIMIT_CPU, soft: rlim_t(cpuSeconds), hard: max(hard, rlim_t(cpuSeconds + 1)), name: "RLIMIT_CPU")
        try set(RLIMIT_AS, soft: rlim_t(memoryBytes), hard: rlim_t(memoryBytes), name: "RLIMIT_AS")
    }

    /// Gives the next request `cpuSeconds` of CPU time: RLIMIT_CPU counts the whole process's
    /// time, so the soft limit moves to the time used so far (rounded up) plus `cpuSeconds`, never
    /// above the hard cap (any process may raise its soft limit up to the hard one).
    static func startRequest(cpuSeconds: Int) throws {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        let microseconds =
            Int(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1_000_000
            + Int(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
        let used = (microseconds + 999_999) / 1_000_000
        var current = rlimit()
        getrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &current)
        var limit = rlimit(rlim_cur: min(rlim_t(used + cpuSeconds), current.rlim_max), rlim_max: current.rlim_max)
        guard setrlimit(__rlimit_resource_t(RLIMIT_CPU.rawValue), &limit) == 0 else {
            throw LimitError(description: "cannot set RLIMIT_CPU: errno \(errno)")
        }
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

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs a command as a child process with `posix_spawn` and `wait4`, reporting its wall time
/// and, through GNU time (`/usr/bin/time -f %M`, which forks, so the bench's own memory is not
/// counted the way it is after a vfork-style spawn), the peak RSS of the command.
enum ChildProcess {
    /// What one run cost.
    struct Measurement {
        /// Wall-clock seconds.
        let seconds: Double
        /// Peak RSS in bytes.
        let peakRSS: UInt64
        /// Exit status (or 128 + signal).
        let status: Int32
        /// CPU seconds in user mode, of the command and every process it waited for.
        var userSeconds: Double = 0
        /// CPU seconds in the kernel, likewise.
        var systemSeconds: Double = 0
    }

    /// Runs `arguments` (the first is the executable path) with stdout sent to `stdoutPath`
    /// (or /dev/null) and `environment` added. Without `measureRSS` the command is spawned
    /// directly (no GNU time in between, for latencies of a few milliseconds).
    static func run(
        _ arguments: [String], stdoutPath: String? = nil, environment: [String: String] = [:], measureRSS: Bool = true
    ) throws -> Measurement {
        let rssFile = NSTemporaryDirectory() + "cipherdex-bench-rss-\(getpid())"
        let timed = measureRSS && FileManager.default.isExecutableFile(atPath: "/usr/bin/time")
        let arguments = timed ? ["/usr/bin/time", "-q", "-f", "%M", "-o", rssFile] + arguments : arguments
        defer { unlink(rssFile) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdoutPath ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let start = Bench.now()
        let code = posix_spawnp(&pid, arguments[0], &actions, nil, argv, envp)
        guard code == 0 else {
            throw NSError(
                domain: "spawn", code: Int(code), userInfo: [NSLocalizedDescriptionKey: "cannot run \(arguments[0])"])
        }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let seconds = Bench.now() - start
        let exit: Int32 = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        var peak = UInt64(usage.ru_maxrss) * 1024
        if timed, let text = try? String(contentsOfFile: rssFile, encoding: .utf8),
            let kib = UInt64(text.split(separator: "\n").last?.trimmingCharacters(in: .whitespaces) ?? "")
        {
            peak = kib * 1024
        }
        func cpu(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return Measurement(
            seconds: seconds, peakRSS: peak, status: exit, userSeconds: cpu(usage.ru_utime),
            systemSeconds: cpu(usage.ru_stime))
    }

    /// Whether an executable is on PATH.
    static func available(_ name: String) -> Bool {
        (try? run(["/bin/sh", "-c", "command -v \(name)"]).status) == 0
    }
}

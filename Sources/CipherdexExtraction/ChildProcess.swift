import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Starts a child process with `posix_spawn` whose standard input, output and error are Unix
/// socket pairs, and holds the non-blocking I/O and reaping steps `HelperProcess` builds on.
///
/// Every descriptor is close-on-exec and the parent's other inheritable descriptors are closed in
/// the child, so nothing leaks into it — in particular no other helper's streams, so each helper
/// sees end of input as soon as its own parent side closes.
struct ChildProcess {
    /// How the child ended.
    enum Termination: Equatable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)
    }

    /// The executable's absolute path.
    var executable: String
    /// Arguments after argv[0].
    var arguments: [String]
    /// The child's complete environment, as `KEY=value` strings.
    var environment: [String]
    /// How much lower the child's priority is than the spawning thread's: added to its nice
    /// value (at most 19) right after it starts; threads it starts later inherit it.
    var niceness: Int32 = 0

    /// Spawns the child on three fresh socket pairs and returns its pid and this side's ends
    /// (non-blocking, close-on-exec) of its standard input, output and error. Throws
    /// `.helperUnavailable` when the child cannot be started.
    func start() throws -> (pid: pid_t, stdin: Int32, stdout: Int32, stderr: Int32) {
        var stdinPair: [Int32] = [-1, -1]
        var stdoutPipe: [Int32] = [-1, -1]
        var stderrPipe: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &stdinPair) == 0, socketpair(AF_UNIX, type, 0, &stdoutPipe) == 0,
            socketpair(AF_UNIX, type, 0, &stderrPipe) == 0
        else {
            let code = errno
            for fd in stdinPair + stdoutPipe + stderrPipe where fd >= 0 { close(fd) }
            throw ExtractionError.helperUnavailable(reason: "socketpair failed: errno \(code)")
        }
        let pid: pid_t
        do {
            pid = try spawn(stdin: stdinPair[1], stdout: stdoutPipe[1], stderr: stderrPipe[1])
        } catch {
            for fd in stdinPair + stdoutPipe + stderrPipe { close(fd) }
            throw error
        }
        close(stdinPair[1])
        close(stdoutPipe[1])
        close(stderrPipe[1])
        for fd in [stdinPair[0], stdoutPipe[0], stderrPipe[0]] {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        return (pid, stdinPair[0], stdoutPipe[0], stderrPipe[0])
    }

    /// Starts the child with the three descriptors as its standard streams.
    private func spawn(stdin: Int32, stdout: Int32, stderr: Int32) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        addStandardStreams(to: &actions, stdin: stdin, stdout: stdout, stderr: stderr)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var emptyMask = sigset_t()
        sigemptyset(&emptyMask)
        var defaults = sigset_t()
        sigfillset(&defaults)
        posix_spawnattr_setsigmask(&attributes, &emptyMask)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid: pid_t = 0
        var code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        if code == EBADF {
            // Another thread closed a listed descriptor before the spawn: list again, once.
            posix_spawn_file_actions_destroy(&actions)
            posix_spawn_file_actions_init(&actions)
            addStandardStreams(to: &actions, stdin: stdin, stdout: stdout, stderr: stderr)
            code = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        }
        guard code == 0 else {
            throw ExtractionError.helperUnavailable(
                reason: "cannot start \(executable): \(String(cString: strerror(code)))")
        }
        // Only a child that already exited (ESRCH) cannot be reniced; its end shows on its first
        // request. The nice value only orders CPU time, so nothing else depends on it.
        if niceness > 0 {
            errno = 0
            let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)  // -1 is a value too
            let target = min(19, (errno == 0 ? current : 0) + niceness)
            if setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid), target) != 0 {
                assert(errno == ESRCH, "setpriority: \(String(cString: strerror(errno)))")
            }
        }
        return pid
    }

    /// Makes the three descriptors the child's standard streams and closes every other descriptor
    /// the child would inherit.
    private func addStandardStreams(
        to actions: inout posix_spawn_file_actions_t, stdin: Int32, stdout: Int32, stderr: Int32
    ) {
        posix_spawn_file_actions_adddup2(&actions, stdin, 0)
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_adddup2(&actions, stderr, 2)
        for fd in Self.inheritableDescriptors() where ![stdin, stdout, stderr].contains(fd) {
            posix_spawn_file_actions_addclose(&actions, fd)
        }
    }

    /// This process's open descriptors above 2 that lack close-on-exec.
    private static func inheritableDescriptors() -> [Int32] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else { return [] }
        return names.compactMap(Int32.init).filter { fd in
            guard fd > 2 else { return false }
            let flags = fcntl(fd, F_GETFD)
            return flags >= 0 && flags & FD_CLOEXEC == 0
        }
    }

    /// Reads what `fd` has now into `sink` (keeping only the last `keepLast` bytes when set).
    /// Returns false, having closed `fd`, at end of file or on an error.
    static func drain(_ fd: Int32, into sink: inout [UInt8], buffer: inout [UInt8], keepLast: Int?) -> Bool {
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count > 0 {
                sink.append(contentsOf: buffer[0..<count])
                if let keepLast, sink.count > keepLast * 2 { sink.removeFirst(sink.count - keepLast) }
                if count < buffer.count { return true }
                continue
            }
            if count < 0 && (errno == EAGAIN || errno == EINTR) { return true }
            close(fd)
            if let keepLast, sink.count > keepLast { sink.removeFirst(sink.count - keepLast) }
            return false
        }
    }

    /// Waits for the child; kills it if it is still running at the deadline.
    static func reap(_ pid: pid_t, deadline: ContinuousClock.Instant, timedOut: inout Bool) -> Termination {
        var status: Int32 = 0
        var pause: Duration = .microseconds(200)
        while true {
            let result = waitpid(pid, &status, timedOut ? 0 : WNOHANG)
            if result == pid { break }
            if result < 0 {
                if errno == EINTR { continue }
                return .exited(-1)
            }
            if ContinuousClock.now >= deadline {
                timedOut = true
                kill(pid, SIGKILL)
                continue
            }
            usleep(UInt32(pause / .microseconds(1)))
            pause = min(pause * 2, .milliseconds(20))
        }
        if status & 0x7F == 0 { return .exited((status >> 8) & 0xFF) }
        return .signaled(status & 0x7F)
    }
}

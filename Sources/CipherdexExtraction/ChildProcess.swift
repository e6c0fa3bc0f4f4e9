import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Runs one child process with `posix_spawn`, feeding its standard input from memory and collecting
/// its standard output and error, all from one `poll` loop so that neither side can block the
/// other however large the input or output, and under a wall-clock deadline after which the child
/// is killed with SIGKILL.
///
/// The three streams are Unix socket pairs (standard input is written with `MSG_NOSIGNAL`, so a
/// child that dies early never raises SIGPIPE in this process). Every descriptor is close-on-exec
/// and the parent's other inheritable descriptors are closed in the child, so nothing leaks into it.
struct ChildProcess {
    /// How the child ended.
    enum Termination: Equatable {
        /// It exited with this status.
        case exited(Int32)
        /// A signal ended it.
        case signaled(Int32)
    }

    /// Everything observed about one run.
    struct Outcome {
        /// All of standard output (up to the output limit).
        var output: [UInt8] = []
        /// The last bytes of standard error.
        var errorTail: [UInt8] = []
        /// How the child ended.
        var termination: Termination = .exited(0)
        /// Whether the deadline passed and the child was killed.
        var timedOut = false
        /// Whether the child wrote more than the output limit and was killed.
        var outputLimitExceeded = false
        /// Wall-clock time from spawn to reaping.
        var elapsed: Duration = .zero
    }

    /// The executable's absolute path.
    var executable: String
    /// Arguments after argv[0].
    var arguments: [String]
    /// The child's complete environment, as `KEY=value` strings.
    var environment: [String]
    /// Seconds after which the child is killed.
    var timeout: Double
    /// Bytes of standard output after which the child is killed.
    var maximumOutput: Int
    /// Bytes of standard error kept (the last ones).
    var errorTailLimit = 64 * 1024

    /// Spawns the child, writes `input` to it, collects its output and reaps it.
    /// Throws `.helperUnavailable` when the child cannot be started.
    func run(input: [UInt8]) throws -> Outcome {
        var stdinPair: [Int32] = [-1, -1]
        var stdoutPipe: [Int32] = [-1, -1]
        var stderrPipe: [Int32] = [-1, -1]
        let type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        guard socketpair(AF_UNIX, type, 0, &stdinPair) == 0, socketpair(AF_UNIX, type, 0, &stdoutPipe) == 0,
              socketpair(AF_UNIX, type, 0, &stderrPipe) == 0 else {
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
        let start = ContinuousClock.now
        close(stdinPair[1])
        close(stdoutPipe[1])
        close(stderrPipe[1])
        for fd in [stdinPair[0], stdoutPipe[0], stderrPipe[0]] {
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        let deadline = start + .nanoseconds(Int64(max(timeout, 0) * 1_000_000_000))
        var outcome = pump(input: input, stdin: stdinPair[0], stdout: stdoutPipe[0], stderr: stderrPipe[0], deadline: deadline)
        if outcome.timedOut || outcome.outputLimitExceeded {
            kill(pid, SIGKILL)
        }
        outcome.termination = reap(pid, deadline: deadline, timedOut: &outcome.timedOut)
        outcome.elapsed = ContinuousClock.now - start
        return outcome
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
            throw ExtractionError.helperUnavailable(reason: "cannot start \(executable): \(String(cString: strerror(code)))")
        }
        return pid
    }

    /// Makes the three descriptors the child's standard streams and closes every other descriptor
    /// the child would inherit.
    private func addStandardStreams(to actions: inout posix_spawn_file_actions_t, stdin: Int32, stdout: Int32, stderr: Int32) {
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

    /// Moves bytes until the child closes its output and error, the deadline passes, or the
    /// output limit is reached. Closes all three descriptors.
    private func pump(input: [UInt8], stdin: Int32, stdout: Int32, stderr: Int32, deadline: ContinuousClock.Instant) -> Outcome {
        var outcome = Outcome()
        var inputOffset = 0
        var stdinOpen = true, stdoutOpen = true, stderrOpen = true
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        if input.isEmpty { close(stdin); stdinOpen = false }
        defer {
            if stdinOpen { close(stdin) }
            if stdoutOpen { close(stdout) }
            if stderrOpen { close(stderr) }
        }
        while stdoutOpen || stderrOpen {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { outcome.timedOut = true; break }
            let milliseconds = Int32(min(remaining / .milliseconds(1) + 1, 60_000))
            var fds: [pollfd] = []
            if stdinOpen { fds.append(pollfd(fd: stdin, events: Int16(POLLOUT), revents: 0)) }
            if stdoutOpen { fds.append(pollfd(fd: stdout, events: Int16(POLLIN), revents: 0)) }
            if stderrOpen { fds.append(pollfd(fd: stderr, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), milliseconds)
            if ready < 0 && errno != EINTR { outcome.timedOut = true; break }
            guard ready > 0 else { continue }
            for entry in fds where entry.revents != 0 {
                if entry.fd == stdin {
                    let written = input.withUnsafeBytes { bytes in
                        send(stdin, bytes.baseAddress! + inputOffset, min(bytes.count - inputOffset, 1 << 20), Int32(MSG_NOSIGNAL))
                    }
                    if written > 0 { inputOffset += written }
                    if inputOffset == input.count || (written < 0 && errno != EAGAIN && errno != EINTR) {
                        close(stdin)
                        stdinOpen = false
                    }
                } else if entry.fd == stdout {
                    stdoutOpen = drain(stdout, into: &outcome.output, buffer: &buffer, keepLast: nil)
                    if outcome.output.count > maximumOutput { outcome.outputLimitExceeded = true }
                } else if entry.fd == stderr {
                    stderrOpen = drain(stderr, into: &outcome.errorTail, buffer: &buffer, keepLast: errorTailLimit)
                }
            }
            if outcome.outputLimitExceeded { break }
        }
        return outcome
    }

    /// Reads what `fd` has now into `sink` (keeping only the last `keepLast` bytes when set).
    /// Returns false, having closed `fd`, at end of file or on an error.
    private func drain(_ fd: Int32, into sink: inout [UInt8], buffer: inout [UInt8], keepLast: Int?) -> Bool {
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
    private func reap(_ pid: pid_t, deadline: ContinuousClock.Instant, timedOut: inout Bool) -> Termination {
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

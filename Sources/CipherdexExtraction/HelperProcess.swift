import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One running `cipherdex-extract` helper that serves requests one at a time over its standard
/// streams (Unix socket pairs, see `ChildProcess`), used by one thread at a time (an
/// `IsolatedExtractorPool` hands it out).
///
/// `exchange` writes a request and reads the answer frame by frame from one `poll` loop (so
/// neither side can block the other however large the input or output), under a wall-clock
/// deadline. Input is sent with `MSG_NOSIGNAL`, so a helper that dies early never raises SIGPIPE
/// in this process. Any outcome but a well-formed
/// answer leaves the helper dead and reaped: it is killed (SIGKILL) at the deadline, when its
/// answer is malformed or too large, and otherwise waited for after it closed its output.
final class HelperProcess: @unchecked Sendable {
    /// How one request ended.
    enum Exchange {
        /// A well-formed answer. `clean` is false when the helper misbehaved around it (bytes
        /// after the answer, or an answer before the whole request was read): then it must not
        /// be reused.
        case answer(Result<ExtractedDocument, ExtractionError>, clean: Bool)
        /// The deadline passed; the helper was killed.
        case timedOut
        /// The answer announced or sent more than the output limit; the helper was killed.
        case outputLimitExceeded
        /// The answer broke the protocol; the helper was stopped (its termination, nil when it
        /// had to be killed) and the tail of its standard error.
        case malformed(ChildProcess.Termination?, errorTail: [UInt8])
        /// The helper closed its output without a complete answer and ended like this.
        case ended(ChildProcess.Termination, errorTail: [UInt8])
    }

    /// The helper's process ID.
    let pid: pid_t
    /// Requests sent to it so far.
    private(set) var requestCount = 0
    /// This side of its standard input, output and error (-1 once closed).
    private var stdin: Int32, stdout: Int32, stderr: Int32
    /// Whether it was reaped.
    private var reaped = false
    /// The bytes of standard error kept for one request (the last ones).
    private let errorTailLimit = 64 * 1024

    /// Spawns a helper with `process`'s executable, arguments and environment.
    init(_ process: ChildProcess) throws {
        (pid, stdin, stdout, stderr) = try process.start()
    }

    deinit { terminate() }

    /// Sends one request and reads its answer, all before `deadline`.
    func exchange(_ request: HelperProtocol.Request, deadline: ContinuousClock.Instant, maximumOutput: Int) -> Exchange {
        requestCount += 1
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var errorTail: [UInt8] = []
        if requestCount > 1, stderr >= 0 {
            // Drop what the previous request left behind (a fresh helper's is all this request's).
            if !ChildProcess.drain(stderr, into: &errorTail, buffer: &buffer, keepLast: errorTailLimit) { stderr = -1 }
            errorTail = []
        }
        var reader = HelperProtocol.AnswerReader(maximumLength: maximumOutput)
        var offset = 0
        var sending = true
        while true {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { terminate(); return .timedOut }
            var fds: [pollfd] = [pollfd(fd: stdout, events: Int16(POLLIN), revents: 0)]
            if sending { fds.append(pollfd(fd: stdin, events: Int16(POLLOUT), revents: 0)) }
            if stderr >= 0 { fds.append(pollfd(fd: stderr, events: Int16(POLLIN), revents: 0)) }
            let ready = poll(&fds, nfds_t(fds.count), Int32(min(remaining / .milliseconds(1) + 1, 60_000)))
            if ready < 0 && errno != EINTR { terminate(); return .timedOut }
            guard ready > 0 else { continue }
            for entry in fds where entry.revents != 0 && entry.fd == stdin {
                let written = request.withBytes(from: offset, maximumLength: 1 << 20) { bytes in
                    send(stdin, bytes.baseAddress!, bytes.count, Int32(MSG_NOSIGNAL))
                }
                if written > 0 { offset += written }
                // A helper that stopped reading has died or is dying: its output tells.
                if offset == request.count || (written < 0 && errno != EAGAIN && errno != EINTR) { sending = false }
            }
            for entry in fds where entry.revents != 0 && entry.fd == stderr {
                if !ChildProcess.drain(stderr, into: &errorTail, buffer: &buffer, keepLast: errorTailLimit) { stderr = -1 }
            }
            for entry in fds where entry.revents != 0 && entry.fd == stdout {
                var output: [UInt8] = []
                let open = ChildProcess.drain(stdout, into: &output, buffer: &buffer, keepLast: nil)
                if !open { stdout = -1 }
                switch reader.append(output) {
                case .complete(let answer, let trailingBytes):
                    return .answer(answer, clean: trailingBytes == 0 && offset == request.count && open)
                case .tooLarge:
                    terminate()
                    return .outputLimitExceeded
                case .malformed:
                    // A helper exits at end of input: give it a moment to, for its exit status.
                    closeInput()
                    let grace = min(deadline, .now + .milliseconds(250))
                    let tail = finish(errorTail, deadline: grace)
                    return .malformed(stop(until: grace), errorTail: tail)
                case .incomplete:
                    guard open else {
                        let tail = finish(errorTail, deadline: deadline)
                        guard let termination = stop(until: deadline) else { return .timedOut }
                        return .ended(termination, errorTail: tail)
                    }
                }
            }
        }
    }

    /// Whether it can take another request: still running, with nothing unasked for on its
    /// output (data or end of file).
    var isIdle: Bool {
        guard !reaped, stdin >= 0, stdout >= 0 else { return false }
        var status: Int32 = 0
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid { reaped = true; return false }
        var fd = pollfd(fd: stdout, events: Int16(POLLIN), revents: 0)
        return poll(&fd, 1, 0) == 0
    }

    /// Its address space and resident set, in bytes (from `/proc/<pid>/statm`).
    func memoryUsage() -> (addressSpace: Int, resident: Int)? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ").prefix(2).compactMap { Int($0) }
        guard fields.count == 2 else { return nil }
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        return (fields[0] * page, fields[1] * page)
    }

    /// Closes its streams, kills it and reaps it. Safe to call more than once.
    func terminate() {
        closeStreams()
        guard !reaped else { return }
        Glibc.kill(pid, SIGKILL)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        reaped = true
    }

    /// Closes this side of the three streams.
    private func closeStreams() {
        for fd in [stdin, stdout, stderr] where fd >= 0 { close(fd) }
        (stdin, stdout, stderr) = (-1, -1, -1)
    }

    /// Closes this side of its standard input.
    private func closeInput() {
        if stdin >= 0 { close(stdin) }
        stdin = -1
    }

    /// Reads the rest of standard error until it closes or `deadline`, after `tail`.
    private func finish(_ tail: [UInt8], deadline: ContinuousClock.Instant) -> [UInt8] {
        var tail = tail
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while stderr >= 0 {
            let remaining = deadline - ContinuousClock.now
            guard remaining > .zero else { break }
            var fd = pollfd(fd: stderr, events: Int16(POLLIN), revents: 0)
            let ready = poll(&fd, 1, Int32(min(remaining / .milliseconds(1) + 1, 60_000)))
            if ready < 0 && errno != EINTR { break }
            if ready > 0, !ChildProcess.drain(stderr, into: &tail, buffer: &buffer, keepLast: errorTailLimit) { stderr = -1 }
        }
        return tail
    }

    /// Closes its input (a helper exits at end of input) and waits for it until `deadline`;
    /// returns how it ended, or nil when it had to be killed.
    private func stop(until deadline: ContinuousClock.Instant) -> ChildProcess.Termination? {
        closeStreams()
        guard !reaped else { return nil }
        var timedOut = false
        let termination = ChildProcess.reap(pid, deadline: deadline, timedOut: &timedOut)
        reaped = true
        return timedOut ? nil : termination
    }
}

import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// One run of the child: started with `posix_spawn`, its standard output read line by line from
/// a pipe until it dies, killed with SIGKILL at a deadline (random kills) or by strace at the
/// Nth matching system call (deterministic kills), and reaped.
struct ChildRun {
    /// How the child dies.
    enum Kill: Sendable {
        /// It runs to the end (calibration).
        case none
        /// SIGKILL from the parent after this many seconds.
        case after(seconds: Double)
        /// strace delivers SIGKILL on the Nth call (per thread) of one of `syscalls`.
        case atCall(syscalls: String, number: Int)
        /// strace counts `syscalls` into `countFile` and the child runs to the end.
        case countCalls(syscalls: String, countFile: String)
    }

    /// Every line the child wrote.
    var lines: [String] = []
    /// Exit status, or 128 + signal.
    var status: Int32 = 0
    /// Wall-clock seconds from spawn to reaping.
    var seconds = 0.0
    /// Whether the child got past its last step (`done`).
    var finished: Bool { lines.last == "done" }
    /// Whether the run was cut short by the safety deadline (a hang).
    var hung = false
    /// Seconds from spawn to the first `begin` line (the end of the child's start and open).
    var firstBegin: Double?

    /// Runs the harness binary as `child OPERATION TRIAL FIXTURES`.
    static func start(
        operation: CrashOperation, trial: TrialLayout, fixtures: Fixtures, kill: Kill, hangLimit: Double = 300
    ) throws -> ChildRun {
        var arguments = [selfPath, "child", operation.rawValue, trial.directory, fixtures.directory]
        switch kill {
        case .none, .after: break
        case .atCall(let syscalls, let number):
            arguments =
                [
                    "strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=\(syscalls)",
                    "-e", "inject=\(syscalls):signal=SIGKILL:when=\(number)",
                ] + arguments
        case .countCalls(let syscalls, let countFile):
            arguments = ["strace", "-f", "-qq", "-o", countFile, "-e", "trace=\(syscalls)"] + arguments
        }
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw HarnessError.spawn("pipe: errno \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addclose(&actions, pipeEnds[1])
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        let argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = Date()
        let code = posix_spawnp(&pid, arguments[0], &actions, nil, argv, environ)
        close(pipeEnds[1])
        guard code == 0 else {
            close(pipeEnds[0])
            throw HarnessError.spawn("\(arguments[0]): error \(code)")
        }
        var run = ChildRun()
        var deadline = start.addingTimeInterval(hangLimit)
        var killAtDeadline = false
        if case .after(let seconds) = kill {
            deadline = start.addingTimeInterval(seconds)
            killAtDeadline = true
        }
        var pending = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 4096)
        var killed = false
        while true {
            let remaining = killed ? -1 : max(0, Int32(deadline.timeIntervalSinceNow * 1000))
            var poller = pollfd(fd: pipeEnds[0], events: Int16(POLLIN), revents: 0)
            let ready = poll(&poller, 1, remaining)
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 && !killed {
                _ = Glibc.kill(pid, SIGKILL)
                killed = true
                if !killAtDeadline { run.hung = true }
                continue
            }
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            pending += buffer[0..<count]
            while let newline = pending.firstIndex(of: 10) {
                run.lines.append(String(decoding: pending[..<newline], as: UTF8.self))
                if run.firstBegin == nil && run.lines.last?.hasPrefix("begin") == true {
                    run.firstBegin = Date().timeIntervalSince(start)
                }
                pending.removeSubrange(...newline)
            }
        }
        close(pipeEnds[0])
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        run.status = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        run.seconds = Date().timeIntervalSince(start)
        return run
    }

    /// This executable's path.
    static let selfPath: String = {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }()
}

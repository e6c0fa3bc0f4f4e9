import Foundation

/// The parent: for each operation builds the template store, calibrates the child (run time,
/// number of fsyncs and writes), then runs the trials — copy the template, start the child, kill
/// it, check the store — and prints a table. Failed trials' folders are kept for inspection.
struct HarnessRunner {
    /// The options.
    let options: HarnessOptions

    /// One operation's figures.
    struct Tally {
        var trials = 0
        var midOperation = 0
        var failures = 0
        var seconds = 0.0
        var calibration = ""
    }

    /// Runs everything; returns whether every trial passed.
    func run() throws -> Bool {
        let work = options.work ?? NSTemporaryDirectory() + "cipherdex-crash-\(getpid())"
        let manager = FileManager.default
        try? manager.removeItem(atPath: work)
        try manager.createDirectory(atPath: work, withIntermediateDirectories: true)
        let keep = options.keepFailures ?? work + "/failures"
        let fixtures = Fixtures(directory: work + "/fixtures")
        try fixtures.write()
        var random = SplitMix(seed: options.seed)
        var tallies: [(CrashOperation, Tally)] = []
        for operation in options.operations {
            let tally = try runOperation(operation, work: work, keep: keep, fixtures: fixtures, random: &random)
            tallies.append((operation, tally))
        }
        say("")
        say("operation        trials  mid-op  failures  seconds  calibration")
        for (operation, tally) in tallies {
            say(
                operation.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)
                    + String(
                        format: " %6d  %6d  %8d  %7.1f  ", tally.trials, tally.midOperation, tally.failures,
                        tally.seconds)
                    + tally.calibration)
        }
        let failed = tallies.contains { $0.1.failures > 0 }
        if failed {
            say("failed trials kept in \(keep)")
        } else if options.work == nil {
            try? manager.removeItem(atPath: work)
        }
        return !failed
    }

    private func runOperation(
        _ operation: CrashOperation, work: String, keep: String, fixtures: Fixtures, random: inout SplitMix
    ) throws -> Tally {
        let started = Date()
        let template = TrialLayout(directory: work + "/templates/" + operation.rawValue)
        try TemplateBuilder(fixtures: fixtures).build(operation, in: template)
        // Calibration: a full run, and one per strace mode counting its calls.
        let calibrationTrial = TrialLayout(directory: work + "/calibration")
        try prepare(calibrationTrial, from: template)
        let full = try ChildRun.start(operation: operation, trial: calibrationTrial, fixtures: fixtures, kill: .none)
        guard full.finished else {
            throw HarnessError.setup("\(operation.rawValue): the uninterrupted child failed (status \(full.status))")
        }
        var counts: [HarnessOptions.KillMode: Int] = [:]
        for mode in options.modes {
            guard let syscalls = mode.syscalls else { continue }
            try prepare(calibrationTrial, from: template)
            let countFile = work + "/calls"
            let counted = try ChildRun.start(
                operation: operation, trial: calibrationTrial, fixtures: fixtures,
                kill: .countCalls(syscalls: syscalls, countFile: countFile))
            guard counted.finished else { throw HarnessError.setup("\(operation.rawValue): the traced child failed") }
            let text = (try? String(contentsOfFile: countFile, encoding: .utf8)) ?? ""
            counts[mode] = max(1, text.split(separator: "\n").filter { !$0.contains("resumed>") }.count)
        }
        var tally = Tally()
        tally.calibration =
            String(format: "%.2f s", full.seconds)
            + counts.sorted { $0.key.rawValue < $1.key.rawValue }.map { " \($0.value) \($0.key.rawValue)" }.joined()
        let perMode = max(1, options.trials / options.modes.count)
        for trialNumber in 0..<options.trials {
            let mode = options.modes[trialNumber % options.modes.count]
            let index = trialNumber / options.modes.count
            let kill: ChildRun.Kill
            if let syscalls = mode.syscalls, let count = counts[mode] {
                let number = perMode >= count ? 1 + index % count : 1 + index * count / perMode
                kill = .atCall(syscalls: syscalls, number: number)
            } else {
                // One kill in five anywhere (the child's start and open included), the others
                // while the writes run.
                let writesStart = trialNumber % 5 == 0 ? 0 : (full.firstBegin ?? 0)
                kill = .after(seconds: writesStart + random.nextDouble() * (full.seconds * 1.05 - writesStart))
            }
            let trial = TrialLayout(directory: work + "/trial")
            try prepare(trial, from: template)
            let run = try ChildRun.start(operation: operation, trial: trial, fixtures: fixtures, kill: kill)
            let log = AckLog(lines: run.lines)
            var problems: [String] = []
            if run.hung { problems.append("the child hung (killed after the safety deadline)") }
            if !run.finished && run.status != 128 + SIGKILL && run.status != SIGKILL {
                problems.append("the child stopped with status \(run.status) without being killed")
            }
            if !log.finished && (log.acknowledged > 0 || log.inFlight != nil) { tally.midOperation += 1 }
            problems += TrialChecker(operation: operation, trial: trial, fixtures: fixtures, log: log).check()
            tally.trials += 1
            if !problems.isEmpty {
                tally.failures += 1
                let kept = keep + "/\(operation.rawValue)-\(trialNumber)-\(mode.rawValue)"
                try? FileManager.default.createDirectory(atPath: keep, withIntermediateDirectories: true)
                try? FileManager.default.removeItem(atPath: kept)
                try? FileManager.default.moveItem(atPath: trial.directory, toPath: kept)
                say(
                    "FAIL \(operation.rawValue) trial \(trialNumber) (\(mode.rawValue) \(kill)), "
                        + "acknowledged \(log.acknowledged), in flight \(log.inFlight.map(String.init) ?? "none"), kept in \(kept):"
                )
                for problem in problems { say("  - \(problem)") }
            }
        }
        tally.seconds = Date().timeIntervalSince(started)
        say(
            String(
                format: "%@: %d trials, %d mid-operation, %d failures, %.1f s",
                operation.rawValue, tally.trials, tally.midOperation, tally.failures, tally.seconds))
        return tally
    }

    /// Replaces `trial`'s folder with a copy of `template`'s.
    private func prepare(_ trial: TrialLayout, from template: TrialLayout) throws {
        let manager = FileManager.default
        try? manager.removeItem(atPath: trial.directory)
        try manager.copyItem(atPath: template.directory, toPath: trial.directory)
    }
}

/// A small deterministic generator (SplitMix64) for kill instants.
struct SplitMix {
    private var state: UInt64

    /// A generator seeded with `seed`.
    init(seed: UInt64) { state = seed }

    /// The next value in [0, 1).
    mutating func nextDouble() -> Double {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return Double((z ^ (z >> 31)) >> 11) / Double(1 << 53)
    }
}

/// Writes one line to standard output at once (unbuffered, so progress shows through a pipe).
func say(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

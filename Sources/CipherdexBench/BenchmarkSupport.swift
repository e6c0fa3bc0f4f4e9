import Foundation

/// Timing and reporting helpers shared by the benchmark suites.
enum Bench {
    /// Monotonic seconds.
    static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// Seconds `body` takes.
    static func time(_ body: () throws -> Void) rethrows -> Double {
        let start = now()
        try body()
        return now() - start
    }

    /// The `p`-th percentile (0...100) of `samples`.
    static func percentile(_ samples: [Double], _ p: Double) -> Double {
        guard !samples.isEmpty else { return .nan }
        let sorted = samples.sorted()
        let rank = Int((p / 100 * Double(sorted.count - 1)).rounded())
        return sorted[min(max(rank, 0), sorted.count - 1)]
    }

    /// The median of `samples`.
    static func median(_ samples: [Double]) -> Double { percentile(samples, 50) }

    /// A fresh scratch directory under `base` (default: the system temporary folder).
    static func scratchDirectory(_ label: String) -> String {
        let base = ProcessInfo.processInfo.environment["CIPHERDEX_BENCH_DIR"] ?? NSTemporaryDirectory()
        let path = base + "/cipherdex-bench-\(label)-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    /// Formats seconds as milliseconds.
    static func ms(_ seconds: Double) -> String { String(format: "%.2f ms", seconds * 1000) }

    /// Formats a ratio.
    static func ratio(_ value: Double) -> String { String(format: "%.2fx", value) }

    /// CPU seconds (user + system) of this process and of its children that were waited for.
    static func cpuSeconds() -> Double {
        func seconds(_ who: __rusage_who) -> Double {
            var usage = rusage()
            getrusage(__rusage_who_t(who.rawValue), &usage)
            return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
                + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        }
        return seconds(RUSAGE_SELF) + seconds(RUSAGE_CHILDREN)
    }

    /// Peak resident set size of this process so far, in bytes (VmHWM).
    static func peakRSS() -> UInt64 {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
            let digits = line.split(separator: " ").dropFirst().first.flatMap { UInt64($0) } ?? 0
            return digits * 1024
        }
        return 0
    }
}

/// A markdown table printed at the end of a suite.
struct ResultTable {
    let title: String
    let columns: [String]
    var rows: [[String]] = []

    /// Adds a row.
    mutating func add(_ row: [String]) { rows.append(row) }

    /// The table as markdown.
    var markdown: String {
        var text = "### \(title)\n\n| " + columns.joined(separator: " | ") + " |\n|"
        text += String(repeating: " --- |", count: columns.count) + "\n"
        for row in rows { text += "| " + row.joined(separator: " | ") + " |\n" }
        return text
    }
}

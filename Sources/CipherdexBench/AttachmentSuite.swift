import Foundation

/// Issues 3 and 16: attachment write and read throughput on one file beside `age` (encrypt,
/// decrypt) and a plain copy, all as child processes on the same disk in the same run, each
/// output made durable (`sync FILE`; `cipherdex attach` fsyncs by itself), with peak RSS and the
/// user/system CPU split of every run.
///
/// Every round gets fresh content (a new seed), and every timed command is preceded by an
/// untimed `sync`, so no earlier write-back is charged to it. The two writers and the two readers
/// swap places every round (which of them runs first decides who gets the memory the other just
/// freed), and both readers start cold: the bench drops `out.age` and the attachment file from
/// the page cache first (`dd iflag=nocache count=0`), since `cipherdex attach` no longer leaves
/// its file cached. `--mib=N` and `--rounds=N` change the size (default 1024, quick 256) and the
/// number of rounds (default 10, quick 2).
enum AttachmentSuite {
    /// The timed operations, in report order.
    static let operations = [
        "cipherdex write (attach)", "age encrypt", "cipherdex read (cat)", "age decrypt", "plain copy (cp)",
    ]

    static func run(quick: Bool) throws -> String {
        func option(_ name: String) -> Int? {
            CommandLine.arguments.first { $0.hasPrefix(name) }.flatMap { Int($0.dropFirst(name.count)) }
        }
        let size = (option("--mib=") ?? (quick ? 256 : 1024)) << 20
        let rounds = max(1, option("--rounds=") ?? (quick ? 2 : 10))
        let directory = Bench.scratchDirectory("attachments")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = directory + "/input.bin"
        let cipherdex = Bench.sibling("cipherdex")
        guard ChildProcess.available("age"), ChildProcess.available("age-keygen") else {
            return "### Attachments\n\n`age` is not installed (run `scripts/bootstrap --bench`); skipped.\n"
        }
        _ = try ChildProcess.run([cipherdex, "keygen", "--out", directory + "/key"])
        _ = try ChildProcess.run([cipherdex, "create", directory + "/store", "--key-file", directory + "/key"])
        _ = try ChildProcess.run(["age-keygen", "-o", directory + "/age.key"])
        let recipient = try String(contentsOfFile: directory + "/age.key", encoding: .utf8)
            .split(separator: "\n").first { $0.hasPrefix("# public key: ") }!.dropFirst("# public key: ".count)

        func shell(_ command: String, stdout: String? = nil) throws -> ChildProcess.Measurement {
            let measurement = try ChildProcess.run(
                ["/bin/sh", "-c", "cd '\(directory)' && " + command], stdoutPath: stdout)
            guard measurement.status == 0 else { throw BenchError.failed(command) }
            return measurement
        }
        var samples: [String: [ChildProcess.Measurement]] = [:]
        func timed(_ name: String, _ command: String, stdout: String? = nil) throws {
            _ = try shell("sync")
            samples[name, default: []].append(try shell(command, stdout: stdout))
        }
        var perRound = ResultTable(
            title:
                "Attachments, every round: \(size >> 20) MiB of fresh random bytes per round; wall s (user s / system s)",
            columns: ["round", "first"] + operations)
        for round in 0..<rounds {
            try writeRandomFile(input, size: size, seed: 0x5EED_0000 + UInt64(round))
            let ourFirst = round % 2 == 0
            var attachmentID = ""
            let attach = {
                try timed(
                    "cipherdex write (attach)", "'\(cipherdex)' attach store input.bin --key-file key",
                    stdout: directory + "/id.txt")
                attachmentID = try String(contentsOfFile: directory + "/id.txt", encoding: .utf8)
                    .trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let encrypt = { try timed("age encrypt", "age -r \(recipient) -o out.age input.bin && sync out.age") }
            if ourFirst {
                try attach()
                try encrypt()
            } else {
                try encrypt()
                try attach()
            }
            // Both readers start from storage, not from the page cache.
            _ = try shell(
                "dd if=out.age iflag=nocache count=0 status=none && dd if=store/attachments/\(attachmentID) "
                    + "iflag=nocache count=0 status=none")
            let cat = {
                try timed(
                    "cipherdex read (cat)",
                    "'\(cipherdex)' cat store \(attachmentID) --key-file key > out.bin && sync out.bin")
            }
            let decrypt = { try timed("age decrypt", "age -d -i age.key -o out.dec out.age && sync out.dec") }
            if ourFirst {
                try cat()
                try decrypt()
            } else {
                try decrypt()
                try cat()
            }
            try timed("plain copy (cp)", "cp input.bin out.copy && sync out.copy")
            // Untimed: detach, so the next round stores new content (rename, row and all).
            _ = try shell("'\(cipherdex)' detach store \(attachmentID) --key-file key")
            for name in ["out.bin", "out.age", "out.dec", "out.copy"] {
                try? FileManager.default.removeItem(atPath: directory + "/" + name)
            }
            perRound.add(
                ["\(round + 1)", ourFirst ? "cipherdex" : "age"]
                    + operations.map { name in
                        let run = samples[name]!.last!
                        return String(format: "%.2f (%.2f / %.2f)", run.seconds, run.userSeconds, run.systemSeconds)
                    })
        }
        return perRound.markdown + "\n" + summary(samples, size: size, rounds: rounds)
    }

    /// The median and slowest round of each operation, and the issue 16 ratios.
    private static func summary(_ samples: [String: [ChildProcess.Measurement]], size: Int, rounds: Int) -> String {
        var table = ResultTable(
            title: "Attachments: one \(size >> 20) MiB file of random bytes, \(rounds) alternating rounds",
            columns: [
                "operation", "median", "slowest", "median throughput", "median user", "median system", "peak RSS",
            ])
        func median(_ name: String, _ value: (ChildProcess.Measurement) -> Double) -> Double {
            Bench.median(samples[name]!.map(value))
        }
        func slowest(_ name: String) -> Double { samples[name]!.map(\.seconds).max()! }
        for name in operations {
            let rss = samples[name]!.map(\.peakRSS).max() ?? 0
            table.add([
                name, Bench.ms(median(name, \.seconds)), Bench.ms(slowest(name)),
                String(format: "%.0f MB/s", Double(size) / median(name, \.seconds) / 1e6),
                String(format: "%.2f s", median(name, \.userSeconds)),
                String(format: "%.2f s", median(name, \.systemSeconds)),
                String(format: "%.1f MiB", Double(rss) / 1_048_576),
            ])
        }
        func ratios(_ ours: String, _ peer: String) -> String {
            String(
                format: "throughput %.2fx median, %.2fx slowest round (target ≥ 1.2); system time %.2fx (target ≤ 1.5)",
                median(peer, \.seconds) / median(ours, \.seconds), slowest(peer) / slowest(ours),
                median(ours, \.systemSeconds) / max(median(peer, \.systemSeconds), 0.001))
        }
        let copy = median("plain copy (cp)", \.seconds)
        return table.markdown
            + """

            same run: write / age encrypt: \(ratios("cipherdex write (attach)", "age encrypt"))
            read / age decrypt: \(ratios("cipherdex read (cat)", "age decrypt"))
            write / copy \(Bench.ratio(copy / median("cipherdex write (attach)", \.seconds))), \
            read / copy \(Bench.ratio(copy / median("cipherdex read (cat)", \.seconds))) (target ≥ 0.5)

            per round (`sync` before each timed command, fresh input each round; the pairs swap order \
            every round): `cipherdex attach store input.bin --key-file key` and `age -r RECIPIENT -o out.age \
            input.bin && sync out.age`; both inputs dropped from the page cache; `cipherdex cat store ID > \
            out.bin && sync out.bin` and `age -d -i age.key -o out.dec out.age && sync out.dec`; `cp input.bin \
            out.copy && sync out.copy`; then an untimed `detach`. Peak RSS from GNU time, CPU from `wait4`

            """
    }

    /// Writes `size` pseudo-random bytes (SplitMix64, so every run has the same file).
    static func writeRandomFile(_ path: String, size: Int, seed: UInt64 = 7) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = FileHandle(forWritingAtPath: path)!
        defer { try? handle.close() }
        var generator = SplitMix(seed: seed)
        var block = [UInt64](repeating: 0, count: 1 << 17)
        var written = 0
        while written < size {
            for index in block.indices { block[index] = generator.next() }
            let data = block.withUnsafeBytes { Data($0.prefix(min($0.count, size - written))) }
            handle.write(data)
            written += data.count
        }
    }
}

/// A benchmark step that could not run.
enum BenchError: Error, CustomStringConvertible {
    case failed(String)

    var description: String {
        switch self {
        case .failed(let command): return "command failed: \(command)"
        }
    }
}

extension Bench {
    /// Path of another executable built beside this one.
    static func sibling(_ name: String) -> String {
        let me = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return me.deletingLastPathComponent().appendingPathComponent(name).path
    }
}

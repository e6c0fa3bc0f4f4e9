import Foundation

/// Issue 3's suite: attachment write and read throughput on one file beside `age` (encrypt,
/// decrypt) and a plain copy, all as child processes on the same disk in the same run, each
/// output made durable (`sync FILE`; `cipherdex attach` fsyncs by itself), with peak RSS.
enum AttachmentSuite {
    static func run(quick: Bool) throws -> String {
        let size = quick ? 256 << 20 : 1 << 30
        let rounds = quick ? 2 : 5
        let directory = Bench.scratchDirectory("attachments")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let input = directory + "/input.bin"
        try writeRandomFile(input, size: size)
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
        var attachmentID = ""
        for _ in 0..<rounds {
            let attach = try shell(
                "'\(cipherdex)' attach store input.bin --key-file key", stdout: directory + "/id.txt")
            attachmentID = try String(contentsOfFile: directory + "/id.txt", encoding: .utf8).trimmingCharacters(
                in: .whitespacesAndNewlines)
            samples["cipherdex write (attach)", default: []].append(attach)
            samples["cipherdex read (cat)", default: []].append(
                try shell("'\(cipherdex)' cat store \(attachmentID) --key-file key > out.bin && sync out.bin"))
            samples["age encrypt", default: []].append(
                try shell("age -r \(recipient) -o out.age input.bin && sync out.age"))
            samples["age decrypt", default: []].append(
                try shell("age -d -i age.key -o out.dec out.age && sync out.dec"))
            samples["plain copy (cp)", default: []].append(try shell("cp input.bin out.copy && sync out.copy"))
            // Untimed: detach, so the next round's attach stores new content (rename, row and
            // all) rather than finding the same content already stored and dropping its copy.
            _ = try shell("'\(cipherdex)' detach store \(attachmentID) --key-file key")
            for name in ["out.bin", "out.age", "out.dec", "out.copy"] {
                try? FileManager.default.removeItem(atPath: directory + "/" + name)
            }
        }
        let order = [
            "cipherdex write (attach)", "cipherdex read (cat)", "age encrypt", "age decrypt", "plain copy (cp)",
        ]
        var table = ResultTable(
            title: "Attachments: one \(size >> 20) MiB file of random bytes, median of \(rounds) alternating rounds",
            columns: ["operation", "time", "throughput", "peak RSS"])
        var throughput: [String: Double] = [:]
        for name in order {
            let measurements = samples[name]!
            let seconds = Bench.median(measurements.map(\.seconds))
            throughput[name] = Double(size) / seconds / 1e6
            let rss = measurements.map(\.peakRSS).max() ?? 0
            table.add([
                name, Bench.ms(seconds), String(format: "%.0f MB/s", throughput[name]!),
                String(format: "%.1f MiB", Double(rss) / 1_048_576),
            ])
        }
        let write = throughput["cipherdex write (attach)"]!
        let read = throughput["cipherdex read (cat)"]!
        let copy = throughput["plain copy (cp)"]!
        return table.markdown
            + String(
                format:
                    "\nsame run: write / age encrypt %.2fx, read / age decrypt %.2fx (target ≥ 1); write / copy %.2fx, read / copy %.2fx (target ≥ 0.5)\n",
                write / throughput["age encrypt"]!, read / throughput["age decrypt"]!, write / copy, read / copy)
                + """

                per round, in this order: `cipherdex attach store input.bin --key-file key` (new content: the \
                previous round's attachment is detached, untimed); `cipherdex cat store ID > out.bin && sync out.bin`; \
                `age -r RECIPIENT -o out.age input.bin && sync out.age`; `age -d -i age.key -o out.dec out.age && \
                sync out.dec`; `cp input.bin out.copy && sync out.copy`; peak RSS from `wait4`

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

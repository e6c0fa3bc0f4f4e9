import Cipherdex
import Foundation
import Synchronization

/// Issue 13's suite: `cipherdex backup` (first, unchanged, after a change), `cipherdex export`
/// and a plain copy of the store's files, each a child process on the same disk; then, in this
/// process, the commit latency of a writer while a backup of the same store runs.
enum BackupSuite {
    static func run(quick: Bool) throws -> String {
        let directory = Bench.scratchDirectory("backup")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/store"
        let cipherdex = Bench.sibling("cipherdex")
        _ = try ChildProcess.run([cipherdex, "keygen", "--out", directory + "/key"])
        let composition = try ConversionSuite.populate(store, directory: directory, quick: quick)
        let storeBytes = try ConversionSuite.bytes(under: store)

        func shell(_ command: String) throws -> ChildProcess.Measurement {
            let measurement = try ChildProcess.run(["/bin/sh", "-c", "cd '\(directory)' && " + command])
            guard measurement.status == 0 else { throw BenchError.failed(command) }
            return measurement
        }
        let copy = try shell("cp -r store copy && sync -f copy && rm -rf copy")
        let first = try shell("'\(cipherdex)' backup store backup --key-file key")
        let unchanged = try shell("'\(cipherdex)' backup store backup --key-file key")
        let changedBytes = try addChange(store, directory: directory, quick: quick)
        let changed = try shell("'\(cipherdex)' backup store backup --key-file key")
        let export = try shell("'\(cipherdex)' export store exported --key-file key --yes && sync -f exported")
        let copyAgain = try shell("cp -r store copy && sync -f copy && rm -rf copy")
        let copySeconds = min(copy.seconds, copyAgain.seconds)

        var table = ResultTable(
            title: "Backup and export: a store of \(storeBytes >> 20) MiB (\(composition))",
            columns: ["operation", "seconds", "MiB/s of the store", "ratio to the copy", "peak RSS"])
        func row(_ name: String, _ measurement: ChildProcess.Measurement) {
            table.add([
                name, String(format: "%.2f", measurement.seconds),
                String(format: "%.0f", Double(storeBytes) / 1_048_576 / measurement.seconds),
                Bench.ratio(measurement.seconds / copySeconds), "\(measurement.peakRSS >> 20) MiB",
            ])
        }
        row("copy (`cp -r` + `sync`, faster of 2)", copy.seconds <= copyAgain.seconds ? copy : copyAgain)
        row("`cipherdex backup`, new destination", first)
        row("`cipherdex backup` again, nothing changed", unchanged)
        row("`cipherdex backup` again, after \(changedBytes >> 20) MiB of new attachments + 100 documents", changed)
        row("`cipherdex export` (plaintext files)", export)
        return table.markdown + "\n" + (try writerLatency(store, directory: directory))
    }

    /// One new attachment and 100 documents; returns the attachment's size.
    private static func addChange(_ store: String, directory: String, quick: Bool) throws -> Int {
        let key = directory + "/key"
        let handle = try Store.open(
            StoreConfiguration(path: store, keyProvider: { try EncryptionKey.raw(contentsOfFile: key) }))
        defer { handle.close() }
        let size = quick ? 8 << 20 : 32 << 20
        let path = directory + "/change.bin"
        try AttachmentSuite.writeRandomFile(path, size: size, seed: 99)
        _ = try handle.addAttachment(fromFile: path)
        try FileManager.default.removeItem(atPath: path)
        try handle.transaction { transaction in
            let notes = try transaction.collection("notes")
            for index in 0..<100 {
                try notes.insert(JSONValue.object(["n": .number(JSONNumber(index))]), id: "new\(index)")
            }
        }
        return size
    }

    /// Commit latency of single-document transactions on their own, then while a backup of the
    /// same open store runs on another thread.
    private static func writerLatency(_ store: String, directory: String) throws -> String {
        let key = directory + "/key"
        let handle = try Store.open(
            StoreConfiguration(path: store, keyProvider: { try EncryptionKey.raw(contentsOfFile: key) }))
        defer { handle.close() }
        let notes = try handle.collection("notes")
        func commits(for seconds: Double, while running: () -> Bool) throws -> [Double] {
            var samples: [Double] = []
            let end = Bench.now() + seconds
            var index = 0
            while Bench.now() < end && running() {
                let started = Bench.now()
                try notes.insert(
                    JSONValue.object(["n": .number(JSONNumber(index))]), id: "w\(samples.count)-\(started)")
                samples.append(Bench.now() - started)
                index += 1
            }
            return samples
        }
        let idle = try commits(for: 3, while: { true })
        let finished = Atomic<Bool>(false)
        let backupSeconds = Mutex<Double>(0)
        let target = directory + "/backup-live"
        let thread = Thread {
            let started = Bench.now()
            _ = try? handle.backup(to: target)
            backupSeconds.withLock { $0 = Bench.now() - started }
            finished.store(true, ordering: .releasing)
        }
        thread.start()
        let during = try commits(for: 600, while: { !finished.load(ordering: .acquiring) })
        while !finished.load(ordering: .acquiring) { usleep(1000) }
        var table = ResultTable(
            title: "A writer during a backup (single-document commits, synchronous = FULL, same process)",
            columns: ["", "commits", "commits/s", "p50", "p99", "max"])
        func row(_ name: String, _ samples: [Double], _ seconds: Double) {
            table.add([
                name, "\(samples.count)", String(format: "%.0f", Double(samples.count) / seconds),
                Bench.ms(Bench.median(samples)), Bench.ms(Bench.percentile(samples, 99)),
                Bench.ms(samples.max() ?? 0),
            ])
        }
        row("no backup (3 s)", idle, 3)
        let seconds = backupSeconds.withLock { $0 }
        row(String(format: "during a backup (%.1f s)", seconds), during, seconds)
        return table.markdown
    }
}

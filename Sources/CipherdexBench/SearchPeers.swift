import Foundation

/// The external tools the search suite compares with, run as child processes on the corpus.
final class SearchPeers {
    let folder: String
    let scratch: String
    let hasRecoll = ChildProcess.available("recollindex") && ChildProcess.available("recollq")
    let hasPdftotext = ChildProcess.available("pdftotext")
    let hasPdfgrep = ChildProcess.available("pdfgrep")
    let workers = ProcessInfo.processInfo.activeProcessorCount
    /// The configuration directory of the last recoll index built.
    private(set) var recollConfig: String?

    init(folder: String, scratch: String) {
        self.folder = folder
        self.scratch = scratch
    }

    /// Seconds for `pdftotext` to extract every PDF of the folder, `workers` at a time.
    func pdftotext(round: Int) throws -> Double {
        let output = scratch + "/pdftotext-\(round)"
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: output) }
        let command = "cd '\(folder)' && ls *.pdf | xargs -P \(workers) -I{} pdftotext -q {} '\(output)'/{}.txt"
        let measurement = try ChildProcess.run(["/bin/sh", "-c", command])
        guard measurement.status == 0 else { throw BenchError.failed(command) }
        return measurement.seconds
    }

    /// Seconds for `recollindex` to index the folder into a fresh configuration directory
    /// (which replaces the previous round's).
    func recollindex(round: Int) throws -> Double { try recollindexMeasured(round: round).seconds }

    /// `recollindex(round:)` with the peak RSS of `recollindex` (GNU time): (seconds, bytes).
    func recollindexMeasured(round: Int) throws -> (seconds: Double, peakRSS: UInt64) {
        let config = scratch + "/recoll-\(round)"
        try FileManager.default.createDirectory(atPath: config, withIntermediateDirectories: true)
        let settings = """
            topdirs = \(folder)
            indexallfilenames = 0
            noaspell = 1
            loglevel = 1
            """
        try (settings + "\n").write(toFile: config + "/recoll.conf", atomically: true, encoding: .utf8)
        let measurement = try ChildProcess.run(["recollindex", "-c", config])
        guard measurement.status == 0 else { throw BenchError.failed("recollindex -c \(config)") }
        if let previous = recollConfig { try? FileManager.default.removeItem(atPath: previous) }
        recollConfig = config
        return (measurement.seconds, measurement.peakRSS)
    }

    /// Uses the recoll index already built in `config` (a configuration directory).
    func reuseRecoll(config: String) {
        recollConfig = config
    }

    /// Bytes of the last recoll index (its Xapian database).
    var recollIndexBytes: UInt64 { recollConfig.map { Self.directorySize($0 + "/xapiandb") } ?? 0 }

    /// Runs `recollq` on the last index, with `-A` (abstracts: its previews) when asked:
    /// (seconds, documents found).
    func recollq(_ query: String, abstracts: Bool = false) throws -> (Double, Int?) {
        guard let config = recollConfig else { throw BenchError.failed("recollq without an index") }
        let output = scratch + "/recollq.out"
        let arguments = ["recollq", "-c", config, "-n", "500"] + (abstracts ? ["-A"] : []) + [query]
        let measurement = try ChildProcess.run(arguments, stdoutPath: output, measureRSS: false)
        guard measurement.status == 0 else { throw BenchError.failed(arguments.joined(separator: " ")) }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        let count = text.split(separator: "\n").lazy.compactMap { line -> Int? in
            // "N results" or "N results (printing  500 max):".
            let words = line.split(separator: " ")
            guard words.count >= 2, words[1].hasPrefix("results") else { return nil }
            return Int(words[0])
        }.first
        return (measurement.seconds, count)
    }

    /// Runs `pdfgrep -r -i` over the folder: (seconds, matching lines).
    func pdfgrep(_ pattern: String) throws -> (Double, Int) {
        let output = scratch + "/pdfgrep.out"
        let measurement = try ChildProcess.run(
            ["pdfgrep", "-r", "-i", pattern, folder], stdoutPath: output, measureRSS: false)
        // 1: no match.
        guard measurement.status <= 1 else { throw BenchError.failed("pdfgrep -r -i '\(pattern)' \(folder)") }
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return (measurement.seconds, text.split(separator: "\n").count)
    }

    /// Total bytes of the regular files under `path`.
    static func directorySize(_ path: String) -> UInt64 {
        var total: UInt64 = 0
        guard let enumerator = FileManager.default.enumerator(atPath: path) else { return 0 }
        while let name = enumerator.nextObject() as? String {
            if let attributes = enumerator.fileAttributes, attributes[.type] as? FileAttributeType == .typeRegular {
                total += (attributes[.size] as? NSNumber)?.uint64Value ?? 0
            }
            _ = name
        }
        return total
    }

    /// Size of one file (0 when missing).
    static func fileSize(_ path: String) -> UInt64 {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.uint64Value ?? 0
    }

    /// Formats bytes as MiB.
    static func mebibytes(_ bytes: UInt64) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
}

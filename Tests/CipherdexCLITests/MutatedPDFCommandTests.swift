import CipherdexTestSupport
import Foundation
import XCTest

/// Damaged real-world PDFs through `cipherdex add` and `cipherdex index` (issue 14): the files are
/// made in the test from the shared corpus (`PDFMutator`, seeded; nothing of the corpus is copied
/// into the repository). Neither command may die, every file must end `finished`, `failed` or
/// `locked` with a reason, the store must verify, and the helper's limits must hold (its 1 GiB
/// address-space cap bounds the peak RSS, its 30 s wall clock each run's length).
///
/// `make test` runs a bounded slice (`CIPHERDEX_MUTATED_PDFS`, default 40 files);
/// `make pdf-mutations` a long one (1000 files, sources up to 4 MB). `CIPHERDEX_MUTATION_SEED` picks another set. Skipped when the
/// corpus (`../shared/corpus/pdfs`, `/work/shared/corpus/pdfs` or `$CIPHERDEX_PDF_CORPUS`) is absent.
final class MutatedPDFCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned

    override func setUp() {
        cli = CLIRunner.temporary()
    }

    /// The corpus folder, or nil.
    private static var corpusDirectory: String? { PDFCorpus.directory }

    /// An integer from the environment, or `fallback`.
    private static func setting(_ name: String, _ fallback: UInt64) -> UInt64 {
        ProcessInfo.processInfo.environment[name].flatMap { UInt64($0) } ?? fallback
    }

    /// Runs `cipherdex arguments… --key-file k` under GNU time; returns the result and the peak
    /// RSS in MiB of the process tree's largest member (the CLI or a helper it waited for).
    private func measured(_ arguments: [String]) throws -> (result: CLIRunner.Result, peakMiB: Double, seconds: Double)
    {
        let start = Date()
        let result = try cli.run(
            arguments + ["--key-file", "k"], launcher: ["/usr/bin/time", "-f", "%M", "-o", cli.directory + "/rss.txt"])
        let seconds = Date().timeIntervalSince(start)
        let rss = String(
            decoding: FileManager.default.contents(atPath: cli.directory + "/rss.txt") ?? Data(), as: UTF8.self)
        let kib =
            rss.split(separator: "\n").last.flatMap { Double($0.trimmingCharacters(in: .whitespaces)) } ?? .infinity
        return (result, kib / 1024, seconds)
    }

    /// What `add` and `index` may end with: 0, or 1 when some file failed to index.
    private func assertSurvived(
        _ run: (result: CLIRunner.Result, peakMiB: Double, seconds: Double), files: Int, _ label: String,
        file: StaticString = #filePath, line: UInt = #line
    ) {
        let result = run.result
        XCTAssertFalse(
            result.signaled, "\(label) died of signal \(result.status): \(result.stderr)", file: file, line: line)
        XCTAssertTrue(
            [0, 1].contains(result.status), "\(label) exited \(result.status): \(result.stderr)", file: file, line: line
        )
        if result.status == 1 {
            XCTAssertTrue(
                result.stderr.contains("cipherdex: error: indexingFailed: "), "\(label): \(result.stderr)", file: file,
                line: line)
        }
        // One helper request per file, each under the 30 s wall clock (with room for a slow machine).
        XCTAssertLessThan(run.seconds, Double(files) * 31 + 60, "\(label) took too long", file: file, line: line)
        if !CLIRunner.underSanitizer {
            XCTAssertLessThan(
                run.peakMiB, 1024, "\(label): a process went past the helper's 1 GiB cap", file: file, line: line)
        }
    }

    func testMutatedCorpusPDFsAreIndexedOrReported() throws {
        guard let corpus = Self.corpusDirectory else { throw XCTSkip("PDF corpus not found") }
        let count = Int(Self.setting("CIPHERDEX_MUTATED_PDFS", 40))
        let seed = Self.setting("CIPHERDEX_MUTATION_SEED", 14)
        // Small files only (CIPHERDEX_MUTATION_MAX_BYTES, default 300 kB): the slice stays quick,
        // and the mutations reach deeper into each one.
        let maximumBytes = Int(Self.setting("CIPHERDEX_MUTATION_MAX_BYTES", 300_000))
        let sources = try FileManager.default.contentsOfDirectory(atPath: corpus).filter { name in
            let size = (try? FileManager.default.attributesOfItem(atPath: corpus + "/" + name)[.size] as? Int) ?? nil
            return name.lowercased().hasSuffix(".pdf") && (size ?? .max) <= maximumBytes
        }.sorted()
        XCTAssertFalse(sources.isEmpty)
        var mutator = PDFMutator(seed: seed)
        let fileManager = FileManager.default
        for folder in ["added", "indexed"] {
            try fileManager.createDirectory(atPath: cli.directory + "/" + folder, withIntermediateDirectories: true)
        }
        var added: [String] = []
        var indexed: [String] = []
        for number in 0..<count {
            let source = sources[mutator.below(sources.count)]
            let donor = sources[mutator.below(sources.count)]
            let mutation = PDFMutator.Mutation.allCases[number % PDFMutator.Mutation.allCases.count]
            let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: corpus + "/" + source)))
            let donorBytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: corpus + "/" + donor)))
            let damaged = mutator.mutate(original, mutation, donor: donorBytes)
            let name = String(format: "m%04d-%@.pdf", number, mutation.rawValue)
            let folder = number % 2 == 0 ? "added" : "indexed"
            XCTAssertTrue(fileManager.createFile(atPath: "\(cli.directory)/\(folder)/\(name)", contents: Data(damaged)))
            if number % 2 == 0 { added.append(name) } else { indexed.append(name) }
            print("mutated PDF \(name): \(mutation.rawValue) of \(source) (donor \(donor)), seed \(seed)")
        }
        try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "k"]).status, 0)

        let add = try measured(["add", "s"] + added.map { "added/" + $0 })
        assertSurvived(add, files: added.count, "add")
        let index = try measured(["index", "s", "indexed"])
        assertSurvived(index, files: indexed.count, "index")
        print(
            "add: \(added.count) files in \(Int(add.seconds)) s, peak \(Int(add.peakMiB)) MiB; "
                + "index: \(indexed.count) files in \(Int(index.seconds)) s, peak \(Int(index.peakMiB)) MiB")

        let status = try cli.run(["status", "s", "--json", "--key-file", "k"])
        XCTAssertEqual(status.status, 0, status.stderr)
        let entries = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
        var states: [String: Int] = [:]
        for entry in entries {
            let uid = entry["uid"] as? String ?? "?"
            let state = entry["state"] as? String ?? "?"
            states[state, default: 0] += 1
            XCTAssertTrue(["finished", "failed", "locked"].contains(state), "\(uid): \(state)")
            if state != "finished" {
                XCTAssertFalse((entry["reason"] as? String ?? "").isEmpty, "\(uid) \(state) without a reason")
            }
        }
        XCTAssertEqual(Set(entries.compactMap { $0["uid"] as? String }), Set(added + indexed))
        print(
            "mutated PDFs: \(states.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))"
        )

        let verify = try cli.run(["verify", "s", "--key-file", "k"])
        XCTAssertEqual(verify.status, 0, "the store verifies after the damaged files: \(verify.stderr)")
        let search = try cli.run(["search", "s", "the", "--key-file", "k"])
        XCTAssertEqual(search.status, 0, search.stderr)
    }
}

import Foundation
import XCTest

/// The attachment reader (`cipherdex cat`, whole and by range) against `tools/cipherdex-recover`,
/// the independent Python reader written from FORMAT.md (issue 14): random attachments, at and
/// around chunk boundaries, give the same bytes from both; a damaged attachment file is refused
/// by both (a typed error from `cat`, exit 4 from the tool), never read as other bytes.
/// `CIPHERDEX_DIFFERENTIAL_SEED` picks another set.
final class AttachmentRecoveryDifferentialTests: XCTestCase {
    private var cli = CLIRunner.unassigned

    override func setUp() {
        cli = CLIRunner.temporary()
    }

    private func path(_ name: String) -> String { cli.directory + "/" + name }

    /// The recovery tool's exit status and standard error for `store` into `output`.
    private func recover(_ store: String, into output: String) throws -> CLIRunner.Result {
        try cli.run([store, "--key-file", "k", output], executable: ExportCommandTests.recoverTool)
    }

    func testAttachmentReaderAgreesWithTheRecoveryTool() throws {
        try ExportCommandTests.requireRecoveryDependencies()
        let seed = ProcessInfo.processInfo.environment["CIPHERDEX_DIFFERENTIAL_SEED"].flatMap { UInt64($0) } ?? 14
        var random = SeededGenerator(seed: seed)
        try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "k"]).status, 0)
        let chunk = 65_536
        let lengths =
            [0, 1, chunk - 1, chunk, chunk + 1, 2 * chunk, 3 * chunk + 17] + (0..<5).map { _ in random.below(300_000) }
        var contents: [String: [UInt8]] = [:]
        for (number, length) in lengths.enumerated() {
            let bytes = random.bytes(length)
            try Data(bytes).write(to: URL(fileURLWithPath: path("file\(number)")))
            let attached = try cli.run(["attach", "s", "file\(number)", "--key-file", "k"])
            XCTAssertEqual(attached.status, 0, attached.stderr)
            contents[attached.stdout.trimmingCharacters(in: .whitespacesAndNewlines)] = bytes
        }
        let recovered = try recover("s", into: "out")
        XCTAssertEqual(recovered.status, 0, recovered.stderr)
        for (id, bytes) in contents.sorted(by: { $0.key < $1.key }) {
            let fromTool = [UInt8](FileManager.default.contents(atPath: path("out/attachments/" + id)) ?? Data([1]))
            XCTAssertEqual(fromTool, bytes, "recovery tool, attachment of \(bytes.count) bytes (seed \(seed))")
            let whole = try cli.run(["cat", "s", id, "--key-file", "k"])
            XCTAssertEqual(whole.status, 0, whole.stderr)
            XCTAssertEqual(whole.stdoutBytes, fromTool, "cat against the tool, \(bytes.count) bytes (seed \(seed))")
            guard !bytes.isEmpty else { continue }
            for _ in 0..<3 {
                let start = random.below(bytes.count)
                let end = start + random.below(min(bytes.count - start, 2 * chunk + 3))
                let part = try cli.run(["cat", "s", id, "--range", "\(start)-\(end)", "--key-file", "k"])
                XCTAssertEqual(
                    part.stdoutBytes, Array(fromTool[start...end]), "cat --range \(start)-\(end) (seed \(seed))")
            }
        }

        // Damage: a flipped bit, a cut, appended bytes, two chunks swapped, a header byte; each in
        // a fresh copy of the store, on a random attachment of at least two chunks.
        // (Attachment ids differ from run to run, so which attachment is picked does too: swapping
        // needs two whole chunks.)
        let multiChunk = contents.filter { $0.value.count > chunk }.keys.sorted()
        let twoWholeChunks = contents.filter { $0.value.count >= 2 * chunk }.keys.sorted()
        let damages = ["flip", "truncate", "append", "swapChunks", "header"]
        for (number, damage) in damages.enumerated() {
            let copy = "damaged\(number)"
            try FileManager.default.copyItem(atPath: path("s"), toPath: path(copy))
            let candidates = damage == "swapChunks" ? twoWholeChunks : multiChunk
            let id = candidates[random.below(candidates.count)]
            let file = path("\(copy)/attachments/\(id)")
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            let sealedChunk = chunk + 16
            switch damage {
            case "flip": bytes[54 + random.below(bytes.count - 54)] ^= UInt8(1) << UInt8(random.below(8))
            case "truncate": bytes.removeLast(1 + random.below(bytes.count - 55))
            case "append": bytes += random.bytes(1 + random.below(100))
            case "swapChunks":
                let first = Array(bytes[54..<(54 + sealedChunk)])
                bytes.replaceSubrange(54..<(54 + sealedChunk), with: bytes[(54 + sealedChunk)..<(54 + 2 * sealedChunk)])
                bytes.replaceSubrange((54 + sealedChunk)..<(54 + 2 * sealedChunk), with: first)
            default: bytes[random.below(54)] ^= 0x80
            }
            try Data(bytes).write(to: URL(fileURLWithPath: file))
            let read = try cli.run(["cat", copy, id, "--key-file", "k"])
            XCTAssertNotEqual(read.status, 0, "cat read a damaged attachment (\(damage))")
            XCTAssertFalse(read.signaled, "cat died on a damaged attachment (\(damage))")
            XCTAssertTrue(read.stderr.hasPrefix("cipherdex: error: "), "\(damage): \(read.stderr)")
            XCTAssertNotEqual(read.stdoutBytes, contents[id], "\(damage): cat gave the whole content")
            let tool = try recover(copy, into: copy + ".out")
            XCTAssertEqual(
                tool.status, 4, "the recovery tool must refuse a damaged attachment (\(damage)): \(tool.stderr)")
            XCTAssertTrue(tool.stderr.contains("attachment \(id)"), "\(damage): \(tool.stderr)")
        }
    }
}

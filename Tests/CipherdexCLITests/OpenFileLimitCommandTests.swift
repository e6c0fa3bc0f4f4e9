import Foundation
import XCTest

/// Too few open files (`ulimit -n`) or too little memory is `resourcesExhausted`, exit 22,
/// naming the file and saying what to do, and changes nothing: never `metadataCorrupt` (14) or
/// `storeCorrupted` (15), on which an application following the README restores a backup over
/// a healthy store.
final class OpenFileLimitCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned
    private var store = ""
    private let key = ["--key-env", "CIPHERDEX_TEST_KEY"]
    private let environment = ["CIPHERDEX_TEST_KEY": String(repeating: "5a", count: 32)]
    private static let strace = "/usr/bin/strace"

    override func setUp() {
        cli = CLIRunner.temporary()
        store = cli.directory + "/s"
    }

    /// `cipherdex arguments…` (with the key unless `plaintext`), under `ulimit -n limit` when given.
    private func run(_ arguments: [String], limit: Int? = nil, plaintext: Bool = false) throws -> CLIRunner.Result {
        try cli.run(
            arguments + (plaintext ? [] : key), environment: environment,
            launcher: limit.map { ["/bin/sh", "-c", "ulimit -n \($0) && exec \"$0\" \"$@\""] } ?? [])
    }

    /// A store with a document and an attachment; returns the attachment's id.
    private func makeStore(plaintext: Bool = false) throws -> String {
        XCTAssertEqual(try run(["create", store] + (plaintext ? ["--plaintext"] : []), plaintext: plaintext).status, 0)
        let document = cli.directory + "/d.json"
        XCTAssertTrue(FileManager.default.createFile(atPath: document, contents: Data("{\"a\": 1}".utf8)))
        XCTAssertEqual(try run(["doc", "put", store, "notes", "n1", document], plaintext: plaintext).status, 0)
        let blob = cli.directory + "/blob"
        XCTAssertTrue(
            FileManager.default.createFile(
                atPath: blob, contents: Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })))
        let attached = try run(["attach", store, blob], plaintext: plaintext)
        XCTAssertEqual(attached.status, 0, attached.stderr)
        return attached.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// An attachment's read that fails for lack of memory (`ENOMEM`, injected with strace) is
    /// `resourcesExhausted` for `verify`, not a problem of the store (exit 15), and `io` with
    /// the same exit status for `cat` (it was 1).
    func testAnAttachmentReadFailingForLackOfMemoryIsResourcesExhausted() throws {
        guard FileManager.default.isExecutableFile(atPath: Self.strace) else {
            throw XCTSkip("strace is not installed (scripts/bootstrap installs it)")
        }
        let id = try makeStore(plaintext: true)
        let attachment = store + "/attachments/" + id
        let injecting = [
            Self.strace, "-f", "-qq", "-o", "/dev/null", "-P", attachment, "-e", "trace=read,pread64", "-e",
            "inject=read,pread64:error=ENOMEM",
        ]
        let result = try cli.run(["verify", store], launcher: injecting)
        XCTAssertFalse(result.signaled, result.stderr)
        XCTAssertEqual(result.status, 22, result.stdout + result.stderr)
        XCTAssertTrue(
            result.stderr.hasPrefix("cipherdex: error: resourcesExhausted: cannot use \(attachment): "), result.stderr)
        XCTAssertTrue(result.stderr.contains("not enough memory"), result.stderr)
        let cat = try cli.run(["cat", store, id], launcher: injecting)
        XCTAssertEqual(cat.status, 22, cat.stderr)
        XCTAssertTrue(cat.stderr.hasPrefix("cipherdex: error: io: attachment \(id): "), cat.stderr)
        let verified = try cli.run(["verify", store])
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr)
    }
}

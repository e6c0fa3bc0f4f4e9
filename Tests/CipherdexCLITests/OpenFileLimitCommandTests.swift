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

    /// Every limit from one too low for the program to load up to one every command works
    /// under: each command either works or is `resourcesExhausted` naming the file it could not
    /// open and the limit, leaving every file of the store as it was and creating none; the
    /// metadata and the database are among the files named (they were `metadataCorrupt` and
    /// `storeCorrupted`). Never a signal: Dispatch, whose event loop used to start late, ended
    /// the process (SIGILL) when it found no descriptor left, in a few runs of `verify` or `cat`
    /// near the lowest limit they work under: those run twice at each limit.
    func testTooFewOpenFilesIsResourcesExhaustedNeverDamageNorASignalAndChangesNothing() throws {
        let id = try makeStore()
        let commands = [
            ["doc", "get", store, "notes", "n1"], ["verify", store], ["cat", store, id], ["info", store],
        ]
        var named: Set<String> = []
        var allWorked = false
        for limit in 4...32 where !allWorked {
            allWorked = true
            for command in commands {
                for _ in 0..<(["verify", "cat"].contains(command[0]) ? 2 : 1) {
                    let before = CLIRunner.tree(store)
                    let result = try run(command, limit: limit)
                    let what = "\(command[0]) under ulimit -n \(limit): \(result.stderr)"
                    // Too few even for the dynamic loader: the program never ran.
                    if result.status == 127, result.stderr.contains("error while loading shared libraries") {
                        allWorked = false
                        continue
                    }
                    XCTAssertFalse(result.signaled, what)
                    if result.status == 0 { continue }
                    allWorked = false
                    XCTAssertEqual(result.status, 22, what)
                    let prefix = "cipherdex: error: resourcesExhausted: cannot use "
                    XCTAssertTrue(result.stderr.hasPrefix(prefix), what)
                    XCTAssertTrue(result.stderr.contains("(its limit, ulimit -n, is \(limit))"), what)
                    XCTAssertTrue(result.stderr.contains("then retry (this is not damage"), what)
                    if let path = result.stderr.dropFirst(prefix.count).components(separatedBy: ": ").first {
                        named.insert(path)
                    }
                    // Every file as it was, and nothing new (a writable open that got through and
                    // then failed may have removed an empty `staging/`, as every open does).
                    let after = CLIRunner.tree(store)
                    XCTAssertEqual(
                        after.filter { !$0.key.hasSuffix("/") }, before.filter { !$0.key.hasSuffix("/") },
                        "a failed \(what) changed the store")
                    XCTAssertTrue(
                        Set(after.keys).isSubset(of: before.keys), "a failed \(what) created \(after.keys)")
                }
            }
        }
        XCTAssertTrue(allWorked, "no limit up to 32 let every command work")
        XCTAssertTrue(named.contains(store + "/metadata.json"), "\(named)")
        XCTAssertTrue(named.contains(store + "/store.db"), "\(named)")
        let verified = try run(["verify", store])
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr)
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

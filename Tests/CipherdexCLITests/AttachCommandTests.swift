import Foundation
import XCTest

/// `attach --doc` and `detach` never overwrite a document member they do not own.
final class AttachCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned

    override func setUpWithError() throws {
        cli = CLIRunner.temporary()
        try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "k"]).status, 0)
        _ = FileManager.default.createFile(atPath: cli.directory + "/file.bin", contents: Data("attached bytes".utf8))
    }

    private func run(_ arguments: [String], stdin: [UInt8]? = nil) throws -> CLIRunner.Result {
        try cli.run(arguments + ["--key-file", "k"], stdin: stdin)
    }

    private var attachmentFiles: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: cli.directory + "/s/attachments")) ?? []).sorted()
    }

    /// A file that cannot be read is refused before the store is opened (with the wrong key too,
    /// the file is what is reported, and the store's files are unchanged): for lack of permission
    /// `permissionDenied` (exit 17, as the library says it), a missing one `sourceNotFound`,
    /// otherwise `io` with the reason (as `doc put` says them).
    func testAnUnreadableFileIsRefusedBeforeTheStoreIsOpened() throws {
        try cli.run(["keygen", "--out", "wrong"])
        let before = CLIRunner.tree(cli.directory + "/s")
        let missing = try cli.run(["attach", "s", "missing.bin", "--key-file", "wrong"])
        XCTAssertEqual(missing.status, 1, missing.stderr)
        XCTAssertEqual(missing.stderr, "cipherdex: error: sourceNotFound: cannot read missing.bin: no such file\n")
        let missingDocument = try cli.run(["doc", "put", "s", "c", "d", "missing.json", "--key-file", "wrong"])
        XCTAssertEqual(
            missingDocument.stderr, "cipherdex: error: sourceNotFound: cannot read missing.json: no such file\n")
        XCTAssertEqual(CLIRunner.tree(cli.directory + "/s"), before)
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/strace") else {
            throw XCTSkip("strace is not installed (scripts/bootstrap installs it)")
        }
        // The tests run as root, whom permissions do not stop: the refusal is injected.
        let denied = try cli.run(
            ["attach", "s", "file.bin", "--key-file", "wrong"],
            launcher: [
                "/usr/bin/strace", "-f", "-qq", "-o", "/dev/null", "-e", "trace=access,faccessat,faccessat2", "-e",
                "inject=access,faccessat,faccessat2:error=EACCES",
            ])
        XCTAssertEqual(denied.status, 17, denied.stderr)
        XCTAssertTrue(
            denied.stderr.hasPrefix("cipherdex: error: permissionDenied: permission denied for file.bin: "),
            denied.stderr)
        XCTAssertEqual(CLIRunner.tree(cli.directory + "/s"), before)
    }

    func testAttachToDocumentWhoseAttachmentsIsNotAnArrayIsRefusedAndWritesNothing() throws {
        let bodies = [
            #"{"attachments":"keep me","title":"t"}"#, #"{"attachments":{"a":1}}"#, #"{"attachments":null}"#,
            #"{"attachments":7}"#,
        ]
        for (offset, body) in bodies.enumerated() {
            let id = "n\(offset)"
            XCTAssertEqual(try run(["doc", "put", "s", "notes", id, "-"], stdin: Array(body.utf8)).status, 0)
            let attached = try run(["attach", "s", "file.bin", "--doc", "notes/\(id)"])
            XCTAssertEqual(attached.status, 1, body)
            XCTAssertTrue(
                attached.stderr.hasPrefix("cipherdex: error: fieldNotAnArray: "), attached.stderr)
            XCTAssertTrue(attached.stderr.contains("attachments"), attached.stderr)
            XCTAssertEqual(try run(["doc", "get", "s", "notes", id]).stdout, body + "\n", "the document is unchanged")
        }
        XCTAssertEqual(attachmentFiles, [], "no attachment is left behind")
        let verify = try run(["verify", "s"])
        XCTAssertEqual(verify.status, 0, verify.stdout + verify.stderr)
        XCTAssertTrue(verify.stdout.contains("attachments checked:  0"), verify.stdout)
    }

    func testAttachAppendsToAnExistingArrayAndDetachLeavesNonArraysAlone() throws {
        XCTAssertEqual(
            try run(["doc", "put", "s", "notes", "a", "-"], stdin: Array(#"{"attachments":[1]}"#.utf8)).status, 0)
        XCTAssertEqual(
            try run(["doc", "put", "s", "notes", "b", "-"], stdin: Array(#"{"attachments":"x"}"#.utf8)).status, 0)
        let attached = try run(["attach", "s", "file.bin", "--doc", "notes/a"])
        XCTAssertEqual(attached.status, 0, attached.stderr)
        let token = try run(["doc", "get", "s", "notes", "a"]).stdout
        XCTAssertTrue(token.hasPrefix(#"{"attachments":[1,{"cipherdexAttachment":"#), token)
        let id = attached.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        XCTAssertEqual(try run(["detach", "s", id]).status, 0)
        XCTAssertEqual(try run(["doc", "get", "s", "notes", "a"]).stdout, #"{"attachments":[1]}"# + "\n")
        XCTAssertEqual(try run(["doc", "get", "s", "notes", "b"]).stdout, #"{"attachments":"x"}"# + "\n")
    }
}

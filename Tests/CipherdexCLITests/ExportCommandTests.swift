import Foundation
import XCTest

/// `cipherdex export` end to end, and `tools/cipherdex-recover` (the independent Python reader
/// written from FORMAT.md) against it: the same files, byte for byte, for every kind of store.
final class ExportCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned

    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    static let recoverTool = repository + "/tools/cipherdex-recover"

    override func setUp() {
        cli = CLIRunner.temporary()
    }

    private func path(_ name: String) -> String { cli.directory + "/" + name }

    /// Skips unless python3 with PyNaCl and cryptography, and the sqlcipher shell, are installed.
    static func requireRecoveryDependencies() throws {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = ["python3", "-c", "import nacl.bindings, cryptography.hazmat.primitives.ciphers.aead"]
        probe.standardError = FileHandle.nullDevice
        guard (try? probe.run()) != nil else { throw XCTSkip("python3 is not installed") }
        probe.waitUntilExit()
        guard probe.terminationStatus == 0 else {
            throw XCTSkip("PyNaCl or cryptography is missing (scripts/bootstrap --recover-tool installs them)")
        }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlcipher") else {
            throw XCTSkip("the sqlcipher shell is missing (apt-get install sqlcipher)")
        }
    }

    /// Runs the recovery tool; returns its status and standard error.
    private func recover(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
        let result = try cli.run(arguments, executable: Self.recoverTool)
        return (result.status, result.stderr)
    }

    /// A store with documents, attachments (one referenced, one empty, one over a chunk) and
    /// an indexed text file, made with the CLI; `key` is its key options.
    private func fill(_ store: String, key: [String]) throws {
        try Data("page one\u{0C}page two \u{FC} \"q\" \\ /\n".utf8).write(to: URL(fileURLWithPath: path("a.txt")))
        try Data((0..<70_000).map { UInt8($0 % 253) }).write(to: URL(fileURLWithPath: path("big.bin")))
        try Data().write(to: URL(fileURLWithPath: path("empty.bin")))
        // A 5,000-digit integer too: Python refuses to read more than 4,300 digits as an int
        // by default, and the tool then lost the document's attachment references.
        let huge = String(repeating: "7", count: 5_000)
        let body =
            #"{"name":"Ana \u00e9","note":"a/b \"q\"\n\t","n":1.50,"big":123456789012345678901234567890,"huge":"#
            + huge + "}"
        XCTAssertEqual(
            try cli.run(["doc", "put", store, "people", "p1", "-"] + key, stdin: Array(body.utf8)).status, 0)
        XCTAssertEqual(
            try cli.run(["doc", "put", store, "x.y-z_1", "\u{F1}o", "-"] + key, stdin: Array(#"{"a":[]}"#.utf8)).status,
            0)
        XCTAssertEqual(try cli.run(["attach", store, "big.bin", "--doc", "people/p1"] + key).status, 0)
        XCTAssertEqual(try cli.run(["attach", store, "empty.bin"] + key).status, 0)
        XCTAssertEqual(try cli.run(["add", store, "a.txt"] + key).status, 0)
    }

    func testExportIsConfirmedAndRefusesANonEmptyDirectory() throws {
        XCTAssertEqual(try cli.run(["create", "s", "--plaintext"]).status, 0)
        let unconfirmed = try cli.run(["export", "s", "out"])
        XCTAssertEqual(unconfirmed.status, 64, "plaintext output needs --yes without a terminal")
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out")))
        try FileManager.default.createDirectory(atPath: path("full"), withIntermediateDirectories: false)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: path("full/keep")))
        let refused = try cli.run(["export", "s", "full", "--yes"])
        XCTAssertEqual(refused.status, 1)
        XCTAssertTrue(refused.stderr.contains("destinationNotEmpty"), refused.stderr)
        XCTAssertEqual(CLIRunner.tree(path("full")), ["keep": Data("mine".utf8)])
        XCTAssertEqual(try cli.run(["export", "s", "out", "--yes"]).status, 0)
        XCTAssertEqual(
            Set(CLIRunner.tree(path("out")).keys),
            [
                "collections/", "attachments/", "collections.jsonl", "attachments.jsonl", "search/",
                "search/documents.jsonl", "search/pages.jsonl",
            ])
    }

    func testExportWritesDocumentsAttachmentsAndPages() throws {
        try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "k"]).status, 0)
        try fill("s", key: ["--key-file", "k"])
        XCTAssertEqual(try cli.run(["export", "s", "out", "--key-file", "k", "--yes"]).status, 0)
        let files = CLIRunner.tree(path("out"))
        let people = String(decoding: try XCTUnwrap(files["collections/people.jsonl"]), as: UTF8.self)
        XCTAssertTrue(people.hasPrefix(#"{"id":"p1","body":{"attachments":[{"cipherdexAttachment":""#), people)
        let pages = String(decoding: try XCTUnwrap(files["search/pages.jsonl"]), as: UTF8.self)
        XCTAssertEqual(
            pages,
            #"{"uid":"a.txt","page":0,"kind":0,"ordinal":0,"text":"page one"}"# + "\n"
                + #"{"uid":"a.txt","page":1,"kind":0,"ordinal":0,"text":"page two ü \"q\" \\ /\u000a"}"# + "\n")
        let contents = files.filter { $0.key.hasPrefix("attachments/") && $0.key != "attachments/" }.values
        XCTAssertEqual(
            Set(contents),
            [
                Data((0..<70_000).map { UInt8($0 % 253) }), Data(),
                try Data(contentsOf: URL(fileURLWithPath: path("a.txt"))),
            ])
        let manifest = String(decoding: try XCTUnwrap(files["attachments.jsonl"]), as: UTF8.self)
        XCTAssertTrue(manifest.contains(#""referencedBy":[{"collection":"people","id":"p1"}]"#), manifest)
        XCTAssertTrue(manifest.contains(#""heldBySearch":["a.txt"]"#), manifest)
    }

    func testRecoveryToolWritesWhatExportWritesForEveryKindOfStore() throws {
        try Self.requireRecoveryDependencies()
        try cli.run(["keygen", "--out", "k"])
        try Data("correct horse \u{2713}\n".utf8).write(to: URL(fileURLWithPath: path("p")))
        let kinds: [(store: String, create: [String], key: [String])] = [
            ("raw", ["--key-file", "k"], ["--key-file", "k"]),
            ("phrase", ["--passphrase-file", "p"], ["--passphrase-file", "p"]),
            ("plain", ["--plaintext"], []),
        ]
        for kind in kinds {
            XCTAssertEqual(try cli.run(["create", kind.store] + kind.create).status, 0)
            try fill(kind.store, key: kind.key)
            // A page long enough to be stored compressed (search migration 1001): the tool
            // decompresses it as export does.
            let long = String(repeating: "a longer page of text, stored compressed \u{2713}; ", count: 20)
            try Data(long.utf8).write(to: URL(fileURLWithPath: path("long.txt")))
            XCTAssertEqual(try cli.run(["add", kind.store, "long.txt"] + kind.key).status, 0)
            XCTAssertEqual(try cli.run(["export", kind.store, kind.store + ".export", "--yes"] + kind.key).status, 0)
            let pages = String(
                decoding: CLIRunner.tree(path(kind.store + ".export"))["search/pages.jsonl"] ?? Data(), as: UTF8.self)
            XCTAssertTrue(pages.contains(#""text":"\#(long)"}"#), pages)
            let before = CLIRunner.tree(path(kind.store))
            let recovered = try recover([kind.store] + kind.key + [kind.store + ".recovered"])
            XCTAssertEqual(recovered.status, 0, recovered.stderr)
            XCTAssertEqual(
                CLIRunner.tree(path(kind.store + ".recovered")), CLIRunner.tree(path(kind.store + ".export")),
                kind.store)
            XCTAssertEqual(CLIRunner.tree(path(kind.store)), before, "the tool never changes the store")
        }
        // Re-encrypted (data generation 1: store.1.db, attachments.1/) and then rotated to
        // another key: the same data, read from the generation the metadata names.
        try cli.run(["keygen", "--out", "k2"])
        XCTAssertEqual(try cli.run(["reencrypt", "raw", "--key-file", "k"]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path("raw/store.1.db")))
        XCTAssertEqual(try cli.run(["rekey", "raw", "--key-file", "k", "--new-key-file", "k2"]).status, 0)
        let rotated = try recover(["raw", "--key-file", "k2", "raw.rotated"])
        XCTAssertEqual(rotated.status, 0, rotated.stderr)
        XCTAssertEqual(CLIRunner.tree(path("raw.rotated")), CLIRunner.tree(path("raw.export")))
        XCTAssertEqual(try recover(["raw", "--key-file", "k", "raw.old"]).status, 3, "the old key no longer opens")
        try FileManager.default.removeItem(atPath: path("k"))
        try FileManager.default.moveItem(atPath: path("k2"), toPath: path("k"))
        // A recovery key opens the same data.
        let added = try cli.run(["key", "add", "raw", "--key-file", "k", "--recovery"])
        XCTAssertEqual(added.status, 0)
        try Data(added.stdoutBytes).write(to: URL(fileURLWithPath: path("r")))
        let viaRecovery = try recover(["raw", "--recovery-key-file", "r", "raw.viaRecovery"])
        XCTAssertEqual(viaRecovery.status, 0, viaRecovery.stderr)
        XCTAssertEqual(CLIRunner.tree(path("raw.viaRecovery")), CLIRunner.tree(path("raw.export")))
        // A wrong key is refused, and a flipped attachment byte is detected.
        try cli.run(["keygen", "--out", "wrong"])
        XCTAssertEqual(try recover(["raw", "--key-file", "wrong", "raw.wrong"]).status, 3)
        let attachments = path("raw/attachments.1")
        for name in try FileManager.default.contentsOfDirectory(atPath: attachments) {
            let file = attachments + "/" + name
            var bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            bytes[bytes.count - 1] ^= 0x01
            try bytes.write(to: URL(fileURLWithPath: file))
            let tampered = try recover(["raw", "--key-file", "k", "raw.tampered." + name])
            XCTAssertEqual(tampered.status, 4, "a flipped byte in \(name) must be detected")
            XCTAssertTrue(tampered.stderr.contains("attachment \(name)"), tampered.stderr)
            bytes[bytes.count - 1] ^= 0x01
            try bytes.write(to: URL(fileURLWithPath: file))
        }
    }

    /// The recovery tool holds the store's lock while it reads: a store another program has
    /// open is refused (exit 6), and nothing is written (multi-process audit 28: run beside a
    /// writer it copied files mid-checkpoint and reported damage that was not there).
    func testRecoveryToolRefusesAStoreOpenElsewhere() throws {
        try Self.requireRecoveryDependencies()
        XCTAssertEqual(try cli.run(["create", "s", "--plaintext"]).status, 0)
        let lock = open(path("s/cipherdex.lock"), O_RDONLY)
        XCTAssertGreaterThanOrEqual(lock, 0)
        XCTAssertEqual(flock(lock, LOCK_EX), 0)
        let refused = try recover([path("s"), path("out")])
        XCTAssertEqual(refused.status, 6, refused.stderr)
        XCTAssertTrue(refused.stderr.contains("storeLocked"), refused.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: path("out")))
        close(lock)
        XCTAssertEqual(try recover([path("s"), path("out")]).status, 0)
    }

    func testRecoveryToolReadsTheCommittedTestVectors() throws {
        try Self.requireRecoveryDependencies()
        let fixture = Self.repository + "/Tests/Fixtures/FormatVectors"
        for key in [["--key-file", fixture + "/raw.key"], ["--passphrase-file", fixture + "/passphrase.txt"]] {
            let out = path("vectors" + key[0])
            let recovered = try recover([fixture + "/store"] + key + [out])
            XCTAssertEqual(recovered.status, 0, recovered.stderr)
            XCTAssertEqual(CLIRunner.tree(out), CLIRunner.tree(fixture + "/expected"))
        }
    }

    /// The second set: data generation 1, a recovery key, compressed page text, a log a crash
    /// left. The tool reads it with either key, from a copy (it changes nothing, but the set is
    /// committed), to the export the library makes.
    func testRecoveryToolReadsTheChangedStoreVectors() throws {
        try Self.requireRecoveryDependencies()
        let fixture = Self.repository + "/Tests/Fixtures/FormatVectorsChanged"
        for key in [["--key-file", fixture + "/raw.key"], ["--recovery-key-file", fixture + "/recovery.txt"]] {
            let out = path("changed" + key[0])
            let recovered = try recover([fixture + "/store"] + key + [out])
            XCTAssertEqual(recovered.status, 0, recovered.stderr)
            XCTAssertEqual(CLIRunner.tree(out), CLIRunner.tree(fixture + "/expected"))
        }
    }

    /// Ctrl-C (SIGINT) or SIGTERM during an export stops it and removes what it wrote (no partial
    /// plaintext is left), then the process ends by the signal.
    func testASignalDuringAnExportLeavesNothing() throws {
        try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "k"]).status, 0)
        let big = path("big.bin")
        XCTAssertTrue(FileManager.default.createFile(atPath: big, contents: nil))
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: big))
        let piece = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 13) })
        for _ in 0..<192 { handle.write(piece) }
        try handle.close()
        XCTAssertEqual(try cli.run(["attach", "s", "big.bin", "--key-file", "k"]).status, 0)
        for number in [SIGINT, SIGTERM] {
            let out = path("out-\(number)")
            let process = Process()
            process.executableURL = CLIRunner.productsDirectory.appendingPathComponent("cipherdex")
            process.arguments = ["export", path("s"), out, "--key-file", path("k"), "--yes"]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            // Once the attachment is being written.
            let deadline = Date().addingTimeInterval(20)
            while !FileManager.default.fileExists(atPath: out + "/attachments.jsonl") && process.isRunning
                && Date() < deadline
            {
                Thread.sleep(forTimeInterval: 0.002)
            }
            kill(process.processIdentifier, number)
            process.waitUntilExit()
            if process.terminationReason == .exit && process.terminationStatus == 0 {
                // It finished before the signal came: nothing to check this time.
                continue
            }
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, "\(number)")
            XCTAssertEqual(process.terminationStatus, number)
            XCTAssertFalse(FileManager.default.fileExists(atPath: out), "the partial export is removed (\(number))")
        }
    }
}

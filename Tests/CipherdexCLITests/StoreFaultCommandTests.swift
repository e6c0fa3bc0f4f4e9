import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// Commands on a store they may not write (another owner, a read-only `store.db`) or whose disk
/// has under 64 KiB free: `permissionDenied` (17) or `diskFull` (18) naming the path — never
/// `storeCorrupted` (15) — with no file created or changed, and everything there once the
/// fault is gone. The permission cases run as `nobody` through `setpriv` (root ignores modes).
final class StoreFaultCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned
    private var store = ""
    private var disk: SmallFileSystem?
    private let key = ["--key-env", "CIPHERDEX_TEST_KEY"]
    private let environment = ["CIPHERDEX_TEST_KEY": String(repeating: "5a", count: 32)]
    private static let nobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

    override func setUp() {
        cli = CLIRunner.temporary()
        store = cli.directory + "/s"
    }

    override func tearDown() {
        disk?.unmount()
    }

    private func run(_ arguments: [String], as launcher: [String] = []) throws -> CLIRunner.Result {
        try cli.run(arguments + key, environment: environment, launcher: launcher)
    }

    /// A store with one document and one attachment; returns the attachment's id.
    private func makeStore() throws -> String {
        XCTAssertEqual(try run(["create", store]).status, 0)
        XCTAssertTrue(
            FileManager.default.createFile(atPath: cli.directory + "/doc.json", contents: Data("{\"n\": 1}".utf8)))
        XCTAssertEqual(try run(["doc", "put", store, "notes", "one", cli.directory + "/doc.json"]).status, 0)
        XCTAssertTrue(FileManager.default.createFile(atPath: cli.directory + "/a.txt", contents: Data("attached".utf8)))
        let attached = try run(["attach", store, cli.directory + "/a.txt"])
        XCTAssertEqual(attached.status, 0, attached.stderr)
        return attached.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Every file of the store, name to bytes.
    private func files() -> [String: Data] {
        var result: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: store)
        while let name = enumerator?.nextObject() as? String {
            result[name] = FileManager.default.contents(atPath: store + "/" + name) ?? Data()
        }
        return result
    }

    private func assertEverythingThere(
        _ id: String, as launcher: [String] = [], file: StaticString = #filePath, line: UInt = #line
    ) throws {
        let document = try run(["doc", "get", store, "notes", "one"], as: launcher)
        XCTAssertEqual(document.status, 0, document.stderr, file: file, line: line)
        XCTAssertTrue(document.stdout.contains("\"n\""), document.stdout, file: file, line: line)
        let content = try run(["cat", store, id], as: launcher)
        XCTAssertEqual(content.stdout, "attached", content.stderr, file: file, line: line)
        let verified = try run(["verify", store], as: launcher)
        XCTAssertEqual(verified.status, 0, verified.stdout + verified.stderr, file: file, line: line)
    }

    private func skipUnlessRootWithSetpriv() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: Self.nobody[0]) else {
            throw XCTSkip("needs root and setpriv to run a command as nobody")
        }
    }

    // MARK: Permissions

    func testAnotherUsersStoreIsPermissionDeniedNamingItAndCreatesNothing() throws {
        try skipUnlessRootWithSetpriv()
        let id = try makeStore()
        let before = files()
        for command in [
            ["info", store], ["verify", store], ["doc", "put", store, "notes", "two", cli.directory + "/doc.json"],
        ] {
            let started = Date()
            let result = try run(command, as: Self.nobody)
            XCTAssertLessThan(Date().timeIntervalSince(started), 1.0)
            XCTAssertEqual(result.status, 17, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("cipherdex: error: permissionDenied: "), result.stderr)
            XCTAssertTrue(result.stderr.contains(store), result.stderr)
        }
        XCTAssertEqual(files(), before)
        // Given to nobody, it opens for nobody with everything in it.
        XCTAssertEqual(chownTree(store, to: 65534), 0)
        try assertEverythingThere(id, as: Self.nobody)
    }

    /// Root running a command on another user's store is refused before anything is opened: the
    /// files it wrote there were root's, and the owner could no longer open the store
    /// (environment audit 28). As the owner, everything is there.
    func testRootIsRefusedOnAnotherUsersStore() throws {
        try skipUnlessRootWithSetpriv()
        let id = try makeStore()
        XCTAssertEqual(chownTree(store, to: 65534), 0)
        let before = files()
        for command in [
            ["info", store], ["attach", store, cli.directory + "/doc.json"],
            ["key", "add", store, "--new-key-file", "k"],
            ["reencrypt", store, "--new-key-env", "CIPHERDEX_TEST_KEY"],
        ] {
            let result = try run(command, as: [])
            XCTAssertEqual(result.status, 17, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stderr.contains("belongs to user 65534"), result.stderr)
        }
        XCTAssertEqual(files(), before)
        try assertEverythingThere(id, as: Self.nobody)
    }

    func testAReadOnlyDatabaseIsPermissionDeniedAndLeavesNoWALOrIndexBehind() throws {
        try skipUnlessRootWithSetpriv()
        let id = try makeStore()
        XCTAssertEqual(chownTree(store, to: 65534), 0)
        XCTAssertEqual(chmod(store + "/store.db", 0o444), 0)
        let before = files()
        for command in [
            ["info", store], ["verify", store], ["doc", "put", store, "notes", "two", cli.directory + "/doc.json"],
        ] {
            let result = try run(command, as: Self.nobody)
            XCTAssertEqual(result.status, 17, "\(command): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("cipherdex: error: permissionDenied: "), result.stderr)
            XCTAssertTrue(result.stderr.contains(store + "/store.db"), result.stderr)
        }
        XCTAssertEqual(files(), before, "a refused command created or changed a file (a -wal or -shm?)")
        XCTAssertEqual(chmod(store + "/store.db", 0o600), 0)
        try assertEverythingThere(id, as: Self.nobody)
    }

    /// An attachment file nobody may read: `cat`, `export` and `verify` say `permissionDenied`
    /// (17) naming the file — not an untyped `io` (1), and for `verify` not damage
    /// (`storeCorrupted`, 15) — and the export leaves no plaintext.
    func testAnUnreadableAttachmentFileIsPermissionDeniedNotDamage() throws {
        try skipUnlessRootWithSetpriv()
        let id = try makeStore()
        let output = cli.directory + "/out"
        try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: false)
        XCTAssertEqual(chownTree(store, to: 65534) | chown(output, 65534, 65534), 0)
        let file = store + "/attachments/" + id
        XCTAssertEqual(chmod(file, 0), 0)
        for command in [["cat", store, id], ["export", store, output + "/export", "--yes"], ["verify", store]] {
            let result = try run(command, as: Self.nobody)
            XCTAssertEqual(result.status, 17, "\(command): \(result.stdout) \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("cipherdex: error: permissionDenied: "), result.stderr)
            XCTAssertTrue(result.stderr.contains(file), result.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: output + "/export"), "the failed export's plaintext")
        XCTAssertEqual(chmod(file, 0o600), 0)
        try assertEverythingThere(id, as: Self.nobody)
    }

    /// `delete` of a store whose `attachments/` it may not empty is `permissionDenied` (17) naming
    /// the file, not `ioError` (19, "the disk is failing"); once allowed, `delete` finishes.
    func testDeleteThatMayNotEmptyAttachmentsIsPermissionDenied() throws {
        try skipUnlessRootWithSetpriv()
        let id = try makeStore()
        XCTAssertEqual(chownTree(store, to: 65534), 0)
        XCTAssertEqual(chmod(store + "/attachments", 0o500), 0)
        let refused = try cli.run(["delete", store, "--yes"], launcher: Self.nobody)
        XCTAssertEqual(refused.status, 17, refused.stderr)
        // The store is deleted (its tombstone is in place): the line says so, and names the file.
        XCTAssertTrue(
            refused.stderr.hasPrefix("cipherdex: error: permissionDenied: the store \(store) is deleted"),
            refused.stderr)
        XCTAssertTrue(refused.stderr.contains("permission denied for \(store)/attachments/\(id)"), refused.stderr)
        XCTAssertEqual(chmod(store + "/attachments", 0o700), 0)
        let deleted = try cli.run(["delete", store, "--yes"], launcher: Self.nobody)
        XCTAssertEqual(deleted.status, 0, deleted.stderr)
        // The folder itself stays: nobody may not remove entries of its root-owned parent; the
        // store is gone, and the line says so.
        XCTAssertEqual(
            deleted.stdout,
            "deleted \(store) (its folder was left: it is empty but removing it failed: Permission denied (errno 13))\n"
        )
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store), [])
    }

    /// `delete` of a store folder nobody may search (mode 0400) is `permissionDenied` (17), as
    /// `info` says, not `notAStore`; nothing is changed.
    func testDeleteOfAStoreFolderItMayNotSearchIsPermissionDenied() throws {
        try skipUnlessRootWithSetpriv()
        let id = try makeStore()
        XCTAssertEqual(chownTree(store, to: 65534), 0)
        let before = files()
        XCTAssertEqual(chmod(store, 0o400), 0)
        let refused = try cli.run(["delete", store, "--yes"], launcher: Self.nobody)
        XCTAssertEqual(refused.status, 17, refused.stderr)
        XCTAssertTrue(refused.stderr.hasPrefix("cipherdex: error: permissionDenied: "), refused.stderr)
        XCTAssertTrue(refused.stderr.contains(store), refused.stderr)
        XCTAssertEqual(chmod(store, 0o700), 0)
        XCTAssertEqual(files(), before)
        try assertEverythingThere(id, as: Self.nobody)
    }

    private func chownTree(_ path: String, to uid: uid_t) -> Int32 {
        var status = chown(path, uid, gid_t(uid))
        let enumerator = FileManager.default.enumerator(atPath: path)
        while let name = enumerator?.nextObject() as? String {
            status |= lchown(path + "/" + name, uid, gid_t(uid))
        }
        return status
    }

    // MARK: A disk with under 64 KiB free

    func testUnder64KiBFreeIsDiskFullNeverStoreCorruptedAndEverythingIsThereAfter() throws {
        let disk = try SmallFileSystem(bytes: 8 << 20)
        self.disk = disk
        store = disk.path + "/s"
        let id = try makeStore()
        try disk.fill(leaving: 48 << 10)
        XCTAssertTrue(
            FileManager.default.createFile(atPath: cli.directory + "/big.bin", contents: Data(count: 256 << 10)))
        let big = "{\"body\": \"" + String(repeating: "x", count: 256 << 10) + "\"}"
        XCTAssertTrue(FileManager.default.createFile(atPath: cli.directory + "/big.json", contents: Data(big.utf8)))
        for command in [
            ["info", store], ["verify", store], ["doc", "put", store, "notes", "big", cli.directory + "/big.json"],
            ["attach", store, cli.directory + "/big.bin"],
        ] {
            let started = Date()
            let result = try run(command)
            XCTAssertLessThan(Date().timeIntervalSince(started), 2.0)
            // `info` and `verify` open the database for writing too (its write-ahead log and
            // index need room): they may work or be diskFull; a write that cannot be made is.
            if result.status != 0 || ["doc", "attach"].contains(command[0]) {
                XCTAssertEqual(result.status, 18, "\(command): \(result.stderr)")
                XCTAssertTrue(result.stderr.hasPrefix("cipherdex: error: diskFull: "), result.stderr)
                XCTAssertTrue(result.stderr.contains(store), result.stderr)
            }
        }
        disk.free()
        try assertEverythingThere(id)
        XCTAssertEqual(try run(["attach", store, cli.directory + "/big.bin"]).status, 0)
    }
}

import Dispatch
import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// Too few open files left (`EMFILE`, the process's limit, `ulimit -n`) is `resourcesExhausted`
/// naming the file it could not open, never damage: an open that meets it at the metadata
/// (it was `metadataCorrupt`) or at the database (it was `storeCorrupted`) changes nothing, and
/// `verify` that cannot open an attachment throws it rather than listing the attachment as a
/// problem. The store opens, whole, once the limit is back.
final class StoreOpenFileLimitTests: XCTestCase {
    private var path = ""

    override func setUp() {
        path = TestSupport.temporaryPath()
    }

    /// A store with a document and an attachment (encrypted unless `key` is nil).
    private func makeStore(key: KeyProvider? = TestSupport.rawKey(1)) throws {
        let store = try Store.open(TestSupport.configuration(path, key: key))
        defer { store.close() }
        try store.createCollection("notes").insert(JSONValue.object(["body": .string("kept")]), id: "one")
        _ = try store.addAttachment(Data("attachment body".utf8), contentType: "text/plain")
    }

    /// Runs `body` with the process's soft limit of open files lowered so that exactly
    /// `available` more descriptors can be opened; the limit is put back afterwards.
    private func withOpenFiles<T>(available: Int, _ body: () throws -> T) throws -> T {
        // Dispatch makes its own descriptors the first time a worker starts: not under the limit.
        DispatchQueue.global().sync {}
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {}
        group.wait()
        var saved = rlimit()
        XCTAssertEqual(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &saved), 0)
        // The limit is the number of the first free descriptor past `available` free ones.
        var free = 0
        var limit: Int32 = 0
        while true {
            if fcntl(limit, F_GETFD) == -1 && errno == EBADF {
                if free == available { break }
                free += 1
            }
            limit += 1
        }
        var lowered = saved
        lowered.rlim_cur = rlim_t(limit)
        XCTAssertEqual(setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &lowered), 0)
        defer { _ = setrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &saved) }
        return try body()
    }

    /// Asserts that `body` throws `resourcesExhausted` naming `file` and saying what to do.
    private func assertResourcesExhausted<T>(
        naming file: String, _ body: @autoclosure () throws -> T, line: UInt = #line
    ) {
        do {
            _ = try body()
            XCTFail("expected resourcesExhausted", line: line)
        } catch let error as StoreError {
            guard case .resourcesExhausted(let named, _) = error else {
                return XCTFail("expected resourcesExhausted, got \(error)", line: line)
            }
            XCTAssertEqual(named, file, line: line)
            let message = error.errorDescription ?? ""
            XCTAssertTrue(message.contains("too many files open"), message, line: line)
            XCTAssertTrue(message.contains("ulimit -n"), message, line: line)
            XCTAssertTrue(message.contains("this is not damage"), message, line: line)
        } catch {
            XCTFail("expected resourcesExhausted, got \(error)", line: line)
        }
    }

    /// Two descriptors left (the lock takes them: the folder's and `cipherdex.lock`'s): the
    /// metadata cannot be opened.
    func testNoDescriptorForTheMetadataIsResourcesExhaustedAndChangesNothing() throws {
        try makeStore()
        let before = TestSupport.snapshot(path)
        try withOpenFiles(available: 2) {
            assertResourcesExhausted(
                naming: path + "/metadata.json",
                try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))))
        }
        XCTAssertEqual(TestSupport.snapshot(path), before)
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        XCTAssertEqual(try store.verify().problems, [])
    }

    /// Three descriptors left (the lock's two, and one the metadata and the database's first
    /// check take in turn): the database's writer cannot open its index and log.
    func testNoDescriptorForTheDatabaseIsResourcesExhaustedAndChangesNothing() throws {
        try makeStore()
        let before = TestSupport.snapshot(path)
        try withOpenFiles(available: 3) {
            assertResourcesExhausted(
                naming: path + "/store.db", try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1))))
        }
        XCTAssertEqual(TestSupport.snapshot(path), before)
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        XCTAssertEqual(try store.collection("notes").get(id: "one")?.id, "one")
    }

    /// `verify` that cannot open an attachment's file throws, naming it: it is not a problem of
    /// the store (it was listed as one, and the CLI said `storeCorrupted`). Unencrypted, so that
    /// no page check opens the database's files first.
    func testVerifyThatCannotOpenAnAttachmentThrowsInsteadOfReportingIt() throws {
        try makeStore(key: nil)
        let store = try Store.open(TestSupport.configuration(path, key: nil))
        defer { store.close() }
        // Once, so that the readers it uses are open.
        XCTAssertEqual(try store.verify().problems, [])
        let attachment = try XCTUnwrap(FileManager.default.contentsOfDirectory(atPath: path + "/attachments").first)
        try withOpenFiles(available: 0) {
            assertResourcesExhausted(naming: path + "/attachments/" + attachment, try store.verify())
        }
        XCTAssertEqual(try store.verify().problems, [])
    }

    /// `verify` that cannot list `attachments/` throws, naming it, rather than saying that no
    /// file there is unrecorded without having looked (it said ok over an unrecorded file).
    func testVerifyThatCannotListTheAttachmentsFolderThrowsInsteadOfSayingOk() throws {
        let store = try Store.open(TestSupport.configuration(path, key: nil))
        defer { store.close() }
        try FileManager.default.createDirectory(atPath: path + "/attachments", withIntermediateDirectories: true)
        let stray = path + "/attachments/" + String(repeating: "ab", count: 16)
        XCTAssertTrue(FileManager.default.createFile(atPath: stray, contents: Data("stray".utf8)))
        XCTAssertEqual(try store.verify().problems.count, 1, "the unrecorded file is a problem")
        try withOpenFiles(available: 0) {
            assertResourcesExhausted(naming: path + "/attachments", try store.verify())
        }
    }
}

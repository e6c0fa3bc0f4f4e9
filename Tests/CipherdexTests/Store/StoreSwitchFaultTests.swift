import Foundation
import Synchronization
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

#if canImport(Glibc)
    import Glibc
#endif

/// A real error (not a kill) in the last steps of a change that switches files by a rename: a
/// failure before the rename leaves the old state and nothing of the new; a failure after it
/// (the folder's fsync) leaves the new state in place, never removes it, and says so.
final class StoreSwitchFaultTests: XCTestCase {
    private let failure = SystemError(operation: "fsync", path: "/folder", errno: EIO)

    private func opens(_ path: String, _ key: @escaping KeyProvider) -> Bool {
        guard let store = try? Store.open(TestSupport.configuration(path, key: key)) else { return false }
        store.close()
        return true
    }

    private func populate(_ path: String) throws {
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { store.close() }
        try store.createCollection("notes").insert(JSONValue.object(["body": .string("kept")]), id: "a")
        _ = try store.addAttachment(Data("attachment body".utf8), contentType: "text/plain")
    }

    private func documentIDs(_ path: String, key: @escaping KeyProvider) throws -> [String] {
        let store = try Store.open(TestSupport.configuration(path, key: key))
        defer { store.close() }
        let report = try store.verify()
        XCTAssertTrue(report.isHealthy, "\(report.problems)")
        return try store.collection("notes").find(where: []).map(\.id).sorted()
    }

    private func assertIOError<T>(_ expression: @autoclosure () throws -> T, saying text: String?) {
        XCTAssertThrowsError(try expression()) { error in
            guard case StoreError.ioError(_, let reason) = error else { return XCTFail("\(error)") }
            // The advice is said once, by the outer error's description, never inside its reason.
            XCTAssertFalse(reason.contains("the disk or file system is failing"), reason)
            if let text {
                XCTAssertTrue(reason.contains(text), reason)
            } else {
                XCTAssertFalse(reason.contains("durable"), reason)
            }
        }
    }

    func testAConversionFailingAfterItsSwitchKeepsTheNewGeneration() throws {
        let template = TestSupport.temporaryPath()
        try populate(template)
        for (step, switched) in [(AtomicWriteStep.temporarySynced, false), (.renamed, true)] {
            let path = TestSupport.temporaryPath()
            TestSupport.copyDirectory(template, to: path)
            assertIOError(
                try Store.convert(
                    TestSupport.searchConfiguration(path, key: TestSupport.rawKey(1)),
                    target: .encrypted(TestSupport.rawKey(2)), progress: nil,
                    faultPoint: { if $0 == .metadata(step) { throw self.failure } }),
                saying: switched ? "only the new key opens it" : nil)
            XCTAssertEqual(opens(path, TestSupport.rawKey(1)), !switched, "old key after \(step)")
            XCTAssertEqual(opens(path, TestSupport.rawKey(2)), switched, "new key after \(step)")
            XCTAssertEqual(try documentIDs(path, key: switched ? TestSupport.rawKey(2) : TestSupport.rawKey(1)), ["a"])
            XCTAssertEqual(
                FileSystem.contents(of: path).filter { $0.contains(".tmp-") }, [], "no temporary metadata")
        }
    }

    func testAKeyChangeFailingAfterItsRenameSaysItIsInEffect() throws {
        let path = TestSupport.temporaryPath()
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        assertIOError(
            try store.addKeyslot(label: nil, faultPoint: { if $0 == .renamed { throw self.failure } }) {
                try EncryptionKey.raw(TestSupport.rawKeyBytes(3))
            }, saying: "the key change is in effect")
        XCTAssertEqual(try store.keyslots().map(\.id), [1, 2])
        assertIOError(
            try store.removeKeyslot(1, faultPoint: { if $0 == .temporaryWritten { throw self.failure } }), saying: nil)
        XCTAssertEqual(try store.keyslots().map(\.id), [1, 2])
        store.close()
        XCTAssertTrue(opens(path, TestSupport.rawKey(1)))
        XCTAssertTrue(opens(path, TestSupport.rawKey(3)))
    }

    func testABackupFailingAfterItsSwitchKeepsTheNewCopy() throws {
        for fresh in [true, false] {
            let path = TestSupport.temporaryPath()
            try populate(path)
            let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
            defer { store.close() }
            let destination = TestSupport.temporaryPath("backup")
            if !fresh { try store.backup(to: destination) }
            try store.collection("notes").insert(JSONValue.object([:]), id: "b")
            assertIOError(
                try store.backup(
                    to: destination, replacingAnotherStore: false, progress: nil, cancellation: nil,
                    faultPoint: { if $0 == .metadata(.renamed) { throw self.failure } }),
                saying: "complete and in place")
            XCTAssertEqual(try documentIDs(destination, key: TestSupport.rawKey(1)), ["a", "b"], "fresh: \(fresh)")
            try store.backup(to: destination)
            XCTAssertEqual(FileSystem.contents(of: destination).filter { $0.hasPrefix("store.") }.count, 1)
        }
    }

    func testACreateFailingAfterItsMetadataLeavesNothing() throws {
        let calls = Mutex(0)
        let failing = StoreFeature(
            identifier: "failing", reservedVersions: [], migrations: [],
            configureConnection: { _ in
                // The creating connection is the first; the open after the metadata the second.
                let call = calls.withLock { count in
                    count += 1
                    return count
                }
                if call == 2 { throw StoreError.diskFull(path: "/store") }
            })
        let path = TestSupport.temporaryPath()
        var configuration = TestSupport.configuration(path, key: TestSupport.rawKey(1))
        configuration.features = [failing]
        XCTAssertThrowsCase("diskFull", try Store.open(configuration, cancellation: nil))
        XCTAssertFalse(FileSystem.exists(path), "\(FileSystem.contents(of: path))")
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        store.close()
    }

    /// A change made whose folder's sync failed for a full disk or a permission keeps that
    /// cause's case (inside `notDurable`, which the CLI reports with the cause's code and exit
    /// status) and says the change is made; it was `ioError`, "the disk or file system is failing".
    func testAChangeNotMadeDurableForAFullDiskOrAPermissionKeepsItsCause() throws {
        for (code, expected) in [(ENOSPC, "diskFull"), (EACCES, "permissionDenied")] {
            let failure = SystemError(operation: "fsync", path: "/folder", errno: code)
            func check<T>(_ expression: @autoclosure () throws -> T, saying text: String) {
                XCTAssertThrowsError(try expression()) { error in
                    guard case StoreError.notDurable(_, let change, let cause) = error else {
                        return XCTFail("\(error)")
                    }
                    XCTAssertEqual(cause.name, expected)
                    XCTAssertTrue(change.contains(text), change)
                    let description = (error as? StoreError)?.errorDescription ?? ""
                    XCTAssertTrue(description.contains("The change is made"), description)
                    XCTAssertFalse(description.contains("failing"), description)
                }
            }
            let path = TestSupport.temporaryPath()
            try populate(path)
            let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
            defer { store.close() }
            check(
                try store.backup(
                    to: TestSupport.temporaryPath("backup"), replacingAnotherStore: false, progress: nil,
                    cancellation: nil, faultPoint: { if $0 == .metadata(.renamed) { throw failure } }),
                saying: "complete and in place")
            check(
                try store.addKeyslot(label: nil, faultPoint: { if $0 == .renamed { throw failure } }) {
                    try EncryptionKey.raw(TestSupport.rawKeyBytes(3))
                }, saying: "the key change is in effect")
        }
    }
}

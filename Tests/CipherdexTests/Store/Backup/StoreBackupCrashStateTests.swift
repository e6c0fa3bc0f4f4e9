import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// A backup interrupted at each of its steps (an injected crash: nothing cleaned up, as after a
/// kill) leaves the previous backup before the switch and the new one after it; the next open
/// or backup removes what the interrupted one left.
final class StoreBackupCrashStateTests: XCTestCase {
    private func documentIDs(_ path: String) throws -> [String] {
        let backup = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
        defer { backup.close() }
        XCTAssertTrue(try backup.verify().isHealthy)
        return try backup.collection("notes").find(where: []).map(\.id).sorted()
    }

    func testEachStepLeavesThePreviousOrTheNewBackup() throws {
        let steps: [(BackupStep, Bool)] = [
            (.databaseCopied, false), (.attachmentCopied(0), false), (.beforeSwitch, false), (.switched, true),
        ]
        for (step, switched) in steps {
            for fresh in [true, false] {
                let path = TestSupport.temporaryPath()
                _ = try StoreBackupTests.populate(path, key: TestSupport.rawKey(1))
                let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(1)))
                defer { store.close() }
                let destination = TestSupport.temporaryPath("backup")
                if !fresh { try store.backup(to: destination) }
                try store.collection("notes").insert(JSONValue.object([:]), id: "b")
                _ = try store.addAttachment(Data("after the first backup".utf8))
                XCTAssertThrowsError(
                    try store.backup(
                        to: destination, replacingAnotherStore: false, progress: nil, cancellation: nil,
                        faultPoint: { if $0 == step { throw InjectedFault() } })
                ) { XCTAssertTrue($0 is InjectedFault, "\($0)") }
                let label = "\(step), \(fresh ? "new destination" : "incremental")"
                if fresh && !switched {
                    XCTAssertFalse(FileSystem.exists(destination), label)
                } else {
                    XCTAssertEqual(try documentIDs(destination), switched ? ["a", "b"] : ["a"], label)
                }
                // The next backup starts from this state and leaves one generation, no sibling.
                try store.backup(to: destination)
                XCTAssertEqual(try documentIDs(destination), ["a", "b"], label)
                let names = FileSystem.contents(of: destination)
                XCTAssertEqual(names.filter { $0.hasPrefix("store.") }.count, 1, "\(label): \(names)")
                XCTAssertEqual(
                    FileSystem.contents(of: FileSystem.parent(of: destination)).filter { $0.contains(".backup-") }, [],
                    label)
            }
        }
    }
}

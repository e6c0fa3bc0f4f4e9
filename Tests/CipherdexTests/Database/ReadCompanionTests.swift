import CipherdexTestSupport
import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import CipherdexStore

/// `ReadCompanion` outside a pool: a helper of an ended read never opens it, and closing waits
/// for an open in progress, so that no connection of it is left once the pool has closed.
final class ReadCompanionTests: XCTestCase {

    private func databasePath() throws -> String {
        let path = TemporaryDirectory.make(prefix: "companion") + "/plain.db"
        let creating = try Connection(path: path, mode: .writer, key: nil, cipher: nil, create: true)
        try creating.execute("CREATE TABLE numbers (n INTEGER)")
        creating.close()
        return path
    }

    func testAHelperOfAnEndedReadNeverOpensIt() throws {
        let path = try databasePath()
        let opens = Atomic<Int>(0)
        let companion = ReadCompanion {
            opens.add(1, ordering: .sequentiallyConsistent)
            return try Connection(path: path, mode: .reader, key: nil, cipher: nil)
        }
        let read = companion.begin()
        companion.end()
        XCTAssertFalse(try companion.read(during: read) { _ in XCTFail("an ended read's helper read") })
        XCTAssertEqual(opens.load(ordering: .sequentiallyConsistent), 0)
        let next = companion.begin()
        XCTAssertFalse(try companion.read(during: read) { _ in XCTFail("an earlier read's helper read") })
        XCTAssertTrue(try companion.read(during: next) { _ in })
        XCTAssertEqual(opens.load(ordering: .sequentiallyConsistent), 1)
        companion.end()
        companion.close()
        XCTAssertEqual(TestSupport.openDescriptors(of: path), 0)
    }

    func testClosingWaitsForAnOpenInProgress() throws {
        let path = try databasePath()
        let entered = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let companion = ReadCompanion {
            entered.signal()
            release.wait()
            return try Connection(path: path, mode: .reader, key: nil, cipher: nil)
        }
        let read = companion.begin()
        let helperDone = DispatchSemaphore(value: 0)
        let helperRead = Atomic<Bool>(true)
        DispatchQueue.global().async {
            let ran = (try? companion.read(during: read) { _ in }) ?? true
            helperRead.store(ran, ordering: .sequentiallyConsistent)
            helperDone.signal()
        }
        entered.wait()
        companion.end()
        let closed = Atomic<Bool>(false)
        let closing = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            companion.close()
            closed.store(true, ordering: .sequentiallyConsistent)
            closing.signal()
        }
        usleep(100_000)
        XCTAssertFalse(closed.load(ordering: .sequentiallyConsistent), "close waits for the open")
        release.signal()
        closing.wait()
        helperDone.wait()
        XCTAssertFalse(helperRead.load(ordering: .sequentiallyConsistent), "the read had ended: nothing read")
        XCTAssertEqual(TestSupport.openDescriptors(of: path), 0, "the connection opened meanwhile is closed")
        XCTAssertFalse(try companion.read(during: read) { _ in })
    }
}

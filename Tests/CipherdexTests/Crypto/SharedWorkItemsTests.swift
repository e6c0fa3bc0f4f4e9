import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import CipherdexStore

/// `SharedWorkItems`: the caller of a shared piece of work waits only for items another thread
/// took, never for a helper that has not started; every item is done exactly once.
final class SharedWorkItemsTests: XCTestCase {
    func testTheCallerDoesNotWaitForAHelperThatHasNotStarted() {
        let items = SharedWorkItems(count: 64)
        let helperMayStart = DispatchSemaphore(value: 0)
        let helperTook = Atomic<Int>(-1)
        let helperDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            helperMayStart.wait()  // a helper whose turn comes late
            var took = 0
            while items.take() != nil {
                took += 1
                items.finish()
            }
            helperTook.store(took, ordering: .relaxed)
            helperDone.signal()
        }
        let started = Date()
        while items.take() != nil { items.finish() }
        items.waitUntilFinished()
        XCTAssertLessThan(Date().timeIntervalSince(started), 5, "returned without the helper")
        helperMayStart.signal()
        helperDone.wait()
        XCTAssertEqual(helperTook.load(ordering: .relaxed), 0, "a late helper finds nothing left")
    }

    func testTheCallerWaitsForAnItemAnotherThreadIsStillDoing() {
        let items = SharedWorkItems(count: 8)
        let results = Mutex([Int](repeating: 0, count: 8))
        let helperHasOne = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            guard let item = items.take() else {
                helperHasOne.signal()
                return
            }
            helperHasOne.signal()
            usleep(200_000)
            results.withLock { $0[item] += 1 }
            items.finish()
        }
        helperHasOne.wait()
        while let item = items.take() {
            results.withLock { $0[item] += 1 }
            items.finish()
        }
        items.waitUntilFinished()
        XCTAssertEqual(results.withLock { $0 }, Array(repeating: 1, count: 8), "the helper's item is done too")
    }

    func testManyThreadsDoEveryItemExactlyOnce() {
        for count in [0, 1, 2, 7, 1000] {
            let items = SharedWorkItems(count: count)
            let done = Mutex([Int](repeating: 0, count: count))
            let group = DispatchGroup()
            for _ in 0..<4 {
                DispatchQueue.global().async(group: group) {
                    while let item = items.take() {
                        done.withLock { $0[item] += 1 }
                        items.finish()
                    }
                }
            }
            while let item = items.take() {
                done.withLock { $0[item] += 1 }
                items.finish()
            }
            items.waitUntilFinished()
            XCTAssertEqual(done.withLock { $0 }, Array(repeating: 1, count: count), "\(count) items")
            group.wait()
        }
    }
}

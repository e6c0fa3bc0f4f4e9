import Dispatch
import Synchronization
import XCTest

@testable import Cipherdex

/// `HandOffQueue`: every item processed exactly once, by whichever thread took it; the producer
/// never waits for a helper that has not started; the first failure is the one thrown.
final class HandOffQueueTests: XCTestCase {
    /// A count shared with the helper thread.
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
    }

    /// Items put in bursts while a helper processes them (some slowly): each output once.
    func testEveryItemIsProcessedOnceWhateverThreadTakesIt() throws {
        for round in 0..<40 {
            let queue = HandOffQueue<Int, Int>()
            let helperItems = Counter()
            let helperReturned = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                queue.serve { item in
                    helperItems.value.add(1, ordering: .relaxed)
                    if item % 97 == 0 { usleep(50) }
                    return item * 3
                }
                helperReturned.signal()
            }
            let count = [0, 1, 7, 500, 3_000][round % 5]
            for item in 0..<count {
                queue.put(item)
                if item % 251 == 0 { usleep(100) }
            }
            queue.close()
            let outputs = try queue.finish { $0 * 3 }
            XCTAssertEqual(outputs.sorted(), (0..<count).map { $0 * 3 }, "round \(round)")
            // The helper returns once the queue is closed and empty.
            XCTAssertEqual(helperReturned.wait(timeout: .now() + 10), .success, "round \(round)")
            XCTAssertLessThanOrEqual(helperItems.value.load(ordering: .relaxed), count)
        }
    }

    /// A helper that never starts: the producer does everything and does not wait.
    func testTheProducerDoesEverythingWhenNoHelperStarts() throws {
        let queue = HandOffQueue<Int, String>()
        for item in 0..<100 { queue.put(item) }
        queue.close()
        let outputs = try queue.finish { String($0) }
        XCTAssertEqual(Set(outputs), Set((0..<100).map(String.init)))
        // A helper that starts late finds nothing and returns at once without processing.
        var processed = 0
        queue.serve { item in
            processed += 1
            return String(item)
        }
        XCTAssertEqual(processed, 0)
    }

    /// A producer told to stop while finishing drops what is not taken and waits only for the
    /// helper's item in hand: it returns, with the outputs of the items processed.
    func testAProducerThatStopsWhileFinishingDropsTheRest() throws {
        for withHelper in [false, true] {
            let queue = HandOffQueue<Int, Int>()
            let helperReturned = DispatchSemaphore(value: 0)
            if withHelper {
                DispatchQueue.global().async {
                    queue.serve { item in
                        usleep(2_000)
                        return item
                    }
                    helperReturned.signal()
                }
            }
            for item in 0..<1_000 { queue.put(item) }
            queue.close()
            var asked = 0
            let outputs = try queue.finish(
                stoppingWhen: {
                    asked += 1
                    return asked > 10
                },
                { $0 })
            XCTAssertGreaterThanOrEqual(outputs.count, 10)
            XCTAssertLessThan(outputs.count, 100, "the items left were dropped, with a helper: \(withHelper)")
            XCTAssertEqual(Set(outputs).count, outputs.count)
            if withHelper { XCTAssertEqual(helperReturned.wait(timeout: .now() + 10), .success) }
        }
    }

    /// Cancelled work: items not taken are dropped, those taken are finished and returned.
    func testDiscardedItemsAreNotProcessed() throws {
        let queue = HandOffQueue<Int, Int>()
        for item in 0..<50 { queue.put(item) }
        queue.close()
        queue.discardUntaken()
        XCTAssertEqual(try queue.finish { $0 }, [])
    }

    /// A failing item, on either thread: the first failure is thrown and no output is returned.
    func testTheFirstFailureIsThrown() {
        struct Refused: Error, Equatable { let item: Int }
        for helperStarts in [false, true] {
            let queue = HandOffQueue<Int, Int>()
            let helperReturned = DispatchSemaphore(value: 0)
            if helperStarts {
                DispatchQueue.global().async {
                    queue.serve { item in
                        if item == 300 { throw Refused(item: item) }
                        return item
                    }
                    helperReturned.signal()
                }
            }
            for item in 0..<600 { queue.put(item) }
            queue.close()
            XCTAssertThrowsError(
                try queue.finish { item in
                    if item == 300 { throw Refused(item: item) }
                    return item
                }
            ) { error in
                XCTAssertEqual(error as? Refused, Refused(item: 300))
            }
            if helperStarts { XCTAssertEqual(helperReturned.wait(timeout: .now() + 10), .success) }
        }
    }
}

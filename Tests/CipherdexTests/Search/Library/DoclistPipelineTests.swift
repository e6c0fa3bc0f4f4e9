import Foundation
import Synchronization
import XCTest

@testable import Cipherdex

/// `DoclistPipeline`: doclists decoded in the order read, by one thread at a time, whether the
/// helper runs, starts late, never starts, or a doclist does not parse.
final class DoclistPipelineTests: XCTestCase {
    /// What the consumer saw, in order (it runs on one thread at a time, so no lock is needed
    /// for correctness; the box only carries the values across threads).
    private final class Seen: @unchecked Sendable {
        var items: [[UInt8]] = []
        var threads: Set<UInt> = []
    }

    /// Doclists of varied sizes, each recognisable by its bytes.
    private func doclists(_ count: Int) -> [[UInt8]] {
        var state: UInt64 = 5
        return (0..<count).map { index in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let size = Int(state >> 33) % 3001
            return (0..<size).map { UInt8(truncatingIfNeeded: $0 &+ index) } + [UInt8(truncatingIfNeeded: index)]
        }
    }

    private func run(
        _ lists: [[UInt8]], pipeline make: (Seen) -> DoclistPipeline
    ) -> (delivered: [Bool], finished: Bool, seen: Seen) {
        let seen = Seen()
        let pipeline = make(seen)
        var delivered: [Bool] = []
        for list in lists {
            let result = list.withUnsafeBytes { pipeline.deliver([UInt8(ascii: "t")], $0) }
            delivered.append(result)
            if !result { break }
        }
        return (delivered, pipeline.finish(), seen)
    }

    private func consumer(_ seen: Seen, failAt: Int? = nil) -> DoclistPipeline.Consumer {
        { term, doclist in
            XCTAssertEqual(term, [UInt8(ascii: "t")])
            seen.items.append(Array(doclist))
            seen.threads.insert(UInt(pthread_self()))
            return failAt.map { seen.items.count <= $0 } ?? true
        }
    }

    func testEveryDoclistIsDecodedInTheOrderRead() {
        let lists = doclists(400)
        for handOff in [0, 1500, .max] {
            let (delivered, finished, seen) = run(lists) {
                DoclistPipeline(handOffBytes: handOff, consume: consumer($0))
            }
            XCTAssertTrue(finished, "hand-off from \(handOff)")
            XCTAssertEqual(delivered, Array(repeating: true, count: lists.count))
            XCTAssertEqual(seen.items, lists, "hand-off from \(handOff): in the order read")
        }
        // A helper on a thread of its own (whichever of it and the reader decodes, the order holds).
        let (_, _, seen) = run(lists) { seen in
            DoclistPipeline(
                handOffBytes: 0, startHelper: { work in Thread { work() }.start() }, consume: consumer(seen))
        }
        XCTAssertEqual(seen.items, lists)
    }

    func testAHelperThatNeverStartsLeavesTheWorkToTheReader() {
        let lists = doclists(200)
        let parked = Mutex<[@Sendable () -> Void]>([])
        let (_, finished, seen) = run(lists) { seen in
            DoclistPipeline(
                handOffBytes: 0, startHelper: { work in parked.withLock { $0.append(work) } }, consume: consumer(seen))
        }
        XCTAssertTrue(finished)
        XCTAssertEqual(seen.items, lists, "the reader decoded everything, in order")
        XCTAssertEqual(seen.threads, [UInt(pthread_self())])
        // The helper's turn comes after all: it finds its work cancelled and decodes nothing.
        for work in parked.withLock({ $0 }) { work() }
        XCTAssertEqual(seen.items.count, lists.count)
    }

    func testAFullQueueWithAHelperNotStartedIsTakenOver() {
        let lists = doclists(300)
        let parked = Mutex<[@Sendable () -> Void]>([])
        let (delivered, finished, seen) = run(lists) { seen in
            DoclistPipeline(
                handOffBytes: 0, maximumQueuedBytes: 20_000,
                startHelper: { work in parked.withLock { $0.append(work) } }, consume: consumer(seen))
        }
        XCTAssertTrue(finished)
        XCTAssertEqual(delivered.count, lists.count)
        XCTAssertEqual(seen.items, lists)
        XCTAssertEqual(parked.withLock { $0.count }, 1, "no hand-off again after taking over")
        for work in parked.withLock({ $0 }) { work() }
        XCTAssertEqual(seen.items.count, lists.count)
    }

    func testASlowHelperHoldsTheQueueToItsBound() {
        let lists = doclists(120)
        let (_, finished, seen) = run(lists) { seen in
            let consume = consumer(seen)
            return DoclistPipeline(handOffBytes: 0, maximumQueuedBytes: 8_000) { term, doclist in
                usleep(200)
                return consume(term, doclist)
            }
        }
        XCTAssertTrue(finished)
        XCTAssertEqual(seen.items, lists)
    }

    func testADoclistThatDoesNotParseStopsTheRest() {
        let lists = doclists(300)
        for handOff in [0, .max] {
            let (delivered, finished, seen) = run(lists) {
                DoclistPipeline(handOffBytes: handOff, consume: consumer($0, failAt: 100))
            }
            XCTAssertFalse(finished, "hand-off from \(handOff)")
            XCTAssertEqual(seen.items, Array(lists.prefix(101)), "nothing decoded past the failure")
            if handOff == .max {
                // Decoded as read: the failing doclist's delivery says so, and the reader stops.
                XCTAssertEqual(delivered.count, 101)
                XCTAssertEqual(delivered.last, false)
            }
        }
    }
}

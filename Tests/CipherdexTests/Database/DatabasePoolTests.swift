import Dispatch
import Foundation
import Synchronization
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `DatabasePool` with no reader connection (`StoreConfiguration.readsOnWriter`, the CLI's
/// `search`): reads run on the writer's connection, as a reader would read.
final class DatabasePoolTests: XCTestCase {
    private func store(readsOnWriter: Bool) throws -> Store {
        var configuration = TestSupport.configuration(TestSupport.temporaryPath(), key: TestSupport.rawKey(3))
        configuration.readsOnWriter = readsOnWriter
        let store = try Store.open(configuration)
        try store.write { db in
            try db.execute("CREATE TABLE numbers (n INTEGER)")
            try db.execute("INSERT INTO numbers (n) VALUES (1), (2)")
        }
        return store
    }

    func testNoReadersReadThroughTheWriterAsAReaderWould() throws {
        let store = try store(readsOnWriter: true)
        defer { store.close() }
        let database = store.layout.database
        let (count, queryOnly, connections) = try store.read { db in
            (
                try db.scalar("SELECT count(*) FROM numbers")?.integerValue,
                try db.scalar("PRAGMA query_only")?.integerValue, TestSupport.openDescriptors(of: database)
            )
        }
        XCTAssertEqual(count, 2)
        XCTAssertEqual(queryOnly, 1, "the read cannot write, as on a reader connection")
        XCTAssertEqual(connections, 1, "no reader connection was opened")
        // The writer writes again after the read.
        try store.write { db in try db.execute("INSERT INTO numbers (n) VALUES (3)") }
        XCTAssertEqual(try store.read { try $0.scalar("SELECT count(*) FROM numbers")?.integerValue }, 3)
        XCTAssertThrowsError(try store.read { db in try db.execute("INSERT INTO numbers (n) VALUES (4)") })
        try store.write { db in try db.execute("INSERT INTO numbers (n) VALUES (5)") }
        XCTAssertEqual(try store.read { try $0.scalar("SELECT sum(n) FROM numbers")?.integerValue }, 11)

        let pooled = try self.store(readsOnWriter: false)
        defer { pooled.close() }
        let pooledDatabase = pooled.layout.database
        let pooledConnections = try pooled.read { (_: Connection) -> Int in
            TestSupport.openDescriptors(of: pooledDatabase)
        }
        XCTAssertEqual(pooledConnections, 2, "a reader of its own beside the writer")
    }

    /// A read inside a read on the same thread joins it (same connection and snapshot, no second
    /// slot): with one reader slot it returns, and with every slot held by a thread doing the
    /// same, all return (each waited for a second slot for ever).
    func testAReadInsideAReadJoinsItAndTakesNoSecondSlot() throws {
        var configuration = TestSupport.configuration(TestSupport.temporaryPath(), key: TestSupport.rawKey(3))
        configuration.maximumReaders = 1
        let store = try Store.open(configuration)
        defer { store.close() }
        try store.write { db in
            try db.execute("CREATE TABLE numbers (n INTEGER)")
            try db.execute("INSERT INTO numbers (n) VALUES (1), (2)")
        }
        let notes = try store.createCollection("notes")
        try notes.insert(JSONValue.object(["n": .string("1")]), id: "one")
        let outcome = Mutex<[String]>([])
        // Four threads at once (each waited for a second slot for ever before); a hang fails the
        // test run by its timeout.
        DispatchQueue.concurrentPerform(iterations: 4) { _ in
            do {
                for _ in 0..<200 {
                    let problem = try Self.nestedReadProblem(store, notes)
                    if let problem { outcome.withLock { $0.append(problem) } }
                }
            } catch {
                outcome.withLock { $0.append("\(error)") }
            }
        }
        XCTAssertEqual(outcome.withLock { $0 }, [], "the inner read saw the outer's snapshot")
    }

    /// A read during which a document is written, reading inside itself twice: what differs
    /// between the reads (nil when the inner ones saw the outer's snapshot).
    private static func nestedReadProblem(_ store: Store, _ notes: DocumentCollection) throws -> String? {
        func count(_ db: Connection) throws -> Int64? {
            try db.scalar("SELECT count(*) FROM documents")?.integerValue
        }
        func document(_ snapshot: StoreSnapshot) throws -> JSONValue? {
            try notes.get(id: "one")?[path: "n"]
        }
        func outer(_ db: Connection) throws -> String? {
            let before = try count(db)
            try notes.insert(JSONValue.object(["n": .string("2")]), id: UUID().uuidString)
            let inner: Int64? = try store.read(count)
            let found: JSONValue? = try store.read(document)
            if before != inner { return "inner \(String(describing: inner)), outer \(String(describing: before))" }
            if found != .string("1") { return "document \(String(describing: found))" }
            return nil
        }
        return try store.read(outer)
    }

    func testAReadInsideAWriteReadsThroughThatWrite() throws {
        let store = try store(readsOnWriter: true)
        defer { store.close() }
        let seen = try store.write { db in
            try db.transaction {
                try db.execute("INSERT INTO numbers (n) VALUES (10)")
                return try store.read { try $0.scalar("SELECT count(*) FROM numbers")?.integerValue }
            }
        }
        XCTAssertEqual(seen, 3, "the write's own row, not yet committed")
    }

    func testReadsOnTheWriterReadFTS4SegmentsDirectly() throws {
        let path = TestSupport.temporaryPath()
        var configuration = TestSupport.configuration(path, key: TestSupport.rawKey(3))
        let indexing = try Store.open(configuration)
        try indexing.library.add(
            data: Data("the patient took one dose of the tablets".utf8), uid: "note", fileExtension: "txt")
        try indexing.library.waitUntilIndexed()
        indexing.close()
        configuration.readsOnWriter = true
        let store = try Store.open(configuration)
        defer { store.close() }
        let direct = try store.read { db in
            try TopHits.directRows(try SearchQuery.parse("patient").compiled(), db: db) != nil
        }
        XCTAssertTrue(direct, "the read is query_only, as the direct reader requires")
        XCTAssertEqual(try store.library.search("patient").previews.map(\.uid), ["note"])
    }

    /// A helper of a read on the writer reads through the pool's `ReadCompanion`: a second
    /// connection, `query_only`, seeing the read's rows, opened on first use and kept; only while
    /// that read runs (a helper of an ended read, or of an earlier one, is refused), never on a
    /// pool with readers or for a read inside a write, and closed with the store.
    func testACompanionReadsBesideAReadOnTheWriterAndOnlyDuringIt() throws {
        let store = try store(readsOnWriter: true)
        let database = store.layout.database
        func onHelper<T: Sendable>(_ work: @escaping @Sendable () -> T) -> T {
            let done = DispatchSemaphore(value: 0)
            let result = Mutex<T?>(nil)
            DispatchQueue.global().async {
                result.withLock { $0 = work() }
                done.signal()
            }
            done.wait()
            return result.withLock { $0! }
        }
        let (first, seen) = try store.read { db -> (Int, [Int64?]) in
            let (companion, read) = try XCTUnwrap(db.readCompanion)
            let seen = onHelper { () -> [Int64?] in
                var values: [Int64?] = []
                let ran = try? companion.read(during: read) { connection in
                    values.append(try connection.scalar("SELECT sum(n) FROM numbers")?.integerValue)
                    values.append(try connection.scalar("PRAGMA query_only")?.integerValue)
                    values.append(Int64(TestSupport.openDescriptors(of: database)))
                }
                return ran == true ? values : []
            }
            return (read, seen)
        }
        XCTAssertEqual(seen, [3, 1, 2], "the read's rows, query_only, a second descriptor")
        let companion = try store.read { db in try XCTUnwrap(db.readCompanion).companion }
        XCTAssertFalse(try companion.read(during: first) { _ in XCTFail("an ended read's helper read") })
        XCTAssertNil(companion.runningRead)
        let (second, again) = try store.read { db -> (Int, Bool) in
            let read = try XCTUnwrap(db.readCompanion).read
            let stale = onHelper { (try? companion.read(during: first) { _ in }) ?? true }
            let current = onHelper { (try? companion.read(during: read) { _ in }) ?? false }
            return (read, !stale && current)
        }
        XCTAssertNotEqual(second, first)
        XCTAssertTrue(again, "the current read's helper reads, an earlier one's does not")
        try store.write { db in
            XCTAssertNil(db.readCompanion)
            XCTAssertNil(try store.read { $0.readCompanion }, "a read inside a write has no companion")
        }
        XCTAssertEqual(TestSupport.openDescriptors(of: database), 2, "the companion stays open for the next read")
        store.close()
        XCTAssertEqual(TestSupport.openDescriptors(of: database), 0, "closed with the store")
        XCTAssertFalse(try companion.read(during: second) { _ in })

        let pooled = try self.store(readsOnWriter: false)
        defer { pooled.close() }
        XCTAssertNil(try pooled.read { $0.readCompanion }, "a pool with readers has none")
    }

    /// A read on the writer ends only once its helper's read of the companion is done, so that
    /// no read of the companion overlaps a later write.
    func testAReadEndsOnceItsHelperIsDone() throws {
        let store = try store(readsOnWriter: true)
        defer { store.close() }
        let inside = DispatchSemaphore(value: 0)
        let finished = Atomic<Bool>(false)
        try store.read { db in
            let (companion, read) = try XCTUnwrap(db.readCompanion)
            DispatchQueue.global().async {
                _ = try? companion.read(during: read) { _ in
                    inside.signal()
                    usleep(200_000)
                    finished.store(true, ordering: .sequentiallyConsistent)
                }
            }
            inside.wait()
        }
        XCTAssertTrue(finished.load(ordering: .sequentiallyConsistent), "the read waited for its helper")
        try store.write { db in try db.execute("INSERT INTO numbers (n) VALUES (7)") }
    }
}

import Foundation
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

    /// This process's open descriptors of `path` (a connection holds one on its database).
    private func descriptors(of path: String) -> Int {
        let directory = "/proc/self/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return entries.filter {
            (try? FileManager.default.destinationOfSymbolicLink(atPath: directory + "/" + $0)) == path
        }
        .count
    }

    func testNoReadersReadThroughTheWriterAsAReaderWould() throws {
        let store = try store(readsOnWriter: true)
        defer { store.close() }
        let database = store.layout.database
        let (count, queryOnly, connections) = try store.read { db in
            (
                try db.scalar("SELECT count(*) FROM numbers")?.integerValue,
                try db.scalar("PRAGMA query_only")?.integerValue, descriptors(of: database)
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
        let pooledConnections = try pooled.read { (_: Connection) -> Int in descriptors(of: pooledDatabase) }
        XCTAssertEqual(pooledConnections, 2, "a reader of its own beside the writer")
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
}

import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

final class DocumentCRUDTests: XCTestCase {
    private struct Person: Codable, Equatable {
        struct Address: Codable, Equatable {
            var city: String
            var zip: Int?
        }
        var name: String
        var age: Int
        var score: Double
        var active: Bool
        var tags: [String]
        var address: Address
        var nickname: String?
    }

    private let alice = Person(
        name: "Alice", age: 31, score: 4.5, active: true, tags: ["a", "b"], address: .init(city: "Oslo", zip: 150),
        nickname: nil)

    func testInsertGetUpsertRemoveListAndReopen() throws {
        let path = TestSupport.temporaryPath()
        var store: Store? = try DocumentTestSupport.openStore(path: path)
        let people = try store!.collection("people")
        try people.insert(id: "p1", json: DocumentTestSupport.json(#"{"name":"Ann","age":30,"ok":true}"#))
        try people.insert(id: "p2", value: ["name": "Bob", "nested": ["deep": [1, 2, ["x": nil]]]])
        XCTAssertEqual(try people.get(id: "p1")?.value, ["name": "Ann", "age": 30, "ok": true])
        XCTAssertEqual(try people.get(id: "p1")?[path: "ok"], .bool(true))
        XCTAssertNil(try people.get(id: "nope"))
        XCTAssertEqual(try people.upsert(id: "p1", value: ["name": "Ann", "age": 31]), .update)
        XCTAssertEqual(try people.upsert(id: "p3", json: DocumentTestSupport.json(#"{"name":"Cy"}"#)), .insert)
        XCTAssertEqual(try people.get(id: "p1")?.value, ["name": "Ann", "age": 31])
        XCTAssertEqual(try people.count(), 3)
        XCTAssertEqual(try people.list().map(\.id), ["p1", "p2", "p3"])
        XCTAssertEqual(try people.list(limit: 1, offset: 1).map(\.id), ["p2"])
        XCTAssertEqual(try people.list(limit: 5, offset: 5).map(\.id), [])
        XCTAssertTrue(try people.remove(id: "p2"))
        XCTAssertFalse(try people.remove(id: "p2"))
        XCTAssertEqual(try store!.collectionNames(), ["people"])
        store!.close()
        store = nil

        let reopened = try DocumentTestSupport.openStore(path: path)
        let again = try reopened.collection("people")
        XCTAssertEqual(try again.list().map(\.id), ["p1", "p3"])
        XCTAssertEqual(try again.get(id: "p1")?.value, ["name": "Ann", "age": 31])
        XCTAssertEqual(try reopened.read { try Migrator.currentVersion(of: $0) }, TestSupport.latestSchemaVersion)
    }

    func testCodableRoundTrip() throws {
        let store = try DocumentTestSupport.openStore()
        let people = try store.collection("people")
        try people.insert(alice, id: "alice")
        XCTAssertEqual(try people.get(Person.self, id: "alice"), alice)
        XCTAssertEqual(try people.get(id: "alice")?[path: "address.city"], "Oslo")
        XCTAssertEqual(try people.get(id: "alice")?[path: "active"], .bool(true))
        var older = alice
        older.age = 32
        older.nickname = "Al"
        XCTAssertEqual(try people.upsert(older, id: "alice"), .update)
        XCTAssertEqual(try people.get(Person.self, id: "alice"), older)
        XCTAssertNil(try people.get(Person.self, id: "bob"))
        XCTAssertEqual(try people.find(where: [.equal("age", 32)]).map { try $0.decode(Person.self) }, [older])
    }

    /// `Data` given where a Codable value goes is JSON text (as `insert(id:json:)` takes it), not
    /// a base64 string: README's users pass raw JSON that way.
    func testDataIsTakenAsJSONText() async throws {
        let store = try DocumentTestSupport.openStore()
        let notes = try store.collection("notes")
        let text = #"{"big":12345678901234567890,"name":"Åsa"}"#
        try notes.insert(Data(text.utf8), id: "a")
        try await notes.insertAsync(Data(text.utf8), id: "b")
        XCTAssertEqual(try notes.get(id: "a")?.value, try JSONValue(parsing: Data(text.utf8)))
        XCTAssertEqual(try notes.get(id: "b")?.value, try notes.get(id: "a")?.value)
        XCTAssertEqual(try notes.get(id: "a")?[path: "name"], .string("Åsa"))
        XCTAssertEqual(try notes.upsert(Data(#"{"n":1}"#.utf8), id: "a"), .update)
        XCTAssertEqual(try notes.get(id: "a")?.value, .object(["n": .number(JSONNumber(1))]))
        XCTAssertThrowsError(try notes.insert(Data("{".utf8), id: "c")) {
            XCTAssertEqual(($0 as? DocumentError)?.name, "invalidJSON", "\($0)")
        }
        XCTAssertThrowsError(try notes.insert(Data("[1]".utf8), id: "c")) {
            XCTAssertEqual($0 as? DocumentError, .notAnObject)
        }
        XCTAssertNil(try notes.get(id: "c"))
    }

    func testCollectionsAndIndexesManagement() throws {
        let store = try DocumentTestSupport.openStore()
        let users = try store.createCollection("users", indexedFields: ["age", "address.city"])
        XCTAssertEqual(try users.indexedFields(), ["age", "address.city"])
        try users.insert(id: "u1", value: ["age": 3, "address": ["city": "Rome"]])
        try users.insert(id: "u2", value: ["age": 4])
        try store.collection("logs").insert(id: "l1", value: ["m": "x"])
        XCTAssertEqual(try store.collectionNames(), ["logs", "users"])
        XCTAssertEqual(
            try store.read { try DocumentStorage(db: $0).indexEntryCount(collection: "users", field: "address.city") },
            1)
        try users.createIndex(on: "name")
        try users.dropIndex(on: "age")
        XCTAssertEqual(try users.indexedFields(), ["address.city", "name"])
        XCTAssertEqual(
            try store.read { try DocumentStorage(db: $0).indexEntryCount(collection: "users", field: "age") }, 0)
        XCTAssertTrue(try store.dropCollection("users"))
        XCTAssertFalse(try store.dropCollection("users"))
        XCTAssertEqual(try store.collectionNames(), ["logs"])
        XCTAssertEqual(try store.read { try $0.scalar("SELECT count(*) FROM document_index")?.integerValue }, 0)
        XCTAssertEqual(try store.read { try $0.scalar("SELECT count(*) FROM documents")?.integerValue }, 1)
        XCTAssertDocumentError(.unknownCollection("users"), try users.get(id: "u1"))
    }

    func testEachTypedError() throws {
        let store = try DocumentTestSupport.openStore()
        let items = try store.collection("items")
        // A collection never created: reads fail, nothing is created by them.
        XCTAssertDocumentError(.unknownCollection("items"), try items.get(id: "a"))
        XCTAssertDocumentError(.unknownCollection("items"), try items.find(where: [.equal("a", 1)]))
        XCTAssertDocumentError(.unknownCollection("items"), try items.list())
        XCTAssertDocumentError(.unknownCollection("items"), try items.count())
        XCTAssertDocumentError(.unknownCollection("items"), try items.remove(id: "a"))
        XCTAssertEqual(try store.collectionNames(), [])

        for name in ["", "a b", "x/y", "ü", String(repeating: "n", count: 129)] {
            XCTAssertDocumentError(.invalidCollectionName(name), try store.collection(name))
        }
        // `.` and `..` name no new collection; one an earlier build made is read and dropped.
        for name in [".", ".."] {
            XCTAssertDocumentError(.invalidCollectionName(name), try store.createCollection(name))
            XCTAssertDocumentError(
                .invalidCollectionName(name), try store.collection(name).insert(JSONValue.object([:]), id: "a"))
        }
        try store.write { try $0.execute("INSERT INTO collections (name, indexed_fields) VALUES ('..', '[]')") }
        try store.collection("..").insert(JSONValue.object(["kept": .bool(true)]), id: "a")
        XCTAssertEqual(try store.collection("..").count(), 1)
        XCTAssertTrue(try store.dropCollection(".."))
        XCTAssertNoThrow(try store.collection("Az09_.-" + String(repeating: "n", count: 121)))

        XCTAssertDocumentError(.notAnObject, try items.insert(id: "a", json: DocumentTestSupport.json("[1]")))
        XCTAssertDocumentError(.notAnObject, try items.insert(id: "a", value: 3))
        XCTAssertDocumentError(.notAnObject, try items.insert([1, 2], id: "a"))
        XCTAssertThrowsError(try items.insert(id: "a", json: DocumentTestSupport.json(#"{"k": SECRET}"#))) { error in
            XCTAssertEqual((error as? DocumentError)?.name, "invalidJSON")
            XCTAssertFalse("\(error)".contains("SECRET"))
        }
        XCTAssertNil(JSONNumber(Double.nan), "a JSON value cannot hold a non-finite number")
        XCTAssertDocumentError(.invalidID(reason: "the id is empty"), try items.insert(id: "", value: [:]))
        XCTAssertDocumentError(.invalidID(reason: "the id contains a control character"), try items.get(id: "a\nb"))
        XCTAssertThrowsError(try items.insert(id: String(repeating: "i", count: 513), value: [:]))

        try items.insert(id: "a", value: ["v": 1])
        XCTAssertDocumentError(.duplicateID(collection: "items", id: "a"), try items.insert(id: "a", value: ["v": 2]))
        XCTAssertEqual(try items.get(id: "a")?.value, ["v": 1])

        for path in ["", "a..b", ".a", "a.", "a\u{1}"] {
            XCTAssertDocumentError(.invalidFieldPath(path), try items.find(where: [.equal(path, 1)]))
        }
        XCTAssertDocumentError(.invalidFieldPath("x..y"), try items.find(orderBy: [.ascending("x..y")]))
        XCTAssertDocumentError(.invalidPagination(reason: "negative limit"), try items.find(limit: -1))
        XCTAssertDocumentError(.invalidPagination(reason: "negative offset"), try items.list(offset: -1))

        try items.createIndex(on: "v")
        XCTAssertDocumentError(.indexAlreadyDeclared(collection: "items", field: "v"), try items.createIndex(on: "v"))
        XCTAssertDocumentError(.indexNotDeclared(collection: "items", field: "w"), try items.dropIndex(on: "w"))
        XCTAssertDocumentError(.collectionExists("items"), try store.createCollection("items"))
        XCTAssertDocumentError(
            .indexAlreadyDeclared(collection: "other", field: "a"),
            try store.createCollection("other", indexedFields: ["a", "a"]))

        struct Infinite: Encodable { var x = Double.infinity }
        XCTAssertThrowsError(try items.insert(Infinite(), id: "inf")) { error in
            XCTAssertEqual((error as? DocumentError)?.name, "encodingFailed")
        }
        struct Wrong: Decodable { var v: String }
        XCTAssertDocumentError(.decodingFailed(reason: "expected String at v"), try items.get(Wrong.self, id: "a"))

        var escaped: StoreTransaction?
        try store.transaction { escaped = $0 }
        XCTAssertDocumentError(.transactionNotActive, try escaped!.collection("items"))

        let names = Set(
            [
                DocumentError.invalidJSON(reason: ""), .notAnObject, .unknownCollection(""), .invalidCollectionName(""),
                .collectionExists(""),
                .invalidID(reason: ""), .duplicateID(collection: "", id: ""), .invalidFieldPath(""),
                .indexAlreadyDeclared(collection: "", field: ""),
                .indexNotDeclared(collection: "", field: ""), .invalidPagination(reason: ""),
                .encodingFailed(reason: ""),
                .decodingFailed(reason: ""), .transactionNotActive,
            ].map(\.name))
        XCTAssertEqual(names.count, 14)
    }
}

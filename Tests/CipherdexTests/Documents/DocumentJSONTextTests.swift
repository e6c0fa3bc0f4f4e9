import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// `DocumentCollection.json(id:)` and `findJSON(where:orderBy:limit:)`: the stored text, exactly,
/// without a tree; a stored body that is not a valid object is `storeCorrupted`.
final class DocumentJSONTextTests: XCTestCase {
    /// Documents whose canonical text differs from what was written (order, spacing, escapes,
    /// number spellings), with numbers no double holds and strings of every escape.
    private static let written: [(id: String, text: String)] = [
        (
            "numbers",
            #"{ "z": 12345678901234567890, "a": [1.50, -0, 1E400, 1e-400, 0.1, 9007199254740993, -2.5e+3] }"#
        ),
        (
            "strings",
            #"{"s":"q\" b\\ \/ \n\r\t \u0001 \u00e9 e\u0301 \ud83d\ude00 \u2028 \u0085","é":"x","ë":"y","e\u0301x":"z"}"#
        ),
        ("nested", #"{"b":{"y":[{"k":null,"j":true}],"x":{}},"a":[[],[[false]]]}"#),
    ]

    private func filledStore(encrypted: Bool = true) throws -> Store {
        let store = try DocumentTestSupport.openStore(encrypted: encrypted)
        for (id, text) in Self.written {
            try store.collection("c").insert(id: id, json: DocumentTestSupport.json(text))
        }
        return store
    }

    /// The body as stored in the database.
    private func storedBody(_ store: Store, id: String) throws -> Data {
        let body = try store.transaction { tx in
            try tx.connection.rows("SELECT body FROM documents WHERE collection = 'c' AND id = ?", [.text(id)])
        }
        return Data(try XCTUnwrap(body.first?[0].blobValue))
    }

    func testJSONIsTheStoredCanonicalText() throws {
        for encrypted in [true, false] { try checkStoredCanonicalText(encrypted: encrypted) }
    }

    private func checkStoredCanonicalText(encrypted: Bool) throws {
        let store = try filledStore(encrypted: encrypted)
        defer { store.close() }
        let documents = try store.collection("c")
        for (id, _) in Self.written {
            let text = try XCTUnwrap(try documents.json(id: id))
            XCTAssertEqual(text, try storedBody(store, id: id), id)
            XCTAssertEqual(text, Data(try XCTUnwrap(try documents.get(id: id)).value.canonicalBytes), id)
        }
        XCTAssertEqual(
            try documents.json(id: "numbers").map { String(decoding: $0, as: UTF8.self) },
            #"{"a":[1.5,0,1e400,1e-400,0.1,9007199254740993,-2500],"z":12345678901234567890}"#)
        XCTAssertNil(try documents.json(id: "missing"))
        XCTAssertThrowsExactly(DocumentError.unknownCollection("none"), try store.collection("none").json(id: "x"))
        XCTAssertThrowsExactly(
            DocumentError.invalidID(reason: "the id is empty"), try documents.json(id: ""))
    }

    func testJSONInTransactionsSnapshotsAndAsync() async throws {
        let store = try filledStore()
        defer { store.close() }
        let expected = try XCTUnwrap(try store.collection("c").get(id: "strings")).value.canonicalBytes
        XCTAssertThrowsError(
            try store.transaction { tx in
                try tx.collection("c").upsert(id: "strings", json: DocumentTestSupport.json(#"{"new":1}"#))
                XCTAssertEqual(try tx.collection("c").json(id: "strings"), Data(#"{"new":1}"#.utf8), "sees its write")
                throw CancellationError()
            })
        XCTAssertEqual(try store.read { try $0.collection("c").json(id: "strings") }, Data(expected))
        let viaAsync = try await store.collection("c").jsonAsync(id: "strings")
        XCTAssertEqual(viaAsync, Data(expected))
        let found = try await store.collection("c").findJSONAsync(where: [.equal("é", "x")])
        XCTAssertEqual(found, [DocumentJSON(id: "strings", json: Data(expected))])
    }

    func testFindJSONMatchesFind() throws {
        let store = try DocumentTestSupport.openStore()
        defer { store.close() }
        let items = try store.collection("items")
        for n in 0..<40 {
            try items.insert(
                id: "i\(n)", json: DocumentTestSupport.json(#"{"n":\#(n % 7),"m":\#(n).10,"s":"\#(39 - n)"}"#))
        }
        let queries: [([FieldPredicate], [SortKey], Int?)] = [
            ([], [], nil), ([], [], 5), ([.greaterThan("n", 3)], [], nil), ([.equal("n", 2)], [], 2),
            ([.lessThan("m", 20)], [SortKey("s", descending: true)], 4), ([], [SortKey("n"), SortKey("s")], nil),
            ([.equal("missing", 1)], [], nil),
        ]
        for indexed in [false, true] {
            if indexed { try items.createIndex(on: "n") }
            for (predicates, order, limit) in queries {
                let documents = try items.find(where: predicates, orderBy: order, limit: limit)
                let texts = try items.findJSON(where: predicates, orderBy: order, limit: limit)
                XCTAssertEqual(
                    texts.map(\.id), documents.map(\.id), "\(predicates) \(order) \(String(describing: limit))")
                XCTAssertEqual(texts.map(\.json), documents.map { Data($0.value.canonicalBytes) })
            }
        }
        XCTAssertEqual(try store.read { try $0.collection("items").findJSON(limit: 1).map(\.id) }, ["i0"])
        XCTAssertThrowsExactly(DocumentError.invalidPagination(reason: "negative limit"), try items.findJSON(limit: -1))
    }

    /// Bodies no Cipherdex write makes: the text and the tree reads both refuse each.
    func testCorruptBodyIsStoreCorrupted() throws {
        let store = try DocumentTestSupport.openStore()
        defer { store.close() }
        let documents = try store.collection("c")
        try documents.insert(id: "a", value: ["x": 1])
        let corrupt = StoreError.storeCorrupted(reason: "a document body in collection c does not parse")
        let bodies: [SQLValue] = [
            .blob(Array(#"{"x":1"#.utf8)),  // truncated
            .blob(Array(#"{"x":1}x"#.utf8)),  // trailing content
            .blob(Array("[1]".utf8)),  // not an object
            .blob(Array(#" "s""#.utf8)),
            .blob([]),
            .blob([0x7B, 0x22, 0xFF, 0x22, 0x3A, 0x31, 0x7D]),  // invalid UTF-8 in a name
            // Names equal only as Unicode (NFC and NFD): the validator's second pass finds them.
            .blob(Array("{\"\u{E9}\":1,\"e\u{301}\":2}".utf8)),
            .blob(Array("{\"a\":{\"n\u{E9}\":1,\"x\":2,\"ne\u{301}\":3}}".utf8)),
            .text(#"{"x":1}"#),  // a body is always a blob
        ]
        for body in bodies {
            try store.transaction { tx in
                try tx.connection.execute("UPDATE documents SET body = ? WHERE id = 'a'", [body])
            }
            XCTAssertThrowsExactly(corrupt, try documents.json(id: "a"))
            XCTAssertThrowsExactly(corrupt, try documents.get(id: "a"))
            XCTAssertThrowsExactly(corrupt, try documents.findJSON())
            XCTAssertThrowsExactly(corrupt, try documents.find())
        }
    }
}

import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

final class DocumentCanaryTests: XCTestCase {
    private static let canary = "CANARY-7f3a9c-documents"
    private var canaryBytes: [UInt8] { Array(Self.canary.utf8) }

    /// Writes canary-bearing documents (in values, member names, indexed fields and ids), then
    /// updates and removes some of them.
    private func writeCanaries(_ store: Store) throws {
        let secrets = try store.createCollection("secrets", indexedFields: ["label", "nested.note"])
        for n in 0..<40 {
            try secrets.insert(
                id: "\(Self.canary)-\(n)",
                value: [
                    "label": .string("\(Self.canary) \(n)"), "nested": ["note": .string(Self.canary)],
                    .init(stringLiteral: Self.canary): .number(JSONNumber(n)),
                    "pad": .string(String(repeating: "x", count: 300)),
                ])
        }
        for n in 0..<10 { try secrets.upsert(id: "\(Self.canary)-\(n)", value: ["label": "clean"]) }
        for n in 10..<20 { try secrets.remove(id: "\(Self.canary)-\(n)") }
    }

    func testEncryptedStoreNeverWritesDocumentPlaintext() throws {
        let path = TestSupport.temporaryPath()
        let store = try DocumentTestSupport.openStore(path: path)
        try writeCanaries(store)
        XCTAssertEqual(
            try store.collection("secrets").find(where: [.equal("nested.note", .string(Self.canary))]).count, 20)
        // While open (WAL present) and after closing.
        XCTAssertEqual(TestSupport.filesContaining([canaryBytes], under: path), [])
        store.close()
        XCTAssertEqual(TestSupport.filesContaining([canaryBytes], under: path), [])
        let reopened = try DocumentTestSupport.openStore(path: path)
        XCTAssertEqual(try reopened.collection("secrets").count(), 30)
    }

    func testUnencryptedControlAndSecureDelete() throws {
        // The scan does find plaintext in an unencrypted store...
        let path = TestSupport.temporaryPath()
        let store = try DocumentTestSupport.openStore(path: path, encrypted: false)
        try writeCanaries(store)
        store.close()
        XCTAssertFalse(TestSupport.filesContaining([canaryBytes], under: path).isEmpty)
        // ...and removed or overwritten documents leave no trace there (secure_delete).
        let reopened = try DocumentTestSupport.openStore(path: path, encrypted: false)
        XCTAssertTrue(try reopened.dropCollection("secrets"))
        try reopened.collection("clean").insert(id: "x", value: ["label": "nothing to see"])
        reopened.close()
        XCTAssertEqual(TestSupport.filesContaining([canaryBytes], under: path), [])
    }
}

import Foundation
import XCTest

@testable import Cipherdex
@testable import CipherdexStore

/// The split between the store-only `CipherdexStore` product and `Cipherdex` (store + search):
/// what each links, and stores made by one opened by the other.
final class StoreFeatureTests: XCTestCase {
    /// The migration records of a store made with search, exactly as one build recorded them
    /// before the split (versions and names).
    private static let legacyRecords: [[SQLValue]] = [
        [.integer(1), .text("store settings")], [.integer(2), .text("documents")],
        [.integer(3), .text("attachments")], [.integer(4), .text("search index")],
        [.integer(5), .text("exact number index keys")], [.integer(6), .text("attachment removals")],
        [.integer(7), .text("tokenizer revision 2")], [.integer(8), .text("search vocabulary")],
    ]

    /// The records of a store made with search today: the legacy ones, the store's and search's
    /// later ones (in version order).
    private static let currentRecords: [[SQLValue]] =
        legacyRecords + [
            [.integer(9), .text("attachment claims")],
            [.integer(1000), .text("tokenizer revision 3")], [.integer(1001), .text("compressed page text")],
            [.integer(1002), .text("ocr")], [.integer(1003), .text("page text dictionary")],
            [.integer(1004), .text("page lengths")], [.integer(1005), .text("page runs")],
            [.integer(1006), .text("tokenizer revision 4")], [.integer(1007), .text("tokenizer revision 5")],
            [.integer(1008), .text("tokenizer revision 6")], [.integer(1009), .text("tokenizer revision 7")],
        ]

    private func configuration(_ path: String) -> StoreConfiguration {
        TestSupport.configuration(path, key: TestSupport.rawKey(5))
    }

    /// Opens the store with the store's own feature only, as the CipherdexStore product does.
    private func openStoreOnly(_ path: String) throws -> Store {
        try Store.open(configuration(path), features: [])
    }

    private func records(_ store: Store) throws -> [[SQLValue]] {
        try store.read { try $0.rows("SELECT version, name FROM cipherdex_schema ORDER BY version") }
    }

    private func tableExists(_ store: Store, _ name: String) throws -> Bool {
        try store.read {
            try $0.scalar("SELECT count(*) FROM sqlite_master WHERE name = ?", [.text(name)])?.integerValue == 1
        }
    }

    /// A store made with search: one indexed text, one document, one attachment of its own.
    private func makeStoreWithSearch(_ path: String) throws {
        let store = try Store.open(configuration(path))
        defer { store.close() }
        try store.library.add(
            data: Data("the analytical engine weaves algebraic patterns".utf8), uid: "ada.txt", fileExtension: "txt")
        try store.library.waitUntilIndexed()
        try store.createCollection("notes").insert(id: "n1", value: .object(["title": .string("first")]))
        _ = try store.addAttachment(Data("a note's attachment".utf8), contentType: "text/plain")
    }

    // MARK: Linking

    func testStoreOnlyProductLinksNoPopplerGLibOrCairo() throws {
        let probe = TestProducts.url("cipherdex-store-probe").path
        let ldd = try run("/usr/bin/ldd", [probe])
        XCTAssertEqual(ldd.status, 0, ldd.output)
        for library in ["libsqlcipher", "libsodium"] {
            XCTAssertTrue(ldd.output.contains(library), "\(library) missing from:\n\(ldd.output)")
        }
        for library in ["poppler", "libglib", "libgobject", "libgio", "cairo"] {
            XCTAssertFalse(ldd.output.contains(library), "the store-only probe links \(library):\n\(ldd.output)")
        }
        // The check sees these libraries where they are linked: the test bundle (CipherdexPDFWriter,
        // cairo and poppler-glib) has them.
        let tests = try run(
            "/usr/bin/ldd", [try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")])
        XCTAssertTrue(tests.output.contains("libpoppler-glib"), tests.output)
        // The CLI (Cipherdex) loads poppler, GLib and cairo in its extraction helper only (dlopen)
        // and Tesseract when the helper recognises a page: it links none of them.
        let cli = try run("/usr/bin/ldd", [TestProducts.url("cipherdex").path])
        XCTAssertEqual(cli.status, 0, cli.output)
        for library in ["poppler", "libglib", "libgobject", "libgio", "cairo", "libtesseract"] {
            XCTAssertFalse(cli.output.contains(library), "the CLI links \(library):\n\(cli.output)")
        }
    }

    // MARK: Stores across the two products

    func testStoreMadeWithSearchKeepsTheRecordsOfBeforeTheSplit() throws {
        let path = TestSupport.temporaryPath()
        try makeStoreWithSearch(path)
        let store = try Store.open(configuration(path))
        defer { store.close() }
        XCTAssertEqual(try records(store), Self.currentRecords)
        XCTAssertEqual(try store.info().schemaVersion, 1009)
    }

    func testStoreAtVersion8OpensUnchangedByBothProducts() throws {
        let path = TestSupport.temporaryPath()
        try makeStoreWithSearch(path)
        // Once opened and closed with nothing to do (its last session's log checkpointed), the
        // database stays byte for byte the same, whichever product opens it.
        try Store.open(configuration(path)).close()
        let before = TestSupport.snapshot(path)["store.db"]
        try openStoreOnly(path).close()
        XCTAssertTrue(TestSupport.snapshot(path)["store.db"] == before, "opened store-only")
        try Store.open(configuration(path)).close()
        XCTAssertTrue(TestSupport.snapshot(path)["store.db"] == before, "opened with search again")
        let store = try Store.open(configuration(path))
        defer { store.close() }
        XCTAssertEqual(try records(store), Self.currentRecords)
        XCTAssertEqual(try store.library.search("analytical").documents.keys.sorted(), ["ada.txt"])
    }

    func testStoreMadeStoreOnlyGetsSearchWhenOpenedWithIt() throws {
        let path = TestSupport.temporaryPath()
        do {
            let store = try openStoreOnly(path)
            defer { store.close() }
            XCTAssertEqual(try records(store).map { $0[0] }, [1, 2, 3, 5, 6, 9].map { SQLValue.integer($0) })
            XCTAssertFalse(try tableExists(store, "search_documents"))
            XCTAssertFalse(try tableExists(store, "search_text"))
            try store.createCollection("notes").insert(id: "n1", value: .object(["title": .string("kept")]))
        }
        // A wrong key changes nothing, even though search would have migrations to run.
        let before = TestSupport.snapshot(path)
        XCTAssertThrowsError(try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(6)))) {
            XCTAssertEqual($0 as? EncryptionError, .keyInvalid)
        }
        XCTAssertEqual(TestSupport.snapshot(path), before)

        let store = try Store.open(configuration(path))
        defer { store.close() }
        XCTAssertEqual(
            try records(store), Self.currentRecords)
        XCTAssertEqual(try records(store).count, 19)
        XCTAssertTrue(try tableExists(store, "search_text_terms"))
        XCTAssertEqual(try store.collection("notes").get(id: "n1")?.value, .object(["title": .string("kept")]))
        try store.library.add(data: Data("difference engine".utf8), uid: "babbage.txt", fileExtension: "txt")
        try store.library.waitUntilIndexed()
        XCTAssertEqual(try store.library.search("differ").documents.keys.sorted(), ["babbage.txt"])
    }

    func testStoreWithSearchOpensStoreOnlyWithoutTouchingTheIndex() throws {
        let path = TestSupport.temporaryPath()
        try makeStoreWithSearch(path)
        do {
            let store = try openStoreOnly(path)
            defer { store.close() }
            // The index's FTS table cannot be used without search's tokenizer...
            XCTAssertThrowsError(try store.read { try $0.scalar("SELECT count(*) FROM search_text") })
            // ...and nothing store-only touches it.
            XCTAssertEqual(try store.collection("notes").get(id: "n1")?.value, .object(["title": .string("first")]))
            try store.collection("notes").insert(id: "n2", value: .object(["title": .string("second")]))
            let content = Data("written store-only".utf8)
            let token = try store.addAttachment(content)
            XCTAssertEqual(try store.attachmentData(token.id), content)
            XCTAssertEqual(try store.attachmentTokens().count, 3)
            XCTAssertEqual(try store.verify().problems, [])
            XCTAssertEqual(try store.info().schemaVersion, 1009)
            // The index holds an attachment the store-only program cannot see: nothing is
            // taken for unreferenced.
            XCTAssertThrowsError(try store.collectUnreferencedAttachments()) {
                XCTAssertEqual(
                    $0 as? StoreError,
                    .featureUnavailable(
                        operation: "collectUnreferencedAttachments()",
                        versions: [4, 7, 8, 1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009]))
            }
            XCTAssertEqual(try store.attachmentTokens().count, 3)
            XCTAssertEqual(try records(store), Self.currentRecords)
        }
        let store = try Store.open(configuration(path))
        XCTAssertEqual(try store.library.search("algebraic").documents.keys.sorted(), ["ada.txt"])
        XCTAssertEqual(try store.collection("notes").count(), 2)
        XCTAssertEqual(try store.verify().problems, [])
        store.close()
        try Store.delete(at: path)
        XCTAssertFalse(Store.exists(at: path))
    }

    /// A conversion keys search's content hashes again (FORMAT.md 5); a program without search
    /// cannot, so a store-only conversion of a store with an index is refused before anything is
    /// written, and the `Cipherdex` product's conversion still works afterwards.
    func testStoreOnlyConversionOfAStoreWithSearchIsRefused() throws {
        let path = TestSupport.temporaryPath()
        try makeStoreWithSearch(path)
        // (An open's own tidying, an empty staging folder removed, is not the conversion's.)
        try openStoreOnly(path).close()
        let before = TestSupport.snapshot(path)
        let versions = [4, 7, 8, 1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009]
        XCTAssertThrowsError(try Store.reencrypt(configuration(path), features: [], newKey: TestSupport.rawKey(6))) {
            XCTAssertEqual($0 as? StoreError, .featureUnavailable(operation: "reencrypt", versions: versions))
        }
        XCTAssertThrowsError(try Store.decrypt(configuration(path), features: [])) {
            XCTAssertEqual($0 as? StoreError, .featureUnavailable(operation: "decrypt", versions: versions))
        }
        let after = TestSupport.snapshot(path)
        XCTAssertEqual(after.keys.sorted(), before.keys.sorted())
        XCTAssertEqual(after.keys.filter { after[$0] != before[$0] }, [])
        try Store.reencrypt(configuration(path), newKey: TestSupport.rawKey(6))
        let store = try Store.open(TestSupport.configuration(path, key: TestSupport.rawKey(6)))
        defer { store.close() }
        XCTAssertEqual(try store.library.search("algebraic").documents.keys.sorted(), ["ada.txt"])
    }

    func testStoreOnlyProgramOnAStoreWithSearch() throws {
        let path = TestSupport.temporaryPath()
        try makeStoreWithSearch(path)
        let keyFile = path + ".key"
        try Data(TestSupport.rawKeyBytes(5)).write(to: URL(fileURLWithPath: keyFile))
        let probe = try run(TestProducts.url("cipherdex-store-probe").path, [path, keyFile])
        XCTAssertEqual(probe.status, 0, probe.output)
        XCTAssertEqual(
            probe.output.split(separator: "\n").map(String.init),
            [
                "documents: 1", "documents after insert: 2", "attachment read back: true", "attachments: 3",
                "verify: ok", "collect: featureUnavailable", "ok",
            ])
        let store = try Store.open(configuration(path))
        defer { store.close() }
        XCTAssertEqual(try store.library.search("weaves").documents.keys.sorted(), ["ada.txt"])
        XCTAssertEqual(try store.verify().problems, [])
    }

    func testStoreOnlyProbeCollectsOnAStoreWithoutSearch() throws {
        let path = TestSupport.temporaryPath()
        try openStoreOnly(path).close()
        let keyFile = path + ".key"
        try Data(TestSupport.rawKeyBytes(5)).write(to: URL(fileURLWithPath: keyFile))
        let probe = try run(TestProducts.url("cipherdex-store-probe").path, [path, keyFile])
        XCTAssertEqual(probe.status, 0, probe.output)
        XCTAssertTrue(probe.output.contains("collect: removed 1"), probe.output)
    }

    // MARK: Newer schemas

    /// Records a migration `version` as a newer build would have.
    private func recordMigration(_ version: Int, in path: String) throws {
        let store = try Store.open(configuration(path))
        defer { store.close() }
        try store.write {
            try $0.execute(
                "INSERT INTO cipherdex_schema (version, name) VALUES (?, 'from a newer build')", [.int(version)])
        }
    }

    func testNewerMigrationIsRefusedOnlyByTheFeatureThatReservesIt() throws {
        // A newer store migration: both products refuse, changing nothing.
        let newerStore = TestSupport.temporaryPath()
        try makeStoreWithSearch(newerStore)
        try recordMigration(10, in: newerStore)
        var before = TestSupport.snapshot(newerStore)
        XCTAssertThrowsError(try Store.open(configuration(newerStore))) {
            XCTAssertEqual($0 as? EncryptionError, .unsupportedScheme(found: 10, supported: 9))
        }
        XCTAssertThrowsError(try openStoreOnly(newerStore)) {
            XCTAssertEqual($0 as? EncryptionError, .unsupportedScheme(found: 10, supported: 9))
        }
        XCTAssertEqual(TestSupport.snapshot(newerStore), before)

        // A newer search migration: the store-only product opens it, search refuses.
        let newerSearch = TestSupport.temporaryPath()
        try makeStoreWithSearch(newerSearch)
        try recordMigration(1010, in: newerSearch)
        before = TestSupport.snapshot(newerSearch)
        XCTAssertThrowsError(try Store.open(configuration(newerSearch))) {
            XCTAssertEqual($0 as? EncryptionError, .unsupportedScheme(found: 1010, supported: 1009))
        }
        XCTAssertEqual(TestSupport.snapshot(newerSearch), before)
        let storeOnly = try openStoreOnly(newerSearch)
        XCTAssertEqual(try storeOnly.collection("notes").count(), 1)
        storeOnly.close()

        // A migration of a feature no build here knows: both open.
        let unknownFeature = TestSupport.temporaryPath()
        try makeStoreWithSearch(unknownFeature)
        try recordMigration(5000, in: unknownFeature)
        try openStoreOnly(unknownFeature).close()
        let store = try Store.open(configuration(unknownFeature))
        XCTAssertEqual(try store.library.search("engine").documents.keys.sorted(), ["ada.txt"])
        store.close()
    }

    // MARK: Helpers

    private func run(_ executable: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

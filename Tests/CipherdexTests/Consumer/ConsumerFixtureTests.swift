import Foundation
import XCTest

/// The consumer fixture (Tests/Fixtures/ConsumerApp): a package depending on Cipherdex by path,
/// built with plain `swift build`, whose executable — copied to another folder, nothing beside
/// it — creates an encrypted store, indexes a PDF through the isolated helper (itself), finds
/// it, and adds an attachment inside a transaction.
final class ConsumerFixtureTests: XCTestCase {
    func testTheConsumerAppWorksFromACopiedLocation() throws {
        let build = try FixturePackage.build(["--product", "ConsumerApp"])
        XCTAssertEqual(build.status, 0, build.output)
        XCTAssertFalse(build.output.contains("warning:"), build.output)
        guard build.status == 0 else { return }

        let elsewhere = NSTemporaryDirectory() + "cipherdex-consumer-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        for folder in ["/work", "/none"] {
            try FileManager.default.createDirectory(atPath: elsewhere + folder, withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(
            atPath: FixturePackage.scratchPath + "/debug/ConsumerApp", toPath: elsewhere + "/ConsumerApp")
        let started = Date()
        let run = try FixturePackage.run(
            elsewhere + "/ConsumerApp", [elsewhere + "/work"], in: elsewhere,
            environment: ["CIPHERDEX_EXTRACT_HELPER": ""],
            timeout: 60)
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertTrue(run.output.contains("consumer ok"), run.output)
        XCTAssertLessThan(Date().timeIntervalSince(started), 30)
        // Nothing was put beside the copied executable.
        XCTAssertEqual(
            try FileManager.default.contentsOfDirectory(atPath: elsewhere).sorted(), ["ConsumerApp", "none", "work"])

        // With no helper that can run, the first add throws the typed error (no silent failure).
        let none = try FixturePackage.run(
            elsewhere + "/ConsumerApp", [elsewhere + "/none"], in: elsewhere,
            environment: ["CIPHERDEX_EXTRACT_HELPER": "/nonexistent/cipherdex-extract"], timeout: 60)
        XCTAssertEqual(none.status, 1, none.output)
        XCTAssertTrue(none.output.contains("extractionHelperMissing"), none.output)
    }
}

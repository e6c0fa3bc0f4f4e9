import Foundation
import XCTest

/// The consumer fixture (Tests/Fixtures/ConsumerApp): a package depending on Cipherdex by path,
/// built with plain `swift build`, whose executable — copied to another folder, nothing beside
/// it — creates an encrypted store, indexes a PDF through the isolated helper (itself), finds
/// it, and adds an attachment inside a transaction.
final class ConsumerFixtureTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipIf(
            ProcessInfo.processInfo.environment["CIPHERDEX_SANITIZER"] != nil,
            "the fixture is built without a sanitizer; make test runs it")
    }

    /// A debug build, as `swift build` gives.
    func testTheConsumerAppWorksFromACopiedLocation() throws {
        try buildCopyAndRun([], scratchPath: FixturePackage.scratchPath, configuration: "debug")
    }

    /// A release build with the Swift runtime and Foundation linked in (`--static-swift-stdlib`,
    /// what one ships to another machine): their initialisers come after the helper's constructor,
    /// which must run them first (without that the helper died with SIGSEGV).
    func testAStaticallyLinkedReleaseBuildIsItsOwnHelperToo() throws {
        try buildCopyAndRun(
            ["-c", "release", "--static-swift-stdlib"], scratchPath: FixturePackage.scratchPath + "-static",
            configuration: "release")
    }

    /// Builds the app with `arguments`, copies it alone to a new folder and runs it there: once
    /// with the default helper (itself), once with no helper that can run.
    private func buildCopyAndRun(_ arguments: [String], scratchPath: String, configuration: String) throws {
        let started = Date()
        let build = try FixturePackage.build(["--product", "ConsumerApp"] + arguments, scratchPath: scratchPath)
        XCTAssertEqual(build.status, 0, build.output)
        // No warning from Cipherdex or the app (the toolchain's static Foundation makes the linker
        // warn about `mktemp`: not ours).
        let warnings = build.output.split(separator: "\n").filter {
            $0.contains("warning:") && !$0.contains("/swift_static/")
        }
        XCTAssertEqual(warnings, [], build.output)
        guard build.status == 0 else { return }
        print("ConsumerApp \(configuration) \(arguments) built in \(Int(Date().timeIntervalSince(started))) s")

        let elsewhere = NSTemporaryDirectory() + "cipherdex-consumer-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        for folder in ["/work", "/none"] {
            try FileManager.default.createDirectory(atPath: elsewhere + folder, withIntermediateDirectories: true)
        }
        try FileManager.default.copyItem(
            atPath: scratchPath + "/" + configuration + "/ConsumerApp", toPath: elsewhere + "/ConsumerApp")
        let run = try FixturePackage.run(
            elsewhere + "/ConsumerApp", [elsewhere + "/work"], in: elsewhere,
            environment: ["CIPHERDEX_EXTRACT_HELPER": ""], timeout: 60)
        XCTAssertEqual(run.status, 0, run.output)
        XCTAssertTrue(run.output.contains("consumer ok"), run.output)
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

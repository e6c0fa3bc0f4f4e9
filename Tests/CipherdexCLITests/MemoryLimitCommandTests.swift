import Foundation
import XCTest

/// A passphrase keyslot whose Argon2id memory the process may not have (an address-space limit,
/// `ulimit -v`) is `resourcesExhausted`, exit 22: it was `metadataCorrupt`, exit 14, which the
/// README's own example answers by restoring a backup over good data (environment audit 28).
final class MemoryLimitCommandTests: XCTestCase {
    func testArgon2idOutOfMemoryIsResourcesExhaustedNotDamage() throws {
        let cli = CLIRunner.temporary()
        func path(_ name: String) -> String { cli.directory + "/" + name }
        try Data("correct horse battery staple".utf8).write(to: URL(fileURLWithPath: path("pass")))
        let passphrase = ["--passphrase-file", path("pass")]
        XCTAssertEqual(
            try cli.run(["create", path("store")] + passphrase).status, 0)
        let before = CLIRunner.tree(path("store"))
        let limited = try cli.run(
            ["info", path("store")] + passphrase, environment: ["SWIFT_BACKTRACE": "enable=no"],
            launcher: ["/bin/sh", "-c", "ulimit -v 250000; exec \"$0\" \"$@\""])
        XCTAssertEqual(limited.status, 22, limited.stderr)
        XCTAssertTrue(limited.stderr.contains("resourcesExhausted"), limited.stderr)
        XCTAssertTrue(limited.stderr.contains("Argon2id"), limited.stderr)
        XCTAssertEqual(CLIRunner.tree(path("store")), before)
        XCTAssertEqual(try cli.run(["info", path("store")] + passphrase).status, 0)
    }
}

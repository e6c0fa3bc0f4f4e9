import Foundation
import XCTest

/// `cipherdex reencrypt`, `encrypt` and `decrypt` end to end.
final class ConversionCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned

    override func setUp() {
        cli = CLIRunner.temporary()
    }

    private func path(_ name: String) -> String { cli.directory + "/" + name }

    func testEncryptReencryptDecrypt() throws {
        try cli.run(["keygen", "--out", "k1"])
        try cli.run(["keygen", "--out", "k2"])
        XCTAssertEqual(try cli.run(["create", "s", "--plaintext"]).status, 0)
        try #"{"name":"Ulrike Quandt-Varga"}"#.write(toFile: path("doc.json"), atomically: true, encoding: .utf8)
        XCTAssertEqual(try cli.run(["doc", "put", "s", "people", "u", "doc.json"]).status, 0)

        let encrypted = try cli.run(["encrypt", "s", "--new-key-file", "k1"])
        XCTAssertEqual(encrypted.status, 0, encrypted.stderr)
        XCTAssertEqual(try cli.run(["doc", "get", "s", "people", "u"]).status, 10, "now it needs a key")
        XCTAssertEqual(
            try cli.run(["doc", "get", "s", "people", "u", "--key-file", "k1"]).stdout,
            #"{"name":"Ulrike Quandt-Varga"}"# + "\n")
        let again = try cli.run(["encrypt", "s", "--new-key-file", "k1"])
        XCTAssertEqual(again.status, 1, again.stderr)
        XCTAssertTrue(
            again.stderr.hasPrefix("cipherdex: error: alreadyEncrypted: s is encrypted already"), again.stderr)

        XCTAssertEqual(try cli.run(["key", "add", "s", "--key-file", "k1", "--recovery"]).status, 0)
        let reencrypted = try cli.run(["reencrypt", "s", "--key-file", "k1", "--new-key-file", "k2"])
        XCTAssertEqual(reencrypted.status, 0, reencrypted.stderr)
        XCTAssertTrue(reencrypted.stdout.contains("removed keyslot(s) 2 (recovery)"), reencrypted.stdout)
        XCTAssertEqual(try cli.run(["info", "s", "--key-file", "k1"]).status, 12)
        XCTAssertEqual(try cli.run(["verify", "s", "--key-file", "k2"]).status, 0)

        let refused = try cli.run(["decrypt", "s", "--key-file", "k2"])
        XCTAssertEqual(refused.status, 64, "decrypting needs --yes off a terminal")
        XCTAssertEqual(try cli.run(["decrypt", "s", "--key-file", "k2", "--yes"]).status, 0)
        XCTAssertEqual(
            try cli.run(["doc", "get", "s", "people", "u"]).stdout, #"{"name":"Ulrike Quandt-Varga"}"# + "\n")
        XCTAssertEqual(try cli.run(["info", "s", "--key-file", "k2"]).status, 11)
    }
}

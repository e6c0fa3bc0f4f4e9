import Foundation
import XCTest

/// `doc put`, `get` and `find` keep numbers exactly as written.
final class DocCommandNumberTests: XCTestCase {
    private var cli = CLIRunner.unassigned

    override func setUpWithError() throws {
        cli = CLIRunner.temporary()
        try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "k"]).status, 0)
    }

    private func run(_ arguments: [String], stdin: [UInt8]? = nil) throws -> CLIRunner.Result {
        try cli.run(arguments + ["--key-file", "k"], stdin: stdin)
    }

    func testNumbersRoundTripAndCompareExactly() throws {
        let body =
            #"{"big":12345678901234567890,"d":3.14159265358979323846264338327950288,"n":9007199254740993,"#
            + #""tiny":1e-400,"huge":1e400}"#
        XCTAssertEqual(try run(["doc", "put", "s", "nums", "a", "-"], stdin: Array(body.utf8)).status, 0)
        let other = #"{"n":9007199254740992}"#
        XCTAssertEqual(try run(["doc", "put", "s", "nums", "b", "-"], stdin: Array(other.utf8)).status, 0)
        XCTAssertEqual(
            try run(["doc", "get", "s", "nums", "a"]).stdout,
            #"{"big":12345678901234567890,"d":3.14159265358979323846264338327950288,"huge":1e400,"n":9007199254740993,"#
                + #""tiny":1e-400}"# + "\n")
        XCTAssertEqual(try run(["doc", "find", "s", "nums", "--where", "n=9007199254740993"]).stdout, "a\n")
        XCTAssertEqual(try run(["doc", "find", "s", "nums", "--where", "n=9007199254740992"]).stdout, "b\n")
        XCTAssertEqual(try run(["doc", "find", "s", "nums", "--where", "n>9007199254740992"]).stdout, "a\n")
        XCTAssertEqual(try run(["doc", "find", "s", "nums", "--where", "tiny>0"]).stdout, "a\n")
    }
}

import Cipherdex
import Foundation
import XCTest

@testable import CipherdexCLI

/// `doc get` and `doc find --json` print the stored canonical text: byte for byte what printing
/// the parsed value printed, at a cost of about the document's size.
final class DocCommandOutputTests: XCTestCase {
    private var cli = CLIRunner.unassigned

    override func setUpWithError() throws {
        cli = CLIRunner.temporary()
        try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "k"]).status, 0)
    }

    private func run(_ arguments: [String], stdin: [UInt8]? = nil, launcher: [String] = []) throws
        -> CLIRunner.Result
    {
        try cli.run(arguments + ["--key-file", "k"], stdin: stdin, launcher: launcher)
    }

    /// Documents (by id) whose canonical text differs from what was written, and one over the
    /// 1 MiB that `doc find --json` writes unbuffered.
    private static let documents: [(id: String, text: String)] = [
        ("numbers", #"{ "z": 12345678901234567890, "a": [1.50, -0, 1E400, 1e-400, 9007199254740993, -2.5e+3] }"#),
        (
            #"id "quoted" \ é"#,
            #"{"s":"q\" b\\ \/ \n\r\t \u0001 \u00e9 e\u0301 \ud83d\ude00 \u2028 \u0085 \u009b","é":"x","ë":"y","e\u0301x":"z"}"#
        ),
        ("nested", #"{"b":{"y":[{"k":null,"j":true}],"x":{}},"a":[[],[[false]]], "n": 5}"#),
        ("large", #"{"n":5,"a":["# + String(repeating: #""abcdefghij\u00e9","#, count: 100_000) + #"1]}"#),
    ]

    /// What the command printed before it read the stored text: the canonical text of the
    /// parsed value (of the array of `{"id", "document"}` objects for `find --json`).
    private static func printedBefore(_ values: [(id: String, value: JSONValue)], find: Bool) -> [UInt8] {
        let value: JSONValue =
            find ? .array(values.map { .object(["id": .string($0.id), "document": $0.value]) }) : values[0].value
        return Array((value.canonicalString + "\n").utf8)
    }

    func testOutputIsWhatPrintingTheParsedValueGave() throws {
        var values: [(id: String, value: JSONValue)] = []
        for (id, text) in Self.documents {
            XCTAssertEqual(try run(["doc", "put", "s", "c", id, "-"], stdin: Array(text.utf8)).status, 0)
            values.append((id, try JSONValue(parsing: Array(text.utf8))))
        }
        values.sort { Array($0.id.utf8).lexicographicallyPrecedes(Array($1.id.utf8)) }
        for entry in values {
            let result = try run(["doc", "get", "s", "c", entry.id])
            XCTAssertEqual(result.status, 0, result.stderr)
            XCTAssertEqual(result.stdoutBytes, Self.printedBefore([entry], find: false), entry.id)
        }
        let all = try run(["doc", "find", "s", "c", "--json"])
        XCTAssertEqual(all.stdoutBytes, Self.printedBefore(values, find: true))
        let some = try run(["doc", "find", "s", "c", "--where", "n=5", "--json"])
        XCTAssertEqual(some.stdoutBytes, Self.printedBefore(values.filter { $0.value[path: "n"] == 5 }, find: true))
        XCTAssertEqual(try run(["doc", "find", "s", "c", "--where", "n=5"]).stdout, "large\nnested\n")
        XCTAssertEqual(try run(["doc", "find", "s", "c", "--where", "n=6", "--json"]).stdout, "[]\n")
        XCTAssertEqual(
            try run(["doc", "find", "s", "c", "--limit", "1", "--json"]).stdoutBytes,
            Self.printedBefore(Array(values.prefix(1)), find: true))
    }

    /// The array is written in pieces; together they are the canonical text of the array.
    func testCanonicalArrayPiecesJoinToTheArraysText() throws {
        let texts = [(#"a"b"#, #"{"x":1}"#), ("big", #"{"s":""# + String(repeating: "é", count: 600_000) + #""}"#)]
        for count in 0...texts.count {
            let documents = try texts.prefix(count).map { id, text in
                (id: id, value: try JSONValue(parsing: Array(text.utf8)))
            }
            var pieces: [Data] = []
            let stored = documents.map { DocumentJSON(id: $0.id, json: Data($0.value.canonicalBytes)) }
            try DocCommand.writeCanonicalArray(stored) { pieces.append($0) }
            XCTAssertEqual(Array(pieces.joined()), Self.printedBefore(documents, find: true))
            XCTAssertEqual(pieces.count, count == 2 ? 3 : 1, "a text of 1 MiB or more is a piece of its own")
        }
    }

    /// `doc get` of a 20 MB document of numbers takes about its size in memory, not a tree many
    /// times larger (about 17 times: 340 MB).
    func testDocGetOfALargeDocumentDoesNotBuildItsTree() throws {
        let text = #"{"a":["# + String(repeating: "1,", count: 10_000_000) + "1]}"
        XCTAssertEqual(try run(["doc", "put", "s", "c", "big", "-"], stdin: Array(text.utf8)).status, 0)
        XCTAssertEqual(try run(["doc", "put", "s", "c", "small", "-"], stdin: Array("{}".utf8)).status, 0)
        func peak(_ id: String) throws -> (CLIRunner.Result, Int) {
            let result = try run(
                ["doc", "get", "s", "c", id], launcher: ["/usr/bin/time", "-f", "%M", "-o", cli.directory + "/rss"])
            let report = String(
                decoding: FileManager.default.contents(atPath: cli.directory + "/rss") ?? Data(), as: UTF8.self)
            let kib = report.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) }
            return (result, try XCTUnwrap(kib, report) << 10)
        }
        let (small, baseline) = try peak("small")
        XCTAssertEqual(small.stdout, "{}\n")
        let (big, resident) = try peak("big")
        XCTAssertEqual(big.status, 0, big.stderr)
        XCTAssertTrue(big.stdoutBytes.elementsEqual(Array(text.utf8) + [0x0A]), "the stored text, unchanged")
        XCTAssertLessThan(
            resident - baseline, 4 * text.utf8.count,
            "peak \(resident >> 20) MiB, \(baseline >> 20) MiB for an empty document")
    }
}

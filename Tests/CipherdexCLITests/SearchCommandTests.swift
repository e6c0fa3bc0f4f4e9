import CipherdexPDFWriter
import Foundation
import XCTest

/// `add`, `index`, `search`, `status` and `remove` end to end, through the real executable, on
/// PDFs generated with known text.
final class SearchCommandTests: XCTestCase {
    private var cli = CLIRunner.unassigned

    override func setUpWithError() throws {
        cli = CLIRunner.temporary()
        try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "k"]).status, 0)
    }

    private func run(_ arguments: [String]) throws -> CLIRunner.Result {
        try cli.run(arguments + ["--key-file", "k"])
    }

    private func path(_ name: String) -> String { cli.directory + "/" + name }

    private func writePDF(_ name: String, _ pages: [String]) throws {
        try FileManager.default.createDirectory(
            atPath: (path(name) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        XCTAssertTrue(
            FileManager.default.createFile(atPath: path(name), contents: Data(makePDF(pages: pages, title: name))))
    }

    private func writeText(_ name: String, _ text: String) throws {
        try FileManager.default.createDirectory(
            atPath: (path(name) as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        XCTAssertTrue(FileManager.default.createFile(atPath: path(name), contents: Data(text.utf8)))
    }

    /// The `--json` output, parsed.
    private func searchJSON(_ query: String, _ options: [String] = []) throws -> [String: Any] {
        let result = try run(["search", "s", query, "--json"] + options)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    private func results(_ json: [String: Any]) -> [[String: Any]] {
        json["results"] as? [[String: Any]] ?? []
    }

    /// The UTF-16 substring `[start, end)` of `text`.
    private func substring(_ text: String, _ range: [Int]) -> String {
        let units = Array(text.utf16)
        guard range.count == 2, range[0] >= 0, range[0] <= range[1], range[1] <= units.count else {
            return "<bad range>"
        }
        return String(decoding: units[range[0]..<range[1]], as: UTF16.self)
    }

    private func addSamples() throws {
        try writePDF(
            "ada.pdf",
            [
                "Le café in Zürich: the naïve Résumé of Ada Lovelace lists the Analytical Engine.",
                "Invoice number 4471 for cardiology equipment.",
                "Cardiology follow-up, cardiology report.",
            ])
        try writePDF(
            "charles.pdf", ["Charles Babbage designed the Difference Engine.", "Another invoice, marked PAID."])
        let added = try run(["add", "s", "ada.pdf", "charles.pdf"])
        XCTAssertEqual(added.status, 0, added.stderr)
        XCTAssertEqual(added.stdout, "ada.pdf: finished (3 pages)\ncharles.pdf: finished (2 pages)\n")
    }

    func testAddAndSearchPlainAndJSON() throws {
        try addSamples()
        let plain = try run(["search", "s", "resume"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let lines = plain.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "ada.pdf  page 1", "pages count from 1 for people")
        XCTAssertTrue(lines.count == 2 && lines[1].contains("[Résumé]"), "matches in brackets off a terminal: \(lines)")
        XCTAssertFalse(plain.stdout.contains("\u{1B}"), "no escape sequences when stdout is not a terminal")

        XCTAssertEqual(try searchJSON("resume engine")["documents"] as? [String: [Int]], ["ada.pdf": [0]], "every word")
        let json = try searchJSON("resume OR engine")
        XCTAssertEqual(json["query"] as? String, "resume OR engine")
        let documents = try XCTUnwrap(json["documents"] as? [String: [Int]])
        XCTAssertEqual(documents, ["ada.pdf": [0], "charles.pdf": [0]])
        XCTAssertEqual((json["rankedUIDs"] as? [String])?.first, "ada.pdf", "the page matching both words ranks first")
        let first = try XCTUnwrap(results(json).first)
        XCTAssertEqual(first["uid"] as? String, "ada.pdf")
        XCTAssertEqual(first["pageIndex"] as? Int, 0)
        XCTAssertEqual(first["isAnnotation"] as? Bool, false)
        XCTAssertNil(first["annotationIndex"])
        XCTAssertNotNil(first["score"] as? Double)
        let preview = try XCTUnwrap(first["preview"] as? String)
        let ranges = try XCTUnwrap(first["matchRanges"] as? [[Int]])
        XCTAssertEqual(ranges.map { substring(preview, $0) }, ["Résumé", "Engine"], "UTF-16 offsets into the preview")
        let scores = results(json).compactMap { $0["score"] as? Double }
        XCTAssertEqual(scores, scores.sorted(by: >), "best first")

        let pageTwo = try searchJSON("4471")
        XCTAssertEqual(results(pageTwo).map { $0["pageIndex"] as? Int }, [1], "pageIndex counts from 0")
    }

    func testMatchingOptionsAndLimits() throws {
        try addSamples()
        XCTAssertEqual(try searchJSON("lovel")["documents"] as? [String: [Int]], ["ada.pdf": [0]], "prefix by default")
        let exact = try searchJSON("lovel", ["--exact-words"])
        XCTAssertEqual(exact["documents"] as? [String: [Int]], [:])
        XCTAssertEqual(results(exact).count, 0)
        XCTAssertEqual(try run(["search", "s", "lovel", "--exact-words"]).stdout, "", "no results print nothing")
        XCTAssertEqual(try run(["search", "s", "lovel", "--exact-words"]).status, 0)
        XCTAssertEqual(try searchJSON("lovel*", ["--exact-words"])["documents"] as? [String: [Int]], ["ada.pdf": [0]])
        XCTAssertEqual(try searchJSON("\"analytical eng\"")["documents"] as? [String: [Int]], ["ada.pdf": [0]])
        XCTAssertEqual(try searchJSON("\"analytical eng\"", ["--exact-phrases"])["documents"] as? [String: [Int]], [:])
        XCTAssertEqual(
            try searchJSON("engine -babbage")["documents"] as? [String: [Int]], ["ada.pdf": [0]], "exclusion")
        XCTAssertEqual(
            try searchJSON("engine", ["--no-annotations"])["documents"] as? [String: [Int]],
            ["ada.pdf": [0], "charles.pdf": [0]], "page text stays in with --no-annotations")
        XCTAssertEqual(
            results(try searchJSON("engine", ["--annotations-only"])).count, 0, "these PDFs have no annotations")

        XCTAssertEqual(results(try searchJSON("cardiology")).count, 2)
        XCTAssertEqual(results(try searchJSON("invoice OR cardiology")).count, 3)
        XCTAssertEqual(results(try searchJSON("invoice OR cardiology", ["--limit", "1"])).count, 1)
        let perDocument = results(try searchJSON("invoice OR cardiology OR engine", ["--per-document", "1"]))
        XCTAssertEqual(perDocument.compactMap { $0["uid"] as? String }.sorted(), ["ada.pdf", "charles.pdf"])
        XCTAssertEqual(
            try run(["search", "s", "invoice OR cardiology", "--limit", "2"]).stdout.split(separator: "\n").count, 4,
            "two results, two lines each")
    }

    func testPreviewsForTheBestResultsOrNone() throws {
        try addSamples()
        let all = results(try searchJSON("invoice OR cardiology"))
        XCTAssertEqual(all.count, 3)
        XCTAssertEqual(all.map { $0["hasPreview"] as? Bool }, [true, true, true])

        let one = results(try searchJSON("invoice OR cardiology", ["--previews", "1"]))
        XCTAssertEqual(one.map { $0["uid"] as? String }, all.map { $0["uid"] as? String }, "the same results")
        XCTAssertEqual(one.map { $0["score"] as? Double }, all.map { $0["score"] as? Double })
        XCTAssertEqual(one.map { $0["hasPreview"] as? Bool }, [true, false, false])
        XCTAssertEqual(one.first?["preview"] as? String, all.first?["preview"] as? String)
        XCTAssertEqual(one.last?["preview"] as? String, "")
        XCTAssertEqual(one.last?["matchRanges"] as? [[Int]], [])

        let none = results(try searchJSON("invoice OR cardiology", ["--no-previews"]))
        XCTAssertEqual(none.map { $0["uid"] as? String }, all.map { $0["uid"] as? String }, "the same results")
        XCTAssertEqual(none.map { $0["pageIndex"] as? Int }, all.map { $0["pageIndex"] as? Int })
        XCTAssertEqual(none.map { $0["score"] as? Double }, all.map { $0["score"] as? Double })
        XCTAssertEqual(none.map { $0["preview"] as? String }, ["", "", ""])
        XCTAssertEqual(none.map { $0["hasPreview"] as? Bool }, [false, false, false])

        let plain = try run(["search", "s", "invoice OR cardiology", "--previews", "1"])
        XCTAssertEqual(plain.status, 0, plain.stderr)
        let lines = plain.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 4, "a preview line for the best result only: \(lines)")
        XCTAssertTrue(lines[1].hasPrefix("  ") && lines[1].contains("["), lines[1])
        XCTAssertFalse(lines[2].hasPrefix(" ") || lines[3].hasPrefix(" "), "\(lines)")
        let bare = try run(["search", "s", "invoice OR cardiology", "--no-previews"])
        XCTAssertEqual(bare.stdout.split(separator: "\n").count, 3, "one line a result: \(bare.stdout)")
        XCTAssertFalse(bare.stdout.contains("["), bare.stdout)
    }

    func testMalformedQueriesExitOneWithTheCaseAndPosition() throws {
        try addSamples()
        let unterminated = try run(["search", "s", "engine \"analytical"])
        XCTAssertEqual(unterminated.status, 1)
        XCTAssertEqual(unterminated.stdout, "")
        XCTAssertTrue(unterminated.stderr.hasPrefix("cipherdex: error: unterminatedQuote: "), unterminated.stderr)
        XCTAssertTrue(unterminated.stderr.contains("character 8"), unterminated.stderr)
        let dangling = try run(["search", "s", "engine OR", "--json"])
        XCTAssertEqual(dangling.status, 1)
        XCTAssertTrue(dangling.stderr.hasPrefix("cipherdex: error: danglingOperator: "), dangling.stderr)
        XCTAssertTrue(dangling.stderr.contains("character 8"), dangling.stderr)
        XCTAssertTrue(try run(["search", "s", "   "]).stderr.hasPrefix("cipherdex: error: empty: "))
        let exclusionOnly = try cli.run(["search", "s", "--key-file", "k", "--", "-engine"])
        XCTAssertTrue(exclusionOnly.stderr.hasPrefix("cipherdex: error: onlyExclusions: "), exclusionOnly.stderr)
        let hostile = try run(["search", "s", "'); DROP TABLE search_text; -- NEAR match*"])
        XCTAssertEqual(hostile.status, 0, "hostile text is a query, never SQL or FTS syntax: \(hostile.stderr)")
        XCTAssertEqual(try searchJSON("engine")["documents"] as? [String: [Int]], ["ada.pdf": [0], "charles.pdf": [0]])
    }

    func testStatusAndRemove() throws {
        try addSamples()
        XCTAssertEqual(
            try run(["status", "s"]).stdout, "ada.pdf  finished (3 pages)\ncharles.pdf  finished (2 pages)\n")
        XCTAssertEqual(try run(["status", "s", "charles.pdf"]).stdout, "charles.pdf  finished (2 pages)\n")
        let one = try run(["status", "s", "ada.pdf", "--json"])
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(one.stdout.utf8)) as? [String: Any])
        XCTAssertEqual(object["uid"] as? String, "ada.pdf")
        XCTAssertEqual(object["state"] as? String, "finished")
        XCTAssertEqual(object["pageCount"] as? Int, 3)
        let all = try run(["status", "s", "--json"])
        let array = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(all.stdout.utf8)) as? [[String: Any]])
        XCTAssertEqual(array.compactMap { $0["uid"] as? String }, ["ada.pdf", "charles.pdf"])
        let missing = try run(["status", "s", "nobody.pdf"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.hasPrefix("cipherdex: error: documentNotFound: "), missing.stderr)

        let removed = try run(["remove", "s", "charles.pdf"])
        XCTAssertEqual(removed.status, 0, removed.stderr)
        XCTAssertEqual(removed.stdout, "removed charles.pdf\n")
        XCTAssertEqual(try searchJSON("engine")["documents"] as? [String: [Int]], ["ada.pdf": [0]])
        XCTAssertEqual(try run(["status", "s"]).stdout, "ada.pdf  finished (3 pages)\n")
        let again = try run(["remove", "s", "charles.pdf"])
        XCTAssertEqual(again.status, 1)
        XCTAssertTrue(again.stderr.hasPrefix("cipherdex: error: documentNotFound: "), again.stderr)
    }

    func testAddWithUIDReplacesAndUnchangedContentStaysIndexed() throws {
        try writePDF("in/report.pdf", ["First draft about geology."])
        XCTAssertEqual(
            try run(["add", "s", "in/report.pdf", "--uid", "reports/2024"]).stdout, "reports/2024: finished (1 page)\n")
        XCTAssertEqual(
            try run(["add", "s", "in/report.pdf", "--uid", "reports/2024"]).stdout, "reports/2024: finished (1 page)\n")
        try writePDF("in/report.pdf", ["Second draft about hydrology.", "With an appendix."])
        XCTAssertEqual(
            try run(["add", "s", "in/report.pdf", "--uid", "reports/2024"]).stdout, "reports/2024: finished (2 pages)\n"
        )
        XCTAssertEqual(try searchJSON("geology")["documents"] as? [String: [Int]], [:], "the old text is gone")
        XCTAssertEqual(try searchJSON("hydrology")["documents"] as? [String: [Int]], ["reports/2024": [0]])
        try writeText("notes.md", "# Notes\nThe hydrology survey.")
        XCTAssertEqual(try run(["add", "s", "notes.md"]).stdout, "notes.md: finished (1 page)\n")
        XCTAssertEqual(
            Set((try searchJSON("hydrology")["documents"] as? [String: [Int]] ?? [:]).keys),
            ["reports/2024", "notes.md"])
    }

    func testDamagedPDFFailsWithAReasonWhileOthersSucceed() throws {
        try writePDF("good.pdf", ["A perfectly good radiology page."])
        var generator = SystemRandomNumberGenerator()
        let noise = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path("x.pdf"), contents: Data(noise)))
        let added = try run(["add", "s", "x.pdf", "good.pdf"])
        XCTAssertEqual(added.status, 1)
        let lines = added.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 2, added.stdout)
        XCTAssertTrue(lines[0].hasPrefix("x.pdf: failed: "), lines[0])
        XCTAssertGreaterThan(lines[0].count, "x.pdf: failed: ".count + 3, "a reason is given")
        XCTAssertEqual(lines[1], "good.pdf: finished (1 page)")
        XCTAssertTrue(added.stderr.hasPrefix("cipherdex: error: indexingFailed: 1 of 2"), added.stderr)
        XCTAssertTrue(try run(["status", "s", "x.pdf"]).stdout.hasPrefix("x.pdf  failed: "))
        XCTAssertEqual(try searchJSON("radiology")["documents"] as? [String: [Int]], ["good.pdf": [0]])

        // In a folder: the failure is listed, the summary counts it, the others are indexed.
        try FileManager.default.createDirectory(atPath: path("folder"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: path("x.pdf"), toPath: path("folder/y.pdf"))
        try writePDF("folder/fine.pdf", ["Pharmacy notes."])
        let indexed = try run(["index", "s", "folder"])
        XCTAssertEqual(indexed.status, 1)
        XCTAssertTrue(indexed.stdout.hasPrefix("y.pdf: failed: "), indexed.stdout)
        XCTAssertTrue(
            indexed.stdout.hasSuffix("added 2, changed 0, removed 0, unchanged 0, failed 1, locked 0\n"), indexed.stdout
        )
        XCTAssertTrue(indexed.stderr.hasPrefix("cipherdex: error: indexingFailed: "), indexed.stderr)
        XCTAssertEqual(try searchJSON("pharmacy")["documents"] as? [String: [Int]], ["fine.pdf": [0]])

        // A folder file whose UID belongs to an added document is skipped, not taken over.
        try writePDF("folder/good.pdf", ["Something else entirely."])
        let skipped = try run(["index", "s", "folder"])
        XCTAssertTrue(skipped.stdout.contains("good.pdf: skipped: "), skipped.stdout)
        XCTAssertEqual(try searchJSON("radiology")["documents"] as? [String: [Int]], ["good.pdf": [0]])
    }

    /// `add` names what is wrong with a path that is not a readable file, before anything is
    /// stored (a FIFO said "no text extractor for '.' files", a folder "no such readable file").
    func testAddSaysWhatIsWrongWithAPath() throws {
        XCTAssertEqual(mkfifo(path("fifo.pdf"), 0o600), 0)
        XCTAssertEqual(mkfifo(path("fifo"), 0o600), 0)
        XCTAssertEqual(symlink("loop.txt", path("loop.txt")), 0)
        try FileManager.default.createDirectory(atPath: path("folder.pdf"), withIntermediateDirectories: true)
        for (name, reason) in [
            ("fifo.pdf", "a FIFO, not a regular file"), ("fifo", "a FIFO, not a regular file"),
            ("loop.txt", "a loop of symbolic links"), ("folder.pdf", "a folder, not a file"),
            ("missing.pdf", "no such file"), ("/dev/zero", "a character device, not a regular file"),
        ] {
            let result = try run(["add", "s", name])
            XCTAssertEqual(result.status, 1, result.stderr)
            XCTAssertTrue(
                result.stderr.hasPrefix("cipherdex: error: unreadable: cannot read \(name): \(reason)"), result.stderr)
        }
    }

    /// A file that failed is tried again by the next `index`; failing again, it is listed,
    /// counted and exits 1 as the first time (the second run said `failed 0` and exited 0).
    func testARetriedFileThatFailsAgainIsListedAndCounted() throws {
        try FileManager.default.createDirectory(atPath: path("docs"), withIntermediateDirectories: true)
        XCTAssertTrue(
            FileManager.default.createFile(atPath: path("docs/bad.pdf"), contents: Data("%PDF-1.4\ngarbage".utf8)))
        XCTAssertTrue(FileManager.default.createFile(atPath: path("docs/ok.txt"), contents: Data("hello".utf8)))
        let first = try run(["index", "s", "docs"])
        XCTAssertEqual(first.status, 1, first.stderr)
        let second = try run(["index", "s", "docs"])
        XCTAssertEqual(second.status, 1, second.stderr)
        XCTAssertTrue(second.stdout.hasPrefix("bad.pdf: failed: "), second.stdout)
        XCTAssertTrue(second.stdout.contains("unchanged 1, failed 1, locked 0, retried 1"), second.stdout)
        XCTAssertTrue(second.stderr.contains("indexingFailed: 1 of 1 file(s)"), second.stderr)
    }

    func testIndexFolderThenReindexAfterChanges() throws {
        try writePDF("docs/a.pdf", ["Alpha cardiology page.", "Second alpha page."])
        try writePDF("docs/b.pdf", ["Bravo arbitration page."])
        try writePDF("docs/sub/c.pdf", ["Charlie geology page."])
        try writeText("docs/d.txt", "Delta hydrology notes.")
        try writeText("docs/ignored.rtf", "Echo radiology.")
        let first = try run(["index", "s", "docs"])
        XCTAssertEqual(first.status, 0, first.stderr)
        XCTAssertEqual(first.stdout, "added 4, changed 0, removed 0, unchanged 0, failed 0, locked 0\n")
        XCTAssertEqual(first.stderr, "", "no progress line when stderr is not a terminal")
        XCTAssertEqual(
            try run(["status", "s"]).stdout,
            "a.pdf  finished (2 pages)\nb.pdf  finished (1 page)\nd.txt  finished (1 page)\nsub/c.pdf  finished (1 page)\n"
        )
        XCTAssertEqual(try searchJSON("geology")["documents"] as? [String: [Int]], ["sub/c.pdf": [0]])
        XCTAssertEqual(try searchJSON("radiology")["documents"] as? [String: [Int]], [:], ".rtf is not indexed")

        XCTAssertEqual(
            try run(["index", "s", "docs"]).stdout, "added 0, changed 0, removed 0, unchanged 4, failed 0, locked 0\n")

        try writePDF("docs/b.pdf", ["Bravo now about pharmacy instead, a longer page than before."])
        try writePDF("docs/e.pdf", ["Echo survey page."])
        try FileManager.default.removeItem(atPath: path("docs/sub/c.pdf"))
        let second = try run(["index", "s", "docs"])
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertEqual(second.stdout, "added 1, changed 1, removed 1, unchanged 2, failed 0, locked 0\n")
        XCTAssertEqual(try searchJSON("arbitration")["documents"] as? [String: [Int]], [:])
        XCTAssertEqual(try searchJSON("pharmacy")["documents"] as? [String: [Int]], ["b.pdf": [0]])
        XCTAssertEqual(try searchJSON("survey")["documents"] as? [String: [Int]], ["e.pdf": [0]])
        XCTAssertEqual(try searchJSON("geology")["documents"] as? [String: [Int]], [:])
        XCTAssertEqual(
            try run(["status", "s"]).stdout.split(separator: "\n").map { String($0.prefix(while: { $0 != " " })) },
            ["a.pdf", "b.pdf", "d.txt", "e.pdf"])

        XCTAssertEqual(
            try run(["index", "s", "docs", "--ext", "rtf,txt"]).status, 64, "no extractor for .rtf: refused up front")
        let onlyText = try run(["index", "s", "docs", "--ext", "txt"])
        XCTAssertEqual(onlyText.stdout, "added 0, changed 0, removed 3, unchanged 1, failed 0, locked 0\n")
    }

    func testFilesAreStoredEncrypted() throws {
        try writePDF("secret.pdf", ["The zanzibarian ledger."])
        XCTAssertEqual(try run(["add", "s", "secret.pdf"]).status, 0)
        try FileManager.default.removeItem(atPath: path("secret.pdf"))
        XCTAssertEqual(try searchJSON("zanzibarian")["documents"] as? [String: [Int]], ["secret.pdf": [0]])
        let enumerator = FileManager.default.enumerator(atPath: path("s"))
        while let name = enumerator?.nextObject() as? String {
            guard let data = FileManager.default.contents(atPath: path("s/" + name)) else { continue }
            XCTAssertNil(data.range(of: Data("zanzibarian".utf8)), "plaintext in \(name)")
        }
        XCTAssertEqual(try cli.run(["search", "s", "zanzibarian"]).status, 10, "keyRequired")
    }

    /// On a terminal (a pseudo-terminal from util-linux `script`): the progress line on stderr
    /// and highlighted matches.
    func testTerminalProgressAndHighlighting() throws {
        for index in 1...3 { try writePDF("docs/\(index).pdf", ["Page about geology number \(index)."]) }
        func onTerminal(_ arguments: String) throws -> String {
            let result = try cli.runOnTerminal("\(arguments) --key-file k")
            XCTAssertEqual(result.status, 0, result.output)
            return result.output
        }
        let indexed = try onTerminal("index s docs")
        XCTAssertTrue(indexed.contains("\r\u{1B}[K["), "a progress bar redrawn in place: \(indexed.debugDescription)")
        XCTAssertTrue(indexed.contains("] 3/3"), indexed.debugDescription)
        XCTAssertTrue(indexed.contains("added 3, changed 0, removed 0, unchanged 0, failed 0, locked 0"))
        let found = try onTerminal("search s geology --limit 1")
        XCTAssertTrue(found.contains("\u{1B}[1;7mgeology\u{1B}[0m"), found.debugDescription)
    }

    func testUsageErrors() throws {
        try writePDF("a.pdf", ["Alpha."])
        try writePDF("b.pdf", ["Bravo."])
        try writePDF("dir/a.pdf", ["Alpha again."])
        for arguments in [
            ["add", "s"],
            ["add", "s", "a.pdf", "b.pdf", "--uid", "x"],
            ["add", "s", "a.pdf", "dir/a.pdf"],
            ["add", "s", "a.pdf", "--uid", ""],
            ["index", "s"],
            ["index", "s", "dir", "--ext", ""],
            ["index", "s", "dir", "--ext", "pdf,,txt"],
            ["index", "s", "dir", "extra"],
            ["search", "s"],
            ["search", "s", "alpha", "--limit", "0"],
            ["search", "s", "alpha", "--limit", "many"],
            ["search", "s", "alpha", "--per-document", "-1"],
            ["search", "s", "alpha", "--no-annotations", "--annotations-only"],
            ["search", "s", "alpha", "--previews", "0"],
            ["search", "s", "alpha", "--previews", "2", "--no-previews"],
            ["search", "s", "alpha", "--bogus"],
            ["search", "s", "alpha", "beta"],
            ["status", "s", "a.pdf", "b.pdf"],
            ["remove", "s"],
        ] {
            let result = try run(arguments)
            XCTAssertEqual(result.status, 64, "\(arguments): \(result.stderr)")
            XCTAssertTrue(result.stderr.hasPrefix("cipherdex: error: usage: "), "\(arguments): \(result.stderr)")
        }
        let missing = try run(["add", "s", "a.pdf", "missing.pdf"])
        XCTAssertEqual(missing.status, 1)
        XCTAssertTrue(missing.stderr.hasPrefix("cipherdex: error: unreadable: "), missing.stderr)
        try writeText("a.docx", "x")
        XCTAssertTrue(
            try run(["add", "s", "a.pdf", "a.docx"]).stderr.hasPrefix("cipherdex: error: unsupportedFileType: "))
        XCTAssertEqual(try run(["status", "s"]).stdout, "", "a failed check stores nothing")
        // A file without an extension is said to have none (it was "no text extractor for '.' files").
        try writeText("README", "x")
        let bare = try run(["add", "s", "README"])
        XCTAssertEqual(bare.status, 1)
        XCTAssertTrue(
            bare.stderr.hasPrefix("cipherdex: error: unsupportedFileType: the file name has no extension"),
            bare.stderr)
        let notAFolder = try run(["index", "s", "a.pdf"])
        XCTAssertEqual(notAFolder.status, 1)
        XCTAssertTrue(notAFolder.stderr.hasPrefix("cipherdex: error: notAFolder: "), notAFolder.stderr)
        for command in ["add", "index", "search", "status", "remove"] {
            let help = try cli.run([command, "--help"])
            XCTAssertEqual(help.status, 0)
            XCTAssertTrue(help.stdout.hasPrefix("USAGE: cipherdex \(command) STORE"), help.stdout)
            XCTAssertEqual(try cli.run(["help", command]).stdout, help.stdout, "help \(command)")
        }
        XCTAssertEqual(try cli.run(["help", "nonsense"]).status, 64)
        let overview = try cli.run(["--help"]).stdout
        for command in ["add", "index", "search", "status", "remove"] {
            XCTAssertTrue(overview.contains("  \(command) "), "\(command) is listed in --help")
        }
    }
}

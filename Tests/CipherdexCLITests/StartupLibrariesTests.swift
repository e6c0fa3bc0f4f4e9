import CipherdexPDFWriter
import Foundation
import XCTest

/// A `cipherdex` process loads poppler, GLib, GIO and cairo (and their ~47 dependencies) only when
/// it runs as the PDF extraction helper: the executable links none of them, and `--help`,
/// `search` and even `index` (whose PDFs the helpers parse) never map them
/// (BENCHMARKS.md, "Start-up without poppler").
final class StartupLibrariesTests: XCTestCase {
    private var cli = CLIRunner.unassigned

    /// Name fragments of the libraries only the helper may load.
    private static let helperOnly = ["libpoppler", "libglib-2.0", "libgobject-2.0", "libgio-2.0", "libcairo"]

    override func setUpWithError() throws {
        cli = CLIRunner.temporary()
        try cli.run(["keygen", "--out", "k"])
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "k"]).status, 0)
    }

    private func path(_ name: String) -> String { cli.directory + "/" + name }

    /// The NEEDED entries of the ELF file at `path` (`readelf -d`).
    private func neededLibraries(_ path: String) throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/readelf")
        process.arguments = ["-d", "-W", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, output)
        return output.split(separator: "\n").filter { $0.contains("(NEEDED)") }.compactMap { line in
            guard let open = line.firstIndex(of: "["), let close = line.lastIndex(of: "]") else { return nil }
            return String(line[line.index(after: open)..<close])
        }
    }

    /// The libraries the dynamic loader reports loading (`LD_DEBUG=files`) in the process started
    /// first, the one run (not children it starts).
    private func loadedLibraries(_ stderr: String) -> [String] {
        var firstProcess: Substring?
        var libraries: [String] = []
        for line in stderr.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            guard let colon = trimmed.firstIndex(of: ":"), let file = trimmed.range(of: "file=") else { continue }
            let pid = trimmed[..<colon]
            guard pid.allSatisfy(\.isNumber) else { continue }
            if firstProcess == nil { firstProcess = pid }
            guard pid == firstProcess else { continue }
            let name = trimmed[file.upperBound...].prefix { $0 != " " && $0 != "\t" }
            libraries.append(String(name))
        }
        return libraries
    }

    private func assertNoHelperLibraries(_ libraries: [String], _ what: String, line: UInt = #line) {
        XCTAssertFalse(libraries.isEmpty, "\(what): the loader reported nothing", line: line)
        for library in libraries where Self.helperOnly.contains(where: { library.contains($0) }) {
            XCTAssertTrue(false, "\(what) loads \(library)", line: line)
        }
    }

    func testExecutableLinksNoPopplerGLibOrCairo() throws {
        let needed = try neededLibraries(CLIRunner.productsDirectory.appendingPathComponent("cipherdex").path)
        XCTAssertTrue(needed.contains("libsqlcipher.so.0"), "the check reads the dynamic section: \(needed)")
        for library in needed where Self.helperOnly.contains(where: { library.contains($0) }) {
            XCTFail("cipherdex needs \(library): \(needed)")
        }
        XCTAssertFalse(needed.contains { $0.contains("libtesseract") }, "\(needed)")
    }

    func testHelpSearchAndIndexNeverLoadPoppler() throws {
        try FileManager.default.createDirectory(atPath: path("docs"), withIntermediateDirectories: true)
        let pdf = makePDF(pages: ["The zebrafish lexicon holds one rare word."], title: "rare")
        XCTAssertTrue(FileManager.default.createFile(atPath: path("docs/rare.pdf"), contents: Data(pdf)))
        let debug = ["LD_DEBUG": "files"]

        let help = try cli.run(["--help"], environment: debug)
        XCTAssertEqual(help.status, 0, help.stderr)
        assertNoHelperLibraries(loadedLibraries(help.stderr), "cipherdex --help")

        // The PDF is parsed by a helper (a child, started without LD_DEBUG), never by `index`.
        let index = try cli.run(["index", "s", "docs", "--key-file", "k"], environment: debug)
        XCTAssertEqual(index.status, 0, index.stderr)
        XCTAssertTrue(index.stdout.contains("added 1,"), index.stdout)
        assertNoHelperLibraries(loadedLibraries(index.stderr), "cipherdex index")

        let search = try cli.run(["search", "s", "--key-file", "k", "--", "zebrafish"], environment: debug)
        XCTAssertEqual(search.status, 0, search.stderr)
        XCTAssertTrue(search.stdout.hasPrefix("rare.pdf  page 1"), search.stdout)
        assertNoHelperLibraries(loadedLibraries(search.stderr), "cipherdex search")
    }

    func testTheHelperLoadsThemWhenItStarts() throws {
        // The same check sees them in the helper (started by hand, no request: it exits at once).
        let helper = try cli.run(
            ["--cipherdex-extract-helper"], environment: ["LD_DEBUG": "files", "CIPHERDEX_EXTRACT_HELPER_MODE": "1"])
        XCTAssertEqual(helper.status, 0, helper.stderr)
        let loaded = loadedLibraries(helper.stderr)
        for library in ["libpoppler-glib.so.8", "libpoppler-cpp.so.0", "libcairo.so.2", "libglib-2.0.so.0"] {
            XCTAssertTrue(loaded.contains(library), "the helper did not load \(library): \(loaded)")
        }
    }
}

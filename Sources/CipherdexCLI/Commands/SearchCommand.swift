import Cipherdex
import Foundation

/// `cipherdex search STORE QUERY [--exact-words] [--exact-phrases] [--no-annotations] [--limit N]
/// [--per-document N] [--previews N | --no-previews] [--json]`.
struct SearchCommand: Command {
    static let name = "search"
    static let summary = "full-text search over the indexed documents"
    static let help = """
        USAGE: cipherdex search STORE QUERY [--exact-words] [--exact-phrases] [--no-annotations]
                                [--annotations-only] [--limit N] [--per-document N]
                                [--previews N | --no-previews] [--json] [KEY]

        Searches the documents indexed with `cipherdex add` and `cipherdex index`. QUERY is one
        argument (quote it): words (each matches the words it begins, ignoring case and accents),
        "exact phrases", -excluded words or phrases, OR between terms, word* for an explicit
        prefix. Put -- before a QUERY that starts with -.

        Prints the results best first: `<uid>  page N` (pages counted from 1; `annotation` when
        the match is in an annotation), then the text around the match with the matched words
        highlighted (in [brackets] when standard output is not a terminal). A result past
        --previews N, or every result with --no-previews, prints its first line only: the
        page text is then never read. No results print nothing. With --json, one object:

          {"query": "…", "rankedUIDs": ["uid", …], "documents": {"uid": [pageIndex, …]},
           "results": [{"uid": "…", "pageIndex": 0, "preview": "…", "matchRanges": [[start, end]],
                        "hasPreview": true, "score": 1.5, "isAnnotation": false,
                        "annotationIndex": 0, "isOCR": false}]}

        pageIndex counts from 0; matchRanges are [start, end) UTF-16 offsets into preview (a
        result without a preview has hasPreview false, preview "" and matchRanges []);
        annotationIndex is present only for annotation results; isOCR is true when the page's text
        was recognised from its image (`--ocr`). The output is one line. A malformed query exits with
        status 1 and its error code (unterminatedQuote, danglingOperator, …) and position.

        OPTIONS:
          --exact-words       words match whole words only (word* is still a prefix)
          --exact-phrases     the whole QUERY is one exact phrase (its words in order, whole
                              words only; quotes, -, OR and * are plain text)
          --no-annotations    leave out annotation text
          --annotations-only  search annotation text only
          --limit N           at most N results in all (default 500)
          --per-document N    at most N results per document
          --previews N        a preview for the N best results only (default: every result)
          --no-previews       no previews: the ranked pages alone
          --json              print JSON (see above)
        KEY (one of; omit for an unencrypted store):
        \(KeyOptions.help())
        """

    let target: StoreArguments
    let query: String
    let options: SearchOptions
    let json: Bool

    init(parsing arguments: inout Arguments) throws {
        var options = SearchOptions()
        options.exactWordsOnly = arguments.flag("--exact-words")
        options.exactPhrasesOnly = arguments.flag("--exact-phrases")
        options.excludeAnnotations = arguments.flag("--no-annotations")
        options.excludeDocumentText = arguments.flag("--annotations-only")
        guard !(options.excludeAnnotations && options.excludeDocumentText) else {
            throw CLIError.usage("--no-annotations and --annotations-only exclude each other")
        }
        if let limit = try SearchCLI.positiveInteger(try arguments.option("--limit"), option: "--limit") {
            options.maximumResults = limit
        }
        options.maximumResultsPerDocument = try SearchCLI.positiveInteger(
            try arguments.option("--per-document"), option: "--per-document")
        let previews = try SearchCLI.positiveInteger(try arguments.option("--previews"), option: "--previews")
        if arguments.flag("--no-previews") {
            guard previews == nil else { throw CLIError.usage("--previews and --no-previews exclude each other") }
            options.includePreviews = false
        }
        options.maximumPreviewResults = previews
        json = arguments.flag("--json")
        target = try StoreArguments(parsing: &arguments)
        query = try arguments.positional("QUERY")
        self.options = options
    }

    /// Page cache per connection for one search: the pages it reads (a common word's doclists are
    /// tens of MB at 1,000,000 pages) are read once each, so a cache as large as the library's
    /// default only costs memory; SQLite's own default holds the b-trees' upper levels.
    static let cacheSizeKiB = 2048

    func run() throws {
        // One search, then exit: large arrays freed on the way are reused, not faulted in again.
        ProcessHeap.keepFreedMemory()
        // One search, then exit: it reads through the writer's connection, which the open has
        // already set up (and whose cache holds the b-trees' upper pages), rather than opening a
        // reader of its own.
        let store = try target.open(cacheSizeKiB: Self.cacheSizeKiB, readsOnWriter: true)
        defer { store.close() }
        let results = try store.library.search(query, options: options)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            try Output.print(
                String(decoding: try encoder.encode(JSONResults(query: query, results: results)), as: UTF8.self))
            return
        }
        let highlight = Output.isTerminal
        // One write per 64 KiB rather than two per result.
        var output = ""
        for preview in results.previews {
            var header = "\(SearchCLI.singleLine(preview.uid))  page \(preview.pageIndex + 1)"
            if preview.isAnnotation {
                header += "  annotation"
                if let index = preview.annotationIndex { header += " \(index + 1)" }
            }
            if preview.isOCR { header += "  (OCR)" }
            output += (highlight ? "\u{1B}[1m\(header)\u{1B}[0m" : header) + "\n"
            guard preview.hasPreview else { continue }
            // An ellipsis where the preview cuts the page text (it starts ahead of the page's
            // first match, or is as long as a preview can be: never when it has fewer scalars
            // than that, since it cannot have more characters than scalars).
            let startsInside = (preview.pageMatchRanges.first?.first ?? 0) > (preview.matchRanges.first?.first ?? 0)
            let endsInside =
                preview.preview.unicodeScalars.count >= options.previewLength
                && preview.preview.count >= options.previewLength
            output +=
                "  " + (startsInside ? "…" : "")
                + Self.highlighted(preview.preview, ranges: preview.matchRanges, terminal: highlight)
                + (endsInside ? "…" : "") + "\n"
            if output.utf8.count >= 65536 {
                try Output.print(output, terminator: "")
                output = ""
            }
        }
        if !output.isEmpty { try Output.print(output, terminator: "") }
    }

    /// The preview with its matches marked: bold reverse video on a terminal, [brackets] otherwise.
    /// Control characters from the document are shown as spaces, bidirectional controls as
    /// zero-width spaces (`SearchCLI.sanitized`). `ranges` are UTF-16 offsets
    /// (`SearchPreview.matchRanges`): cut at scalar boundaries, the text is sliced in place; an
    /// offset inside a surrogate pair (never from a preview) takes the UTF-16 path, which shows the
    /// halves as U+FFFD.
    static func highlighted(_ preview: String, ranges: [[Int]], terminal: Bool) -> String {
        let text = SearchCLI.sanitized(preview)
        let merged = mergedRanges(ranges, length: text.utf16.count)
        let (open, close) = terminal ? ("\u{1B}[1;7m", "\u{1B}[0m") : ("[", "]")
        var bounds: [String.Index] = []
        bounds.reserveCapacity(merged.count * 2)
        var index = text.utf16.startIndex
        var offset = 0
        for bound in merged.flatMap({ [$0.0, $0.1] }) {
            index = text.utf16.index(index, offsetBy: bound - offset)
            offset = bound
            guard index.samePosition(in: text.unicodeScalars) != nil else {
                return highlightedUTF16(text, merged: merged, open: open, close: close)
            }
            bounds.append(index)
        }
        var result = ""
        result.reserveCapacity(text.utf8.count + merged.count * (open.utf8.count + close.utf8.count))
        var position = text.startIndex
        for pair in Swift.stride(from: 0, to: bounds.count, by: 2) {
            result += text[position..<bounds[pair]]
            result += open
            result += text[bounds[pair]..<bounds[pair + 1]]
            result += close
            position = bounds[pair + 1]
        }
        result += text[position...]
        return result
    }

    /// `ranges` clamped to `0...length`, empty ones left out, sorted, overlapping ones merged.
    static func mergedRanges(_ ranges: [[Int]], length: Int) -> [(Int, Int)] {
        var merged: [(Int, Int)] = []
        for range in ranges.compactMap({ $0.count == 2 ? ($0[0], $0[1]) : nil }).sorted(by: { $0.0 < $1.0 }) {
            let start = max(0, min(range.0, length))
            let end = max(start, min(range.1, length))
            guard end > start else { continue }
            if let last = merged.last, start <= last.1 {
                merged[merged.count - 1].1 = max(last.1, end)
            } else {
                merged.append((start, end))
            }
        }
        return merged
    }

    /// `highlighted` through the UTF-16 code units, for ranges that cut a surrogate pair.
    static func highlightedUTF16(_ text: String, merged: [(Int, Int)], open: String, close: String) -> String {
        let units = Array(text.utf16)
        var result = ""
        var position = 0
        for (start, end) in merged {
            result += String(decoding: units[position..<start], as: UTF16.self)
            result += open + String(decoding: units[start..<end], as: UTF16.self) + close
            position = end
        }
        result += String(decoding: units[position...], as: UTF16.self)
        return result
    }

    /// The `--json` shape (documented in the README).
    struct JSONResults: Encodable {
        struct Result: Encodable {
            let uid: String
            let pageIndex: Int
            let preview: String
            let matchRanges: [[Int]]
            let hasPreview: Bool
            let score: Double
            let isAnnotation: Bool
            let annotationIndex: Int?
            let isOCR: Bool
        }

        let query: String
        let rankedUIDs: [String]
        let documents: [String: [Int]]
        let results: [Result]

        init(query: String, results: SearchResults) {
            self.query = query
            rankedUIDs = results.rankedUIDs
            documents = results.documents
            self.results = results.previews.map {
                Result(
                    uid: $0.uid, pageIndex: $0.pageIndex, preview: $0.preview, matchRanges: $0.matchRanges,
                    hasPreview: $0.hasPreview, score: $0.score.isFinite ? $0.score : 0, isAnnotation: $0.isAnnotation,
                    annotationIndex: $0.isAnnotation ? $0.annotationIndex : nil, isOCR: $0.isOCR)
            }
        }
    }
}

import Cipherdex
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What the search commands share: status lines, number options, terminal output.
enum SearchCLI {
    /// File extensions the built-in extractors read (what `add` accepts and `index` defaults to).
    static let supportedExtensions: Set<String> = PlainTextExtractor.supportedExtensions.union(["pdf"])

    /// `finished (3 pages)`, `failed: reason`, `locked (password-protected, not indexed)`, `queued`, …
    static func describe(_ status: IndexStatus) -> String {
        switch status {
        case .unknown: return "unknown (not in the index)"
        case .queued: return "queued"
        case .indexing(let fraction): return "indexing (\(Int((fraction * 100).rounded()))%)"
        case .finished(let pageCount): return "finished (\(pageCount) \(pageCount == 1 ? "page" : "pages"))"
        case .failed(let reason): return "failed: \(singleLine(reason))"
        case .locked: return "locked (password-protected, not indexed)"
        }
    }

    /// A status as JSON: `{"uid": …, "state": …, "pageCount"?: …, "reason"?: …, "fraction"?: …}`.
    static func json(uid: String, status: IndexStatus) -> JSONValue {
        var members: [String: JSONValue] = ["uid": .string(uid), "state": .string(status.name)]
        switch status {
        case .finished(let pageCount): members["pageCount"] = .number(JSONNumber(pageCount))
        case .failed(let reason): members["reason"] = .string(reason)
        case .locked: members["reason"] = .string("the document is password-protected")
        case .indexing(let fraction): members["fraction"] = JSONNumber(fraction).map(JSONValue.number) ?? .null
        case .unknown, .queued: break
        }
        return .object(members)
    }

    /// Parses a positive integer option value; a usage error otherwise.
    static func positiveInteger(_ value: String?, option: String) throws -> Int? {
        guard let value else { return nil }
        guard let number = Int(value), number > 0 else { throw CLIError.usage("\(option) needs a positive integer") }
        return number
    }

    /// Text from a document made safe for a terminal: control characters (an escape sequence in
    /// a hostile PDF could drive the terminal) become spaces, and bidirectional embeddings,
    /// overrides and isolates (a right-to-left override could show `exe.pdf` as `fdp.exe`)
    /// become zero-width spaces, one UTF-16 unit for one, so UTF-16 offsets into the text stay
    /// valid.
    static func sanitized(_ text: String) -> String {
        // Most previews need no change: scan the UTF-8 once and return the text itself.
        var text = text
        let unchanged = text.withUTF8 { bytes in
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                if byte < 0x20 || byte == 0x7F { return false }
                // U+0080–U+009F (C2 80–C2 9F) and the separators and bidi controls below.
                if byte == 0xC2, index + 1 < bytes.count, bytes[index + 1] <= 0x9F { return false }
                // U+2028/U+2029 and U+202A–U+202E are E2 80 A8–AE; U+2066–U+2069 are E2 81 A6–A9.
                if byte == 0xE2, index + 2 < bytes.count {
                    let second = bytes[index + 1]
                    let third = bytes[index + 2]
                    if second == 0x80, (0xA8...0xAE).contains(third) { return false }
                    if second == 0x81, (0xA6...0xA9).contains(third) { return false }
                }
                index += 1
            }
            return true
        }
        if unchanged { return text }
        return String(
            String.UnicodeScalarView(
                text.unicodeScalars.map { scalar in
                    if isBidiControl(scalar) { return "\u{200B}" }
                    return isReplacedForTerminal(scalar) ? " " : scalar
                }))
    }

    /// Whether `scalar` is a bidirectional embedding, override or isolate (U+202A–U+202E,
    /// U+2066–U+2069), which a terminal that lays out bidirectional text would obey: shown as a
    /// zero-width space. Poppler writes embeddings into mixed-direction lines of real pages, so
    /// they are not made visible; the marks U+200E, U+200F and U+061C only set a direction and
    /// are kept.
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
    }

    /// Whether `scalar` is shown as a space: a control character (general category Cc, which
    /// Unicode fixes as U+0000–U+001F and U+007F–U+009F) or a line or paragraph separator.
    static func isReplacedForTerminal(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    /// One line: line breaks and other controls become spaces.
    static func singleLine(_ text: String) -> String { sanitized(text) }

    /// Whether standard error is a terminal.
    static var stderrIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }
}

/// A one-line progress bar on standard error, redrawn in place (only used on a terminal).
final class ProgressLine: Sendable {
    private struct State {
        var done = 0
        var total: Int?
        var current = ""
        var visible = false
    }

    private let state = Mutex(State())
    private let enabled: Bool

    /// Draws nothing unless `enabled`.
    init(enabled: Bool) {
        self.enabled = enabled
    }

    /// The number of documents to wait for, once known.
    func setTotal(_ total: Int) {
        state.withLock { state in
            state.total = total
            draw(&state)
        }
    }

    /// A document started.
    func started(_ uid: String) {
        state.withLock { state in
            state.current = uid
            draw(&state)
        }
    }

    /// A document ended (indexed, failed, locked or unchanged).
    func ended(_ uid: String) {
        state.withLock { state in
            state.done += 1
            if state.current == uid { state.current = "" }
            draw(&state)
        }
    }

    /// Waits (at most `timeout` seconds) until `ended` has been called at least as many times as
    /// the total, so that the last frame drawn shows every document: events can still be on their
    /// way to the watcher when indexing is over. Returns at once when the line is not shown.
    func waitUntilAllEnded(timeout: Double = 1) {
        guard enabled else { return }
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeout * 1e9)
        while DispatchTime.now().uptimeNanoseconds < deadline {
            if state.withLock({ $0.done >= ($0.total ?? 0) }) { return }
            usleep(2_000)
        }
    }

    /// Erases the line.
    func clear() {
        state.withLock { state in
            guard enabled, state.visible else { return }
            FileHandle.standardError.write(Data("\r\u{1B}[K".utf8))
            state.visible = false
        }
    }

    private func draw(_ state: inout State) {
        guard enabled else { return }
        let width = 24
        var line = "\r\u{1B}[K"
        if let total = state.total, total > 0 {
            let shown = min(state.done, total)
            let filled = width * shown / total
            line += "[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "] "
            line += "\(shown)/\(total)"
        } else {
            line += "indexing… \(state.done) done"
        }
        if !state.current.isEmpty {
            let name = SearchCLI.sanitized(state.current)
            line += "  " + (name.count > 40 ? "…" + name.suffix(39) : name)
        }
        FileHandle.standardError.write(Data(line.utf8))
        state.visible = true
    }
}

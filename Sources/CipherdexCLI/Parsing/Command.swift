import Cipherdex
import Foundation
import Synchronization

/// One `cipherdex` subcommand: parses and validates its arguments in `init`, then runs.
protocol Command {
    /// The word after `cipherdex`.
    static var name: String { get }
    /// One line for the command list.
    static var summary: String { get }
    /// The full `--help` text.
    static var help: String { get }
    /// Parses and validates; throws `CLIError.usage` for bad arguments.
    init(parsing arguments: inout Arguments) throws
    /// Does the work.
    func run() throws
}

/// Writing to stdout and stderr without buffering surprises.
enum Output {
    /// Writes text to standard output.
    static func print(_ text: String, terminator: String = "\n") throws {
        var bytes = Array((text + terminator).utf8)
        try bytes.withUnsafeMutableBytes { try write(UnsafeRawBufferPointer($0)) }
    }

    /// Writes raw bytes to standard output, all of them; a failure is typed by
    /// `writeFailure(errno:)` (a full disk `diskFull`, exit 18; a device's input/output error
    /// `ioError`, exit 19; a closed pipe, with SIGPIPE ignored, `io`, exit 1), or, once the
    /// command has committed its change (`committed(_:)`), `outputFailed` (exit 21) saying what
    /// is in effect. Never a trap: what the command did stays done.
    static func write(_ bytes: UnsafeRawBufferPointer) throws {
        do {
            try standardOutput.writeAll(bytes)
        } catch let error as SystemError {
            if let done = committedChange.withLock({ $0 }) {
                throw CLIError.outputFailed(done: done, reason: String(cString: strerror(error.errno)))
            }
            throw writeFailure(errno: error.errno)
        }
    }

    /// Notes that the running command's change is committed, as `done` says ("the document
    /// notes/a is stored"): from here a report that cannot be written is `outputFailed`, never
    /// an error saying the write did not happen (whose advice, retry, a changed key would
    /// defeat). SIGPIPE is ignored from here too, so that a closed pipe is that error rather than
    /// the signal ending the process without a word (before a commit, and in commands that change
    /// nothing, a closed pipe still ends the process quietly, as `cipherdex search … | head`
    /// expects).
    static func committed(_ done: String) {
        committedChange.withLock { $0 = done }
        signal(SIGPIPE, SIG_IGN)
    }

    /// What the running command has committed, when it has.
    private static let committedChange = Mutex<String?>(nil)

    /// The error for a write to standard output that failed with `code`, the same for every
    /// command: a full disk or quota is `diskFull` (exit 18), a file-size limit `fileTooLarge`
    /// (18), a device's input/output error `ioError` (19), anything else `io` (1).
    static func writeFailure(errno code: Int32) -> Error {
        switch code {
        case ENOSPC, EDQUOT: return StoreError.diskFull(path: "standard output")
        case EFBIG: return StoreError.fileTooLarge(path: "standard output")
        case EIO:
            return StoreError.ioError(
                path: "standard output", reason: "write failed: \(String(cString: strerror(EIO)))")
        default:
            return CLIError.failed(
                code: "io", message: "cannot write to standard output: \(String(cString: strerror(code)))")
        }
    }

    /// Standard output through the store's system layer (never closed: the process keeps it).
    private static let standardOutput = FileDescriptor(adopting: STDOUT_FILENO, path: "standard output")

    /// Writes a line to standard error (a failure there has nowhere to be reported: ignored).
    static func printError(_ text: String) {
        let bytes = Array((text + "\n").utf8)
        bytes.withUnsafeBytes { try? standardError.writeAll($0) }
    }

    /// Standard error through the same layer (never closed either).
    private static let standardError = FileDescriptor(adopting: STDERR_FILENO, path: "standard error")

    /// Whether standard output is a terminal.
    static var isTerminal: Bool { isatty(STDOUT_FILENO) == 1 }

    /// A name from the store (a document id may hold C1 control characters, U+0080–U+009F, line
    /// or paragraph separators and bidirectional controls) as shown on a terminal: each of those
    /// as `\u{XX}`, so that none drives the terminal (U+009B is a control sequence introducer
    /// there, U+202E reverses what follows); unchanged when standard output is not a terminal,
    /// where a script reads the exact id.
    static func shown(_ name: String) -> String {
        let isEscaped = { (scalar: Unicode.Scalar) in
            SearchCLI.isReplacedForTerminal(scalar) || SearchCLI.isBidiControl(scalar)
        }
        guard isTerminal, name.unicodeScalars.contains(where: isEscaped) else { return name }
        var text = ""
        for scalar in name.unicodeScalars {
            if isEscaped(scalar) {
                text += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            } else {
                text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// JSON text of an encodable value (sorted keys, pretty).
    static func json<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

/// The STORE argument and the KEY option group, shared by every command that opens a store.
struct StoreArguments {
    /// The store's directory.
    let path: String
    /// Where the key comes from.
    let key: KeyOptions

    /// Pulls the KEY options, then the STORE positional, out of `arguments`.
    init(parsing arguments: inout Arguments) throws {
        key = try KeyOptions(parsing: &arguments)
        path = try arguments.path("STORE")
    }

    /// Opens the existing store (never creates one), each connection with a page cache of
    /// `cacheSizeKiB` (`StoreConfiguration.cacheSizeKiB`), reading through the writer's
    /// connection when `readsOnWriter` (`StoreConfiguration.readsOnWriter`: one search, then exit).
    func open(
        passphraseCost: PassphraseCost = .default, cacheSizeKiB: Int = Self.defaultCacheSizeKiB,
        readsOnWriter: Bool = false
    ) throws -> Store {
        try Self.open(
            path: path, key: key, passphraseCost: passphraseCost, cacheSizeKiB: cacheSizeKiB,
            readsOnWriter: readsOnWriter)
    }

    /// The library's page cache per connection.
    static let defaultCacheSizeKiB = StoreConfiguration(path: "").cacheSizeKiB

    /// Opens the existing store at `path` with `key` (never creates one).
    static func open(
        path: String, key: KeyOptions, passphraseCost: PassphraseCost = .default,
        cacheSizeKiB: Int = defaultCacheSizeKiB, readsOnWriter: Bool = false
    ) throws -> Store {
        // As the library says it (it was "notAStore:  is not a Cipherdex store").
        if path.isEmpty { throw StoreError.invalidPath(path: path, reason: "the path is empty") }
        // A path no file can be at is said so, not "no store here".
        var info = stat()
        if stat(path, &info) != 0 {
            if errno == ELOOP { throw StoreError.invalidPath(path: path, reason: "its symbolic links form a loop") }
            if errno == ENAMETOOLONG {
                throw StoreError.invalidPath(path: path, reason: "it is longer than the system allows")
            }
        }
        // A folder this process may not search hides whether a store is there: the open names
        // the missing permission instead.
        let searchable =
            !FileManager.default.fileExists(atPath: path) || FileManager.default.isExecutableFile(atPath: path)
        guard Store.exists(at: path) || !searchable else {
            throw StoreError.notAStore(path: path, reason: "no store here (create one with `cipherdex create`)")
        }
        try StoreOwner.refuseRootOnAnotherUsersStore(path)
        var configuration = StoreConfiguration(
            path: path, keyProvider: try key.provider(), passphraseCost: passphraseCost, createIfMissing: false,
            cacheSizeKiB: cacheSizeKiB)
        configuration.readsOnWriter = readsOnWriter
        return try Store.open(configuration)
    }
}

import Cipherdex
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The passwords of password-protected PDFs, for `add` and `index`: `--passwords FILE` (lines
/// `NAME<TAB>PASSWORD`, NAME a UID, a file name or `*` for any file) or `--password-file FILE`
/// (one password for every file). They are read once, kept in memory only for the run, handed to
/// the library's `passwordProvider` (which sends them to the extraction helper over its socket,
/// never in its arguments), and never stored or printed.
struct PasswordOptions {
    /// Help text for the group.
    static let help = """
          --passwords FILE       passwords of protected PDFs: lines NAME<TAB>PASSWORD, NAME a UID,
                                 a file name or * (any file); the first matching line wins
          --password-file FILE   one password (its first line) for every protected PDF
        """

    /// The most bytes a password file may hold.
    static let maximumFileSize = 1 << 20

    /// (name, password) in file order; nil when neither option was given.
    private let entries: [(name: String, password: String)]?

    /// Pulls the group's options out of `arguments` and reads the file; both at once is a usage
    /// error, and so is a line without a tab (named by its number, never its content).
    init(parsing arguments: inout Arguments) throws {
        let table = try arguments.option("--passwords")
        let single = try arguments.option("--password-file")
        switch (table, single) {
        case (nil, nil):
            entries = nil
        case (let path?, nil):
            entries = try Self.parseTable(Self.readText(path, option: "--passwords"))
        case (nil, let path?):
            let text = try Self.readText(path, option: "--password-file")
            let password = String(Self.lines(text).first ?? "")
            guard !password.isEmpty else { throw CLIError.usage("--password-file: the file holds no password") }
            entries = [("*", password)]
        case (_?, _?):
            throw CLIError.usage("give --passwords or --password-file, not both")
        }
    }

    /// The provider for the library: the password of the first line whose NAME is the UID, the
    /// UID's file name, or `*`; nil when no option was given.
    var provider: (@Sendable (String) -> String?)? {
        guard let entries else { return nil }
        return { uid in
            let fileName = PathName.lastComponent(of: uid)
            return entries.first { $0.name == uid || $0.name == fileName || $0.name == "*" }?.password
        }
    }

    /// Whether a password was given for `uid` (a locked document then did not open with it).
    func hasPassword(for uid: String) -> Bool {
        provider?(uid) != nil
    }

    /// What a locked document's line says: that the password given does not open it, or that
    /// it is password-protected when none was given.
    func lockedDescription(uid: String) -> String {
        hasPassword(for: uid)
            ? "locked (the password given does not open it; not indexed)" : SearchCLI.describe(.locked)
    }

    private static func parseTable(_ text: String) throws -> [(name: String, password: String)] {
        var result: [(name: String, password: String)] = []
        for (number, line) in lines(text).enumerated() {
            if line.isEmpty { continue }
            guard let tab = line.firstIndex(of: "\t"), tab != line.startIndex else {
                throw CLIError.usage("--passwords: line \(number + 1) is not NAME<TAB>PASSWORD")
            }
            result.append((String(line[..<tab]), String(line[line.index(after: tab)...])))
        }
        guard !result.isEmpty else { throw CLIError.usage("--passwords: the file holds no NAME<TAB>PASSWORD line") }
        return result
    }

    /// The lines of `text`, ended by LF or CR LF (a Swift `Character`, so split on both).
    private static func lines(_ text: String) -> [Substring] {
        text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" }
    }

    /// The UTF-8 text of a regular file (a FIFO or device is refused at once, never read).
    private static func readText(_ path: String, option: String) throws -> String {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CLIError.failed(
                code: "passwordsUnreadable",
                message: "\(option): cannot read \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw CLIError.failed(code: "passwordsUnreadable", message: "\(option): \(path) is not a regular file")
        }
        guard info.st_size <= maximumFileSize else {
            throw CLIError.failed(
                code: "passwordsUnreadable", message: "\(option): \(path) is larger than \(maximumFileSize) bytes")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
        let data = try handle.readToEnd() ?? Data()
        guard let text = String(data: data, encoding: .utf8) else {
            throw CLIError.failed(code: "passwordsUnreadable", message: "\(option): \(path) is not UTF-8 text")
        }
        return text
    }
}

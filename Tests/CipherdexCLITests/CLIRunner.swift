import CipherdexTestSupport
import Foundation
import XCTest

/// Runs the built `cipherdex` executable as a child process.
struct CLIRunner {
    /// What a run produced.
    struct Result {
        let status: Int32
        let stdout: String
        let stderr: String
        let stdoutBytes: [UInt8]
        /// Whether the process was ended by a signal (`status` is then the signal's number).
        var signaled = false
    }

    /// The folder holding the built products (beside the test bundle).
    static let productsDirectory: URL = {
        var url = Bundle(for: Marker.self).bundleURL
        while url.pathExtension == "xctest" || url.lastPathComponent == "Contents" { url.deleteLastPathComponent() }
        return url
    }()

    private final class Marker {}

    /// Whether the tests run under ThreadSanitizer or AddressSanitizer (`make tsan` and `make asan`
    /// set `CIPHERDEX_SANITIZER`): their shadow memory adds to the resident set and needs an
    /// unlimited address space, so memory bounds cannot be measured.
    static var underSanitizer: Bool {
        ["thread", "address"].contains(ProcessInfo.processInfo.environment["CIPHERDEX_SANITIZER"])
    }

    /// SIGPIPE ignored once for the test process, so that writing to a child that has already
    /// exited is an EPIPE error instead of killing the tests.
    private static let ignoreBrokenPipes: Void = { signal(SIGPIPE, SIG_IGN) }()

    /// The working directory for relative paths.
    let directory: String

    /// Runs `cipherdex arguments…` with extra environment and optional stdin bytes; with a
    /// `launcher` (such as `["/usr/bin/time", "-v"]`), runs `launcher… cipherdex arguments…`.
    @discardableResult
    /// `executable` replaces the built `cipherdex` (a copy of it elsewhere, say).
    func run(
        _ arguments: [String], environment: [String: String] = [:], stdin: [UInt8]? = nil, launcher: [String] = [],
        executable path: String? = nil
    ) throws -> Result {
        let process = Process()
        let executable =
            path.map { URL(fileURLWithPath: $0) } ?? Self.productsDirectory.appendingPathComponent("cipherdex")
        if let first = launcher.first {
            process.executableURL = URL(fileURLWithPath: first)
            process.arguments = Array(launcher.dropFirst()) + [executable.path] + arguments
        } else {
            process.executableURL = executable
            process.arguments = arguments
        }
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = input
        Self.ignoreBrokenPipes
        try process.run()
        // A child that exits before reading its input (a refused open) closes the pipe: the
        // write then fails with EPIPE, which is not the test's failure.
        if let stdin { try? input.fileHandleForWriting.write(contentsOf: Data(stdin)) }
        try input.fileHandleForWriting.close()
        // Drain both pipes concurrently so a large output cannot block the child.
        let outBox = DataBox()
        let group = DispatchGroup()
        group.enter()
        DispatchQueue.global().async {
            outBox.data = out.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let errData = err.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        let outData = outBox.data
        process.waitUntilExit()
        return Result(
            status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self), stdoutBytes: Array(outData),
            signaled: process.terminationReason == .uncaughtSignal)
    }

    /// A stand-in for a test case's runner before `setUp` makes the real one (XCTest creates
    /// every test case up front, so a temporary directory made here would outlive its test).
    static let unassigned = CLIRunner(directory: "/nonexistent/cipherdex-cli-unassigned")

    /// A runner in a fresh temporary directory, removed when the test has finished.
    static func temporary() -> CLIRunner {
        CLIRunner(directory: TemporaryDirectory.make(prefix: "cipherdex-cli-"))
    }
}

/// Holds bytes read on another thread (written once, read after the group wait).
private final class DataBox: @unchecked Sendable {
    var data = Data()
}

extension CLIRunner {
    /// Every file and folder below `root` (a folder's path ends in `/`): relative path to bytes.
    static func tree(_ root: String) -> [String: Data] {
        var result: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(atPath: root) else { return result }
        for case let relative as String in walker {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: root + "/" + relative, isDirectory: &isDirectory)
            result[relative + (isDirectory.boolValue ? "/" : "")] =
                isDirectory.boolValue ? Data() : FileManager.default.contents(atPath: root + "/" + relative)
        }
        return result
    }
}

extension CLIRunner {
    /// util-linux `script`, which runs a command on a pseudo-terminal.
    static let script = "/usr/bin/script"

    /// Runs `cipherdex ARGUMENTS` (a shell command line after the executable) on a pseudo-terminal
    /// in this runner's folder: its status and everything it wrote there (stdout and stderr; line
    /// ends as the terminal gives them, `\r\n`). Skips the test when `script` is not installed.
    /// `input`, when given, is what is typed at the terminal.
    func runOnTerminal(_ arguments: String, input: String? = nil) throws -> (status: Int32, output: String) {
        try XCTSkipUnless(FileManager.default.isExecutableFile(atPath: Self.script), "needs util-linux script")
        let binary = Self.productsDirectory.appendingPathComponent("cipherdex").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.script)
        process.arguments = ["-qec", "'\(binary)' \(arguments)", "/dev/null"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let out = Pipe()
        process.standardOutput = out
        let typed = Pipe()
        process.standardInput = input == nil ? FileHandle.nullDevice : typed
        try process.run()
        if let input {
            typed.fileHandleForWriting.write(Data(input.utf8))
            try typed.fileHandleForWriting.close()
        }
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

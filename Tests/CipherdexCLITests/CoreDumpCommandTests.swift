import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// `cipherdex` makes itself not dumpable before it reads a key: no core file of a crash holds keys
/// or plaintext, and processes of the same user cannot read its memory.
final class CoreDumpCommandTests: XCTestCase {
    private static let nobody = ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]

    /// Run as `nobody`, a command waiting on its standard input (blocked in `read(0, …)`, the
    /// document read before the store is opened) has its /proc files (`environ`) owned by root,
    /// as the kernel makes them for a process that is not dumpable; `cat` run the same way,
    /// dumpable, has them owned by `nobody`.
    func testTheCommandIsNotDumpable() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: Self.nobody[0]) else {
            throw XCTSkip("needs root and setpriv to run a command as nobody")
        }
        let cli = CLIRunner.temporary()
        let store = cli.directory + "/s"
        XCTAssertEqual(try cli.run(["create", store, "--plaintext"]).status, 0)
        XCTAssertEqual(chmod(cli.directory, 0o755), 0)
        for name in [""] + (FileManager.default.subpaths(atPath: store) ?? []).map({ "/" + $0 }) {
            XCTAssertEqual(lchown(store + name, 65534, 65534), 0, name)
        }
        let cipherdex = CLIRunner.productsDirectory.appendingPathComponent("cipherdex").path
        XCTAssertEqual(try procOwner(of: ["/bin/cat"], ready: Self.readsStandardInput), 65534)
        let owner = try procOwner(
            of: [cipherdex, "doc", "put", store, "notes", "one", "-"], ready: Self.readsStandardInput)
        XCTAssertEqual(owner, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: store + "/store.db"))
    }

    /// The PDF extraction helpers, run as `nobody` and waiting for their first request (blocked
    /// in `read(0, …)`), are not dumpable either (`execve` made them dumpable again): the
    /// `cipherdex` command re-run in helper mode (the C entry before `main`) and the standalone
    /// `cipherdex-extract` (`PDFExtractionHelper.run`). Their memory holds the decrypted PDF, its
    /// text and a password. Run from hard links (or copies) in a folder `nobody` can reach: the
    /// build folder may be below one it cannot (/root).
    func testTheExtractionHelpersAreNotDumpable() throws {
        guard getuid() == 0, FileManager.default.isExecutableFile(atPath: Self.nobody[0]) else {
            throw XCTSkip("needs root and setpriv to run a command as nobody")
        }
        let cli = CLIRunner.temporary()
        XCTAssertEqual(chmod(cli.directory, 0o755), 0)
        var reachable: [String: String] = [:]
        for name in ["cipherdex", "cipherdex-extract"] {
            let built = CLIRunner.productsDirectory.appendingPathComponent(name).path
            let placed = cli.directory + "/" + name
            if link(built, placed) != 0 { try FileManager.default.copyItem(atPath: built, toPath: placed) }
            reachable[name] = placed
        }
        let helperMode = ["CIPHERDEX_EXTRACT_HELPER_MODE": "1"]
        let selfHelper = try procOwner(
            of: [reachable["cipherdex"]!, "--cipherdex-extract-helper"], environment: helperMode, input: Data(),
            ready: Self.readsStandardInput)
        XCTAssertEqual(selfHelper, 0)
        let standalone = try procOwner(
            of: [reachable["cipherdex-extract"]!], input: Data(), ready: Self.readsStandardInput)
        XCTAssertEqual(standalone, 0)
    }

    /// Whether process `pid` is blocked in `read` of its standard input (`/proc/PID/syscall`:
    /// system call 0, first argument 0).
    private static func readsStandardInput(_ pid: Int32) -> Bool {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/syscall", encoding: .utf8) else { return false }
        return text.hasPrefix("0 0x0 ")
    }

    /// Runs `command` as nobody with a pipe for standard input and `environment` added to this
    /// process's; once it has executed and `ready` holds, the owner of its /proc entry; then gives
    /// it `input` (default a JSON object), closes its input and waits for it to exit with 0.
    private func procOwner(
        of command: [String], environment: [String: String] = [:], input bytes: Data = Data("{\"n\": 1}".utf8),
        ready: (Int32) -> Bool
    ) throws -> uid_t? {
        let process = Process()
        let input = Pipe()
        process.executableURL = URL(fileURLWithPath: Self.nobody[0])
        process.arguments = Array(Self.nobody.dropFirst()) + command
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardInput = input
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        var owner: uid_t?
        let pid = process.processIdentifier
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline && owner == nil {
            let image = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(pid)/exe")) ?? ""
            var info = stat()
            if image.hasSuffix(command[0].split(separator: "/").last.map(String.init) ?? ""), ready(pid),
                stat("/proc/\(pid)/environ", &info) == 0
            {
                owner = info.st_uid
            } else {
                usleep(10_000)
            }
        }
        input.fileHandleForWriting.write(bytes)
        try input.fileHandleForWriting.close()
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, "\(command)")
        return owner
    }
}

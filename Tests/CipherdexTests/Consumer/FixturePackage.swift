import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// Tests/Fixtures/ConsumerApp, a package that depends on this one by path as a user's would:
/// built with `swift build` into its own scratch path, `.build/consumer-app` (kept between runs,
/// so only the first build compiles Cipherdex again), and its programs run.
enum FixturePackage {
    /// The package root of this repository.
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path
    /// The fixture package's folder.
    static let path = repositoryRoot + "/Tests/Fixtures/ConsumerApp"
    /// Its scratch path.
    static let scratchPath = repositoryRoot + "/.build/consumer-app"

    /// How a process ended, with its output.
    struct Result {
        /// The exit status (-1 when it was killed at the deadline).
        var status: Int32
        /// Standard output and standard error, interleaved.
        var output: String
    }

    /// Runs `executable arguments…` in `directory` with `environment` added, killed after
    /// `timeout` seconds.
    static func run(
        _ executable: String, _ arguments: [String], in directory: String = repositoryRoot,
        environment: [String: String] = [:], timeout: Double
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let killer = DispatchWorkItem { [process] in if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: killer)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        killer.cancel()
        let killed = process.terminationReason == .uncaughtSignal
        return Result(status: killed ? -1 : process.terminationStatus, output: text)
    }

    /// `swift build` of the fixture with `arguments` (`--product X`, `--target Y`): at most 20
    /// minutes (a clean build compiles all of Cipherdex in debug).
    static func build(_ arguments: [String], scratchPath: String = scratchPath) throws -> Result {
        try run(
            "/usr/bin/env",
            // The plan is made anew each time: a cached one misses files added to the project since.
            ["swift", "build", "--package-path", path, "--scratch-path", scratchPath, "--disable-build-manifest-caching"]
                + arguments,
            timeout: 1200)
    }
}

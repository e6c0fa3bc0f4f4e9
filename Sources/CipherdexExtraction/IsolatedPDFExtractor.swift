import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Extracts text from PDFs in a separate, resource-limited `cipherdex-extract` helper process.
///
/// Poppler can loop forever or allocate gigabytes on hostile input, and can crash. Here the PDF is
/// written to the helper's standard input over a pipe (never to disk); the helper caps its own
/// address space and CPU time, and this side kills it (SIGKILL) at a wall-clock deadline. Every
/// outcome is a document or a typed `ExtractionError`:
///
/// - deadline passed, or SIGXCPU → `.timedOut`
/// - SIGKILL it did not get from us (the kernel's OOM killer), or an abort/crash whose standard
///   error reports an allocation failure (the RLIMIT_AS cap) → `.memoryLimitExceeded` (best effort)
/// - any other crash or malformed answer → `.helperCrashed`
public struct IsolatedPDFExtractor: PDFExtractor {
    /// Resource limits for one extraction.
    public struct Limits: Sendable, Equatable {
        /// Wall-clock seconds before the helper is killed.
        public var wallClockSeconds: Double
        /// CPU seconds the helper may use (RLIMIT_CPU; SIGXCPU after that).
        public var cpuSeconds: Int
        /// Address space the helper may map (RLIMIT_AS), in bytes; at least 128 MiB (the helper
        /// maps about 91 MiB of libraries before reading input), smaller values are raised.
        public var memoryBytes: Int
        /// The largest answer accepted from the helper, in bytes.
        public var maximumOutputBytes: Int

        /// Creates limits; the defaults are 30 s wall clock, 30 s CPU, 1 GiB, 256 MiB of output.
        public init(wallClockSeconds: Double = 30, cpuSeconds: Int = 30, memoryBytes: Int = 1 << 30, maximumOutputBytes: Int = 256 << 20) {
            self.wallClockSeconds = wallClockSeconds
            self.cpuSeconds = cpuSeconds
            self.memoryBytes = max(memoryBytes, 128 << 20)
            self.maximumOutputBytes = maximumOutputBytes
        }
    }

    /// The helper executable's file name.
    public static let helperName = "cipherdex-extract"
    /// An environment variable naming the helper's path, checked before the default locations.
    public static let helperPathEnvironmentKey = "CIPHERDEX_EXTRACT_HELPER"

    /// The helper's path; nil means `locateHelper()` at each extraction.
    public let helperPath: String?
    /// The limits applied to each extraction.
    public let limits: Limits

    /// Creates an extractor using the helper at `helperPath` (or the one `locateHelper()` finds).
    public init(helperPath: String? = nil, limits: Limits = Limits()) {
        self.helperPath = helperPath
        self.limits = limits
    }

    /// Extracts the PDF in `data` in the helper process, under `limits`.
    public func extract(data: [UInt8], password: String?) throws -> ExtractedDocument {
        guard !data.isEmpty else { throw ExtractionError.damaged(reason: "the file is empty") }
        guard data.count < HelperProtocol.maximumFrameLength else { throw ExtractionError.memoryLimitExceeded(bytes: limits.memoryBytes) }
        guard let path = helperPath ?? Self.locateHelper() else {
            throw ExtractionError.helperUnavailable(reason: "\(Self.helperName) was not found next to the executable; set \(Self.helperPathEnvironmentKey)")
        }
        let process = ChildProcess(
            executable: path,
            arguments: ["--memory-limit", String(limits.memoryBytes), "--cpu-limit", String(limits.cpuSeconds)],
            environment: ["SWIFT_BACKTRACE=enable=no", "LC_ALL=C.UTF-8", "GIO_USE_VFS=local"],
            timeout: limits.wallClockSeconds,
            maximumOutput: limits.maximumOutputBytes
        )
        let outcome = try process.run(input: HelperProtocol.encodeRequest(document: data, password: password))
        switch try interpret(outcome) {
        case .success(let document): return document
        case .failure(let error): throw error
        }
    }

    /// Maps what the helper did to a document or an error.
    func interpret(_ outcome: ChildProcess.Outcome) throws -> Result<ExtractedDocument, ExtractionError> {
        if outcome.timedOut { return .failure(.timedOut(seconds: limits.wallClockSeconds)) }
        if outcome.outputLimitExceeded { return .failure(.memoryLimitExceeded(bytes: limits.maximumOutputBytes)) }
        let reportsAllocationFailure = Self.reportsAllocationFailure(outcome.errorTail)
        switch outcome.termination {
        case .exited(let status):
            if let answer = try? HelperProtocol.decodeAnswer(outcome.output) { return answer }
            if reportsAllocationFailure { return .failure(.memoryLimitExceeded(bytes: limits.memoryBytes)) }
            return .failure(.helperCrashed(signal: nil, exitStatus: status))
        case .signaled(let signal):
            switch signal {
            case SIGXCPU:
                return .failure(.timedOut(seconds: Double(limits.cpuSeconds)))
            case SIGKILL:
                return .failure(.memoryLimitExceeded(bytes: limits.memoryBytes))
            default:
                if reportsAllocationFailure { return .failure(.memoryLimitExceeded(bytes: limits.memoryBytes)) }
                return .failure(.helperCrashed(signal: signal, exitStatus: nil))
            }
        }
    }

    /// Whether the helper's last standard-error output reports a failed allocation (poppler's
    /// "Out of memory", glib's "failed to allocate", C++ `std::bad_alloc`, Swift's runtime).
    static func reportsAllocationFailure(_ errorTail: [UInt8]) -> Bool {
        let text = String(decoding: errorTail.suffix(8192), as: UTF8.self).lowercased()
        return ["out of memory", "failed to allocate", "bad_alloc", "cannot allocate", "could not allocate", "allocation failed"]
            .contains { text.contains($0) }
    }

    /// The first executable among: `$CIPHERDEX_EXTRACT_HELPER`, `cipherdex-extract` next to the
    /// running executable (`/proc/self/exe`, which under `swift test` is the test bundle in
    /// `.build/<config>`), next to `Bundle.main`, next to any loaded bundle (an `.xctest` bundle
    /// directory on other platforms), and next to `argv[0]`.
    public static func locateHelper() -> String? {
        let fileManager = FileManager.default
        var candidates: [String] = []
        if let override = ProcessInfo.processInfo.environment[helperPathEnvironmentKey], !override.isEmpty {
            candidates.append(override)
        }
        if let executable = try? fileManager.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(sibling(of: executable))
        }
        if let executable = Bundle.main.executableURL?.path {
            candidates.append(sibling(of: executable))
        }
        for bundle in Bundle.allBundles {
            candidates.append(sibling(of: bundle.bundlePath))
        }
        if let first = CommandLine.arguments.first, first.contains("/") {
            candidates.append(sibling(of: first))
        }
        return candidates.first { path in
            var isDirectory: ObjCBool = false
            return fileManager.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
                && fileManager.isExecutableFile(atPath: path)
        }
    }

    /// `helperName` in the directory that holds `path`.
    private static func sibling(of path: String) -> String {
        var directory = (path as NSString).deletingLastPathComponent
        if directory.isEmpty { directory = "." }
        return directory + "/" + helperName
    }
}

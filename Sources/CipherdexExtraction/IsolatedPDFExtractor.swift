import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Extracts text from PDFs in separate, resource-limited helper processes: by default the running
/// executable itself, re-run in helper mode (`PDFExtractionHelper`, `locateHelper()`).
///
/// Poppler can loop forever or allocate gigabytes on hostile input, and can crash. Here the PDF is
/// written to a helper's standard input over a socket (never to disk); the helper caps its own
/// address space and its CPU time per request, and this side kills it (SIGKILL) at a wall-clock
/// deadline. Helpers are long-lived and reused from an `IsolatedExtractorPool` (the one given, or
/// the process-wide pool for this helper path and these limits); one that fails in any way is
/// killed and never reused. Every outcome is a document or a typed `ExtractionError`:
///
/// - deadline passed, or SIGXCPU → `.timedOut`
/// - SIGKILL it did not get from us (the kernel's OOM killer), or an abort/crash whose standard
///   error reports an allocation failure (the RLIMIT_AS cap), or an answer larger than
///   `maximumOutputBytes` → `.memoryLimitExceeded` (best effort)
/// - any other crash or malformed answer → `.helperCrashed`
public struct IsolatedPDFExtractor: PDFExtractor {
    /// Resource limits for one extraction.
    public struct Limits: Sendable, Hashable {
        /// Wall-clock seconds per request before the helper is killed.
        public var wallClockSeconds: Double
        /// CPU seconds the helper may use per request (RLIMIT_CPU; SIGXCPU after that).
        public var cpuSeconds: Int
        /// Address space the helper may map (RLIMIT_AS), in bytes; at least 128 MiB (the helper
        /// maps about 91 MiB of libraries before reading input), smaller values are raised.
        public var memoryBytes: Int
        /// The largest answer accepted from the helper, in bytes.
        public var maximumOutputBytes: Int

        /// Creates limits; the defaults are 30 s wall clock, 30 s CPU, 1 GiB, 256 MiB of output.
        public init(
            wallClockSeconds: Double = 30, cpuSeconds: Int = 30, memoryBytes: Int = 1 << 30,
            maximumOutputBytes: Int = 256 << 20
        ) {
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

    /// The helper's path; nil means `locateHelper()` when a helper starts.
    public let helperPath: String?
    /// The limits applied to each extraction.
    public let limits: Limits
    /// The pool the helpers come from; nil means `IsolatedExtractorPool.shared(helperPath:limits:)`.
    public let pool: IsolatedExtractorPool?

    /// Creates an extractor using the helper at `helperPath` (or the one `locateHelper()` finds),
    /// with helpers from the process-wide pool for that path and `limits`.
    public init(helperPath: String? = nil, limits: Limits = Limits()) {
        self.helperPath = helperPath
        self.limits = limits
        self.pool = nil
    }

    /// Creates an extractor with helpers from `pool` (and its path and limits).
    public init(pool: IsolatedExtractorPool) {
        self.helperPath = pool.helperPath
        self.limits = pool.limits
        self.pool = pool
    }

    /// Extracts the PDF in `data` in a helper process, under `limits`.
    public func extract(data: [UInt8], password: String?) throws -> ExtractedDocument {
        guard !data.isEmpty else { throw ExtractionError.damaged(reason: "the file is empty") }
        guard data.count < HelperProtocol.maximumFrameLength else {
            throw ExtractionError.memoryLimitExceeded(bytes: limits.memoryBytes)
        }
        return try (pool ?? IsolatedExtractorPool.shared(helperPath: helperPath, limits: limits)).extract(
            data: data, password: password)
    }

    /// Extracts the PDF in `data` like `extract(data:password:)`, flagging `needsOCR` on the
    /// pages whose text layer has fewer than `ocrCandidatesBelow` non-white-space characters and
    /// that hold an image.
    public func extract(data: [UInt8], password: String?, ocrCandidatesBelow: Int) throws -> ExtractedDocument {
        guard !data.isEmpty else { throw ExtractionError.damaged(reason: "the file is empty") }
        guard data.count < HelperProtocol.maximumFrameLength else {
            throw ExtractionError.memoryLimitExceeded(bytes: limits.memoryBytes)
        }
        return try (pool ?? IsolatedExtractorPool.shared(helperPath: helperPath, limits: limits)).extract(
            data: data, password: password, options: HelperRequestOptions(ocrCandidatesBelow: ocrCandidatesBelow))
    }

    /// Recognises page `pageIndex` of the PDF in `data` with Tesseract in a helper process, in
    /// `settings.languages` at `settings.dpi`: the page (`isOCR` set). The request is under this
    /// extractor's `limits` (give it `OCRSettings.pageLimits`); Tesseract itself stops a little
    /// before the wall-clock limit, so a slow page is `.timedOut` without losing the helper.
    public func recognizePage(_ pageIndex: Int, of data: [UInt8], password: String?, settings: OCRSettings) throws
        -> ExtractedPage
    {
        guard !data.isEmpty else { throw ExtractionError.damaged(reason: "the file is empty") }
        guard data.count < HelperProtocol.maximumFrameLength else {
            throw ExtractionError.memoryLimitExceeded(bytes: limits.memoryBytes)
        }
        let wall = limits.wallClockSeconds
        let page = OCRPageRequest(
            pageIndex: pageIndex, languages: settings.languageString, dpi: settings.dpi,
            maximumPixels: settings.maximumPixels, deadlineSeconds: max(wall - min(5, wall / 10), wall / 2))
        let document: ExtractedDocument
        do {
            document = try (pool ?? IsolatedExtractorPool.shared(helperPath: helperPath, limits: limits)).extract(
                data: data, password: password, options: HelperRequestOptions(ocrPage: page))
        } catch ExtractionError.timedOut {
            // Tesseract's own deadline is a little earlier; the limit said is the page's.
            throw ExtractionError.timedOut(seconds: wall)
        }
        guard let result = document.pages.first, result.index == pageIndex else {
            throw ExtractionError.helperCrashed(signal: nil, exitStatus: nil)
        }
        return result
    }

    /// Maps a request that got no answer to an error.
    static func interpret(_ exchange: HelperProcess.Exchange, limits: Limits) -> ExtractionError {
        switch exchange {
        case .answer(.failure(let error), _):
            return error
        case .answer(.success, _):
            return .helperCrashed(signal: nil, exitStatus: nil)
        case .timedOut:
            return .timedOut(seconds: limits.wallClockSeconds)
        case .outputLimitExceeded:
            return .memoryLimitExceeded(bytes: limits.maximumOutputBytes)
        case .malformed(let termination, let errorTail):
            if reportsAllocationFailure(errorTail) { return .memoryLimitExceeded(bytes: limits.memoryBytes) }
            switch termination {
            case .exited(let status): return .helperCrashed(signal: nil, exitStatus: status)
            case .signaled(let signal): return .helperCrashed(signal: signal, exitStatus: nil)
            case nil: return .helperCrashed(signal: nil, exitStatus: nil)
            }
        case .ended(let termination, let errorTail):
            let reportsAllocationFailure = reportsAllocationFailure(errorTail)
            switch termination {
            case .exited(let status):
                if reportsAllocationFailure { return .memoryLimitExceeded(bytes: limits.memoryBytes) }
                return .helperCrashed(signal: nil, exitStatus: status)
            case .signaled(let signal):
                switch signal {
                case SIGXCPU:
                    return .timedOut(seconds: Double(limits.cpuSeconds))
                case SIGKILL:
                    return .memoryLimitExceeded(bytes: limits.memoryBytes)
                default:
                    if reportsAllocationFailure { return .memoryLimitExceeded(bytes: limits.memoryBytes) }
                    return .helperCrashed(signal: signal, exitStatus: nil)
                }
            }
        }
    }

    /// Whether the helper's last standard-error output reports a failed allocation (poppler's
    /// "Out of memory", glib's "failed to allocate", C++ `std::bad_alloc`, Swift's runtime).
    static func reportsAllocationFailure(_ errorTail: [UInt8]) -> Bool {
        let text = String(decoding: errorTail.suffix(8192), as: UTF8.self).lowercased()
        return [
            "out of memory", "failed to allocate", "bad_alloc", "cannot allocate", "could not allocate",
            "allocation failed",
        ]
        .contains { text.contains($0) }
    }

    /// Where a standalone helper is looked for relative to the executable's folder (the layout
    /// `PREFIX/bin/…` and `PREFIX/libexec/cipherdex/cipherdex-extract`).
    public static let installedHelperPath = "../libexec/cipherdex/" + helperName

    /// The helper path that means "this executable, re-run in helper mode" (`PDFExtractionHelper`):
    /// the kernel resolves it in the child to the very binary the parent runs, even after that file
    /// was moved, replaced or deleted.
    public static let selfHelperPath = "/proc/self/exe"

    /// What to do when no helper can run: where it was looked for, what to build or set.
    public static var missingHelperAdvice: String {
        if let override = ProcessInfo.processInfo.environment[helperPathEnvironmentKey], !override.isEmpty {
            return "PDF extraction needs a helper process, and none can run: \(helperPathEnvironmentKey) is set to "
                + "\(override), which is not an executable file (when set, it is the only helper used): "
                + "point it at a \(helperName) built with `swift build --product \(helperName)`, or unset it "
                + "so that this executable serves as its own helper"
        }
        return "PDF extraction needs a helper process, and none can run: this executable cannot re-run itself as "
            + "the helper (Cipherdex is not linked into the main executable, or it is a sanitizer build) and no "
            + "\(helperName) was found (next to the executable or in \(installedHelperPath) beside it). Call "
            + "`PDFExtractionHelper.runIfRequested()` first thing in `main`, or build the standalone helper with "
            + "`swift build --product \(helperName)` (add `-c release` for a release build) and keep it next to "
            + "the executable or set \(helperPathEnvironmentKey) to its path; or parse PDFs in-process "
            + "(`pdfExtraction = .inProcess`, trusted input only)"
    }

    /// The helper to start, or nil when none can run: `$CIPHERDEX_EXTRACT_HELPER` when it is set
    /// (and then only it: nil when it is not an executable file); otherwise this executable itself
    /// (`selfHelperPath`) when it can serve as the helper, which any executable linking Cipherdex
    /// statically can (`PDFExtractionHelper.isAvailableInThisExecutable`); otherwise a standalone
    /// `cipherdex-extract` next to the running executable (`/proc/self/exe`) or in
    /// `../libexec/cipherdex/` beside it, next to `Bundle.main`, next to any loaded bundle, and
    /// next to `argv[0]`.
    public static func locateHelper() -> String? {
        if let override = ProcessInfo.processInfo.environment[helperPathEnvironmentKey], !override.isEmpty {
            return isExecutableFile(override) ? override : nil
        }
        if PDFExtractionHelper.isAvailableInThisExecutable { return selfHelperPath }
        let fileManager = FileManager.default
        var candidates: [String] = []
        if let executable = try? fileManager.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            candidates.append(sibling(of: executable))
            candidates.append((executable as NSString).deletingLastPathComponent + "/" + installedHelperPath)
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
        return candidates.first(where: isExecutableFile)
    }

    /// Whether `path` is an executable regular file (or a link to one).
    private static func isExecutableFile(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && !isDirectory.boolValue
            && FileManager.default.isExecutableFile(atPath: path)
    }

    /// `helperName` in the directory that holds `path`.
    private static func sibling(of path: String) -> String {
        var directory = (path as NSString).deletingLastPathComponent
        if directory.isEmpty { directory = "." }
        return directory + "/" + helperName
    }
}

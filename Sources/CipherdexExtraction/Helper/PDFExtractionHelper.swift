internal import CExtractHelperEntry
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The PDF extraction helper that `IsolatedPDFExtractor` runs in a separate process.
///
/// Any executable that links Cipherdex is its own helper: the library starts `/proc/self/exe`
/// with `CIPHERDEX_EXTRACT_HELPER_MODE=1` in its environment and `--cipherdex-extract-helper` as
/// its first argument, and a constructor linked into the executable (the `CExtractHelperEntry`
/// target) serves the helper's requests and exits before the program's `main` runs. Nothing is
/// needed in the application's code, and nothing has to be built, installed or shipped beside it.
///
/// `runIfRequested()` is the explicit form for a host whose Cipherdex code is not in the main
/// executable (loaded from a shared library): called first thing in `main`, it serves as the
/// helper when the process was started as one, and otherwise marks this executable as able to.
public enum PDFExtractionHelper {
    /// The environment variable the library sets (to `1`) on a helper it starts, and only there.
    public static let modeEnvironmentKey = "CIPHERDEX_EXTRACT_HELPER_MODE"
    /// The first argument of a helper the library starts.
    public static let modeArgument = "--cipherdex-extract-helper"

    /// Set by `runIfRequested()`: `main` calls it, so a re-executed host serves as a helper.
    private static let explicitlyEnabled = Atomic<Bool>(false)

    /// Whether the running executable can serve as its own helper: its constructor is in the main
    /// executable (not a shared library, not a sanitizer build), or `runIfRequested()` was called.
    public static var isAvailableInThisExecutable: Bool {
        explicitlyEnabled.load(ordering: .acquiring) || cipherdex_helper_entry_in_main_executable() != 0
    }

    /// Serves as the helper and exits when this process was started as one (the environment
    /// variable and first argument above); otherwise records that this executable can be re-run
    /// as a helper, and returns. Call it at the top of `main` where the automatic entry cannot
    /// run; where it can (an ordinary Swift executable), it is not needed.
    public static func runIfRequested() {
        let arguments = CommandLine.arguments
        if let mode = getenv(modeEnvironmentKey), String(cString: mode) == "1", arguments.count > 1,
            arguments[1] == modeArgument
        {
            _exit(run(arguments: Array(arguments.dropFirst())))
        }
        explicitlyEnabled.store(true, ordering: .releasing)
    }

    /// Runs the helper with `arguments` (argv without argv[0]; a leading `modeArgument` is
    /// skipped) and returns its exit status: it first makes itself not dumpable (`execve` made it
    /// dumpable again, although the `cipherdex` command that started it is not: no core file of
    /// it, and other processes of the same user cannot read its memory, which holds the decrypted
    /// document, its text and a password), caps its own resources (address space, a lifetime
    /// CPU cap, no core dumps, no file writes), then serves up to `--requests N` framed requests
    /// (`HelperProtocol`) from standard input, one answer each on standard output, giving itself
    /// a fresh CPU budget of `--cpu-limit` seconds before each. 0 after N answers or at end of
    /// input between requests, 2 for a malformed request or bad arguments.
    public static func run(arguments: [String]) -> Int32 {
        // Again where the C entry did already: `cipherdex-extract` and `runIfRequested()` come here.
        guard cipherdex_helper_make_not_dumpable() == 0 else {
            report("cipherdex-extract: cannot make the helper not dumpable: errno \(errno)\n", to: 2)
            return 2
        }
        let arguments = arguments.first == modeArgument ? Array(arguments.dropFirst()) : arguments
        let options: HelperOptions
        do {
            options = try HelperOptions(arguments: arguments)
        } catch {
            report("cipherdex-extract: \(error)\n\(HelperOptions.usage)\n", to: 2)
            return 2
        }
        if options.showHelp {
            report(HelperOptions.usage + "\n", to: 1)
            return 0
        }
        exitWhenOrphaned()
        // poppler and its libraries are loaded here, in the helper only (never by the host at
        // start), before the limits, as when they were linked; a failure is each request's answer.
        PopplerLibraries.preload()
        do {
            try ResourceLimits.apply(
                memoryBytes: options.memoryBytes, cpuSeconds: options.cpuSeconds, requests: options.requests)
        } catch {
            report("cipherdex-extract: \(error)\n", to: 2)
            return 2
        }
        // One Tesseract engine for the helper's life (its language data is loaded once).
        var recognizer: PageRecognizer?
        for _ in 0..<options.requests {
            let request: (document: [UInt8], password: String?, options: HelperRequestOptions?)
            do {
                guard let next = try HelperProtocol.readRequest({ StandardStreams.read($0, from: 0) }) else { return 0 }
                request = next
            } catch {
                StandardStreams.writeAll(
                    HelperProtocol.encodeAnswer(.failure(.unsupportedFormat("malformed helper request: \(error)"))),
                    to: 1)
                return 2
            }
            do {
                try ResourceLimits.startRequest(cpuSeconds: options.cpuSeconds)
            } catch {
                report("cipherdex-extract: \(error)\n", to: 2)
                return 2
            }
            let outcome: Result<ExtractedDocument, ExtractionError>
            // Whether the reading-order text is still running in its thread (then this helper exits).
            var stalled = false
            do {
                if let page = request.options?.ocrPage {
                    let engine = recognizer ?? PageRecognizer()
                    recognizer = engine
                    outcome = .success(
                        try engine.recognize(data: request.document, password: request.password, request: page))
                } else {
                    var extractor = PDFTextExtractor(
                        readingOrderTimeLimit: options.readingOrderSeconds ?? Double(options.cpuSeconds) / 2)
                    extractor.ocrCandidatesBelow = request.options?.ocrCandidatesBelow
                    let extracted = try extractor.extractNotingStall(
                        data: request.document, password: request.password)
                    outcome = .success(extracted.document)
                    stalled = extracted.readingOrderStalled
                }
            } catch let error as ExtractionError {
                outcome = .failure(error)
            } catch {
                outcome = .failure(.damaged(reason: "\(error)"))
            }
            StandardStreams.writeAll(HelperProtocol.encodeAnswer(outcome), to: 1)
            // A stalled poppler call cannot be stopped but with the process: answer, then end.
            if stalled { _exit(0) }
        }
        return 0
    }

    /// The parent the helper was started by (`getppid()` at its start).
    private static let parent = Atomic<Int32>(0)

    /// Ends the helper within 0.2 s once its parent is gone (killed, stopped by Ctrl-C), from a
    /// thread of its own: a page it was recognising, minutes of CPU, is no one's any more, and
    /// it holds the decrypted document (OCR audit: helpers ran on for minutes after the command
    /// was stopped). A parent gone, the helper is another process's child, and `getppid()`
    /// changes. Started before the resource limits (a thread's stack counts against the address
    /// space limit).
    private static func exitWhenOrphaned() {
        parent.store(getppid(), ordering: .relaxed)
        var thread = pthread_t()
        let started = pthread_create(
            &thread, nil,
            { _ in
                while getppid() == PDFExtractionHelper.parent.load(ordering: .relaxed) { usleep(200_000) }
                _exit(3)
            }, nil)
        if started == 0 { pthread_detach(thread) }
    }

    /// Writes `text` to a standard stream.
    private static func report(_ text: String, to fd: Int32) {
        StandardStreams.writeAll(Array(text.utf8), to: fd)
    }
}

/// The automatic entry, called by `CExtractHelperEntry`'s constructor before the host's `main`
/// when the process was started as a helper: runs `PDFExtractionHelper` with `argv` and returns
/// its exit status (the constructor `_exit`s with it). Not for direct use.
@_cdecl("cipherdex_extract_helper_main")
public func _cipherdexExtractHelperMain(
    _ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?
) -> Int32 {
    var arguments: [String] = []
    if let argv {
        for index in 1..<max(Int(argc), 1) {
            if let argument = argv[index] { arguments.append(String(cString: argument)) }
        }
    }
    return PDFExtractionHelper.run(arguments: arguments)
}

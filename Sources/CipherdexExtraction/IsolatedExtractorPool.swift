import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Long-lived `cipherdex-extract` helpers for one helper path and one set of limits, handed to one
/// request at a time, so that isolated extraction does not pay a process start (dynamic linking of
/// poppler, glib and the Swift runtime: more CPU than extracting a typical PDF) per document.
///
/// Thread-safe: any number of threads may extract at once; each takes an idle helper (or starts
/// one), and at most `Policy.maximumIdleHelpers` wait between requests. Every safety property of a
/// one-shot helper holds per request:
///
/// - Each request has its own wall-clock deadline (SIGKILL when it passes) and CPU budget (the
///   helper moves its RLIMIT_CPU soft limit to the CPU time used so far plus `cpuSeconds` before
///   each request, under a lifetime hard cap); RLIMIT_AS, no core dumps and RLIMIT_FSIZE 0 hold
///   for the helper's life.
/// - A helper that fails in any way (timeout, crash, memory, malformed or oversized answer, bytes
///   it was not asked for) is killed and discarded, never reused. When a helper that had already
///   served requests fails other than by timing out, the request is retried once on a fresh helper,
///   so an outcome never depends on the documents a helper saw before.
/// - A helper is retired after `requestsPerHelper` requests, or when its resident set or address
///   space grew past the policy's thresholds, so fragmentation or a slow leak cannot accumulate.
/// - Idle helpers are closed after `idleTimeoutSeconds`, by `close()`, when the pool is released,
///   and at process exit; a helper also exits by itself when its standard input closes.
///
/// `IsolatedPDFExtractor` without an explicit pool uses the process-wide `shared(helperPath:limits:)`
/// pool for its configuration; `SearchLibrary` owns one pool, closed when its store closes.
public final class IsolatedExtractorPool: @unchecked Sendable {
    /// When helpers are kept, reused and retired.
    public struct Policy: Sendable, Hashable {
        /// Helpers kept waiting between requests (more may run at once; extras are closed).
        public var maximumIdleHelpers: Int
        /// Requests after which a helper is retired.
        public var requestsPerHelper: Int
        /// Seconds after which an idle helper is closed.
        public var idleTimeoutSeconds: Double
        /// A helper whose resident set exceeds this many bytes after a request is retired.
        public var maximumResidentBytes: Int
        /// A helper whose address space exceeds this fraction of `Limits.memoryBytes` after a
        /// request is retired (so the next document still has room under RLIMIT_AS).
        public var maximumAddressSpaceFraction: Double

        /// Creates a policy; the defaults are one idle helper per core, 50 requests, 30 s,
        /// 256 MiB resident, half the address-space limit.
        public init(
            maximumIdleHelpers: Int = ProcessInfo.processInfo.activeProcessorCount, requestsPerHelper: Int = 50,
            idleTimeoutSeconds: Double = 30, maximumResidentBytes: Int = 256 << 20,
            maximumAddressSpaceFraction: Double = 0.5
        ) {
            self.maximumIdleHelpers = max(0, maximumIdleHelpers)
            self.requestsPerHelper = max(1, requestsPerHelper)
            self.idleTimeoutSeconds = idleTimeoutSeconds
            self.maximumResidentBytes = maximumResidentBytes
            self.maximumAddressSpaceFraction = maximumAddressSpaceFraction
        }
    }

    /// Counters, for tests and monitoring.
    public struct Statistics: Sendable, Equatable {
        /// Helpers started.
        public var helpersStarted = 0
        /// Requests sent to helpers (a retry counts again).
        public var requests = 0
        /// Helpers discarded after a failure.
        public var helpersDiscarded = 0
        /// Helpers retired after `requestsPerHelper` requests, for their memory, or after the one
        /// request that carried a password.
        public var helpersRetired = 0
        /// Helpers waiting now.
        public var idleHelpers = 0
    }

    /// The helper's path; nil means `IsolatedPDFExtractor.locateHelper()` when one starts.
    public let helperPath: String?
    /// The limits of each request.
    public let limits: IsolatedPDFExtractor.Limits
    /// When helpers are kept, reused and retired.
    public let policy: Policy

    /// Guards everything below.
    private let lock = NSLock()
    /// Waiting helpers, the most recently used last, with when they became idle.
    private var idle: [(helper: HelperProcess, since: ContinuousClock.Instant)] = []
    /// Whether `close()` was called: helpers are no longer kept.
    private var isClosed = false
    /// Whether an idle sweep is scheduled.
    private var sweepScheduled = false
    /// The counters.
    private var counters = Statistics()

    /// Creates an empty pool; helpers start on demand.
    public init(helperPath: String? = nil, limits: IsolatedPDFExtractor.Limits = .init(), policy: Policy = .init()) {
        self.helperPath = helperPath
        self.limits = limits
        self.policy = policy
        let identifier = ObjectIdentifier(self)
        let weakSelf = WeakPool(pool: self)
        Self.registry.withLock { registry in
            registry.live[identifier] = weakSelf
            if !registry.exitHandlerInstalled {
                registry.exitHandlerInstalled = true
                atexit { IsolatedExtractorPool.closeAll() }
            }
        }
    }

    deinit {
        Self.registry.withLock { _ = $0.live.removeValue(forKey: ObjectIdentifier(self)) }
        for entry in idle { entry.helper.terminate() }
    }

    /// The counters so far.
    public var statistics: Statistics {
        lock.withLock {
            var result = counters
            result.idleHelpers = idle.count
            return result
        }
    }

    /// Closes the idle helpers; helpers in use are closed when their request ends. The pool still
    /// works afterwards, one fresh helper per request.
    public func close() {
        let closing = lock.withLock {
            isClosed = true
            defer { idle.removeAll() }
            return idle
        }
        for entry in closing { entry.helper.terminate() }
    }

    /// Extracts the PDF in `data` in a helper, under `limits`.
    func extract(data: [UInt8], password: String?, options: HelperRequestOptions? = nil) throws -> ExtractedDocument {
        try run(data: data, password: password, options: options).result.get()
    }

    /// Extracts in a helper and tells which one answered (its pid; 0 when none could start).
    func run(data: [UInt8], password: String?, options: HelperRequestOptions? = nil) throws -> (
        result: Result<ExtractedDocument, ExtractionError>, helper: pid_t
    ) {
        let request = HelperProtocol.request(document: data, password: password, options: options)
        // A password goes only to a helper that has seen no other document and sees none after:
        // one taken over by an earlier crafted PDF never gets it, and a later one cannot read it
        // from the helper's memory.
        let singleUse = password != nil
        var helper = try checkOut(reuse: !singleUse)
        while true {
            let deadline = ContinuousClock.now + .nanoseconds(Int64(max(limits.wallClockSeconds, 0) * 1_000_000_000))
            let exchange = helper.exchange(request, deadline: deadline, maximumOutput: limits.maximumOutputBytes)
            lock.withLock { counters.requests += 1 }
            if case .answer(let result, let clean) = exchange {
                if singleUse && clean {
                    retire(helper)
                } else {
                    checkIn(helper, reusable: clean)
                }
                return (result, helper.pid)
            }
            discard(helper)
            if case .timedOut = exchange {
            } else if helper.requestCount > 1 {
                // It may have failed for what an earlier document left behind: once more, fresh.
                helper = try checkOut(reuse: false)
                continue
            }
            return (.failure(IsolatedPDFExtractor.interpret(exchange, limits: limits)), helper.pid)
        }
    }

    /// An idle helper that can take a request, or a new one.
    private func checkOut(reuse: Bool) throws -> HelperProcess {
        while reuse, let candidate = lock.withLock({ idle.popLast()?.helper }) {
            if candidate.isIdle { return candidate }
            discard(candidate)
        }
        guard let path = helperPath ?? IsolatedPDFExtractor.locateHelper() else {
            throw ExtractionError.helperUnavailable(reason: IsolatedPDFExtractor.missingHelperAdvice)
        }
        let helper = try HelperProcess(
            ChildProcess(
                executable: path,
                arguments: [
                    PDFExtractionHelper.modeArgument, "--memory-limit", String(limits.memoryBytes),
                    "--cpu-limit", String(limits.cpuSeconds), "--requests", String(policy.requestsPerHelper),
                    // Half the request's budget, so glib's page text has the other half.
                    "--reading-order-limit",
                    String(max(min(limits.wallClockSeconds, Double(limits.cpuSeconds)) / 2, 0.1)),
                ],
                // The mode marker makes a re-executed host (`/proc/self/exe`) serve as the helper.
                environment: [
                    // One OpenMP thread per Tesseract page: pages run in parallel, one per core.
                    "SWIFT_BACKTRACE=enable=no", "LC_ALL=C.UTF-8", "GIO_USE_VFS=local", "OMP_THREAD_LIMIT=1",
                    PDFExtractionHelper.modeEnvironmentKey + "=1", Self.allocatorTuning,
                ] + Self.languageDataEnvironment,
                niceness: Self.helperNiceness
            ))
        lock.withLock { counters.helpersStarted += 1 }
        return helper
    }

    /// How far below the spawning thread's priority helpers run (added to its nice value, at
    /// most 19): extraction and OCR are background work, so a search or any other work of the
    /// same user that wants the CPU gets it first (CFS gives a task 10 nice levels lower about a
    /// tenth of the other's share); alone on the machine they run as fast.
    /// Searches during bulk indexing wait less for a core (BENCHMARKS.md, "Indexing without
    /// statement journals").
    static let helperNiceness: Int32 = 10

    /// glibc's allocator settings in the helper (ignored by a libc that does not know them):
    /// - `tcache_count=1024`: up to 1,024 freed chunks of each small size kept per thread
    ///   (default 7). Poppler's text output allocates and frees a few objects per glyph and word;
    ///   with the default, bursts spill into the arena's bins (coalescing, locks), and
    ///   `malloc`/`free` took a fifth of the helper's CPU. This cut indexing's CPU by about 8%.
    /// - `mmap_threshold=8 MiB`, `trim_threshold=32 MiB`, `top_pad=4 MiB`: a document's buffers
    ///   of 128 KiB and more (its bytes, their copy for poppler, page texts, the answer) come from
    ///   the heap and go back to it, rather than being mapped and unmapped for every document, and
    ///   the heap keeps up to 32 MiB it freed rather than returning it at once. Each page the
    ///   kernel maps afresh costs it a fault and zeroing (1.4–12 µs a page on a virtual machine,
    ///   BENCHMARKS.md, "Fresh memory"): indexing 200 PDFs took 62,000–82,000 page faults
    ///   without these, 22,000 with them, and 2.2% less CPU; the helper's peak RSS did not change
    ///   (BENCHMARKS.md, "Fewer fresh pages in the PDF helper").
    static let allocatorTuning =
        "GLIBC_TUNABLES=glibc.malloc.tcache_count=1024:glibc.malloc.mmap_threshold=8388608"
        + ":glibc.malloc.trim_threshold=33554432:glibc.malloc.top_pad=4194304"

    /// Where the helper finds Tesseract's language data: this process's `TESSDATA_PREFIX`, when
    /// set, so both sides agree on which languages are installed.
    private static var languageDataEnvironment: [String] {
        guard let folder = ProcessInfo.processInfo.environment[OCRLanguageData.environmentKey], !folder.isEmpty else {
            return []
        }
        return [OCRLanguageData.environmentKey + "=" + folder]
    }

    /// Keeps a helper that answered for the next request, unless it must retire.
    private func checkIn(_ helper: HelperProcess, reusable: Bool) {
        guard reusable else { return discard(helper) }
        var retire = helper.requestCount >= policy.requestsPerHelper
        if !retire, let usage = helper.memoryUsage() {
            retire =
                usage.resident > policy.maximumResidentBytes
                || Double(usage.addressSpace) > Double(limits.memoryBytes) * policy.maximumAddressSpaceFraction
        }
        let kept: Bool = lock.withLock {
            if retire { counters.helpersRetired += 1 }
            guard !retire, !isClosed, idle.count < policy.maximumIdleHelpers else { return false }
            idle.append((helper, .now))
            return true
        }
        if kept { scheduleSweep() } else { helper.terminate() }
    }

    /// Ends a helper that answered but must serve no other request.
    private func retire(_ helper: HelperProcess) {
        lock.withLock { counters.helpersRetired += 1 }
        helper.terminate()
    }

    /// Kills a helper that failed.
    private func discard(_ helper: HelperProcess) {
        lock.withLock { counters.helpersDiscarded += 1 }
        helper.terminate()
    }

    /// Makes sure a sweep runs when the oldest idle helper's timeout passes.
    private func scheduleSweep() {
        let oldest: ContinuousClock.Instant? = lock.withLock {
            guard !sweepScheduled, let first = idle.first else { return nil }
            sweepScheduled = true
            return first.since
        }
        guard let oldest else { return }
        let delay = max(
            0, (oldest + .nanoseconds(Int64(policy.idleTimeoutSeconds * 1_000_000_000)) - .now) / .seconds(1))
        DispatchQueue.global().asyncAfter(deadline: .now() + delay + 0.01) { [weak self] in self?.sweep() }
    }

    /// Closes the helpers idle for longer than the timeout.
    private func sweep() {
        let expired: [HelperProcess] = lock.withLock {
            sweepScheduled = false
            let cutoff = ContinuousClock.now - .nanoseconds(Int64(policy.idleTimeoutSeconds * 1_000_000_000))
            let expired = idle.filter { $0.since <= cutoff }.map(\.helper)
            idle.removeAll { $0.since <= cutoff }
            return expired
        }
        for helper in expired { helper.terminate() }
        scheduleSweep()
    }

    // MARK: Process-wide pools

    /// The key of a shared pool.
    private struct Key: Hashable {
        var helperPath: String?
        var limits: IsolatedPDFExtractor.Limits
    }

    /// A pool that may be gone.
    private struct WeakPool {
        weak var pool: IsolatedExtractorPool?
    }

    /// Every live pool (to close at exit) and the shared ones.
    private struct Registry {
        var live: [ObjectIdentifier: WeakPool] = [:]
        var shared: [Key: IsolatedExtractorPool] = [:]
        var exitHandlerInstalled = false
    }

    /// The process-wide registry.
    private static let registry = Mutex(Registry())

    /// The process-wide pool for this helper path and these limits (default policy), created on
    /// first use. Its idle helpers close after the idle timeout and at process exit.
    public static func shared(helperPath: String?, limits: IsolatedPDFExtractor.Limits) -> IsolatedExtractorPool {
        let key = Key(helperPath: helperPath, limits: limits)
        if let pool = registry.withLock({ $0.shared[key] }) { return pool }
        let pool = IsolatedExtractorPool(helperPath: helperPath, limits: limits)
        return registry.withLock { registry in
            if let existing = registry.shared[key] { return existing }
            registry.shared[key] = pool
            return pool
        }
    }

    /// Closes the idle helpers of every live pool (run at process exit).
    static func closeAll() {
        let pools = registry.withLock { $0.live.values.compactMap(\.pool) }
        for pool in pools { pool.close() }
    }
}

import CipherdexPDFWriter
import Foundation
import Synchronization
import XCTest

@testable import CipherdexExtraction

#if canImport(Glibc)
    import Glibc
#endif

/// Helpers are reused across requests, and discarded after any failure, after K requests, when
/// idle too long or when the pool closes.
final class IsolatedExtractorPoolTests: XCTestCase {
    /// A one-page PDF whose text is `text`.
    private static func pdf(_ text: String) -> [UInt8] { makePDF(pages: [text], title: nil) }

    /// Runs `text`'s PDF in `pool`: the extracted text and the helper's pid.
    private static func extract(_ text: String, in pool: IsolatedExtractorPool) throws -> (String, pid_t) {
        let (result, pid) = try pool.run(data: Self.pdf(text), password: nil)
        let document = try result.get()
        return (ExtractionTestSupport.normalized(document.pages.map(\.text).joined(separator: " ")), pid)
    }

    /// Field `number` (1-based, as proc(5) numbers them: 10 minflt, 19 nice) of `/proc/PID/stat`.
    private static func statField(_ number: Int, of pid: pid_t) throws -> Int {
        let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
        // The command name (field 2) may hold spaces: fields are counted after its ")", from 3.
        let fields = stat[stat.index(after: try XCTUnwrap(stat.lastIndex(of: ")")))...].split(separator: " ")
        return try XCTUnwrap(Int(fields[number - 3]), "field \(number) of \(stat)")
    }

    /// Whether `pid` is gone (reaped, not a zombie of ours).
    private func isGone(_ pid: pid_t) -> Bool {
        kill(pid, 0) == -1 && errno == ESRCH
    }

    /// The path of the real helper: this test executable, which serves as its own helper (a
    /// script cannot exec `/proc/self/exe`, which is the shell there). Under a sanitizer
    /// (`make asan`, `make tsan`), the uninstrumented standalone helper the library picks: an
    /// instrumented one cannot map its shadow memory under the helper's 1 GiB address-space cap.
    private func realHelper() throws -> String {
        if ProcessInfo.processInfo.environment["CIPHERDEX_SANITIZER"] != nil {
            let standalone = try XCTUnwrap(IsolatedPDFExtractor.locateHelper())
            XCTAssertNotEqual(standalone, IsolatedPDFExtractor.selfHelperPath)
            return standalone
        }
        XCTAssertEqual(IsolatedPDFExtractor.locateHelper(), IsolatedPDFExtractor.selfHelperPath)
        return try FileManager.default.destinationOfSymbolicLink(atPath: IsolatedPDFExtractor.selfHelperPath)
    }

    /// The same helper process serves consecutive requests, each with its own answer.
    func testHelperIsReused() throws {
        let pool = IsolatedExtractorPool(policy: .init(maximumIdleHelpers: 1))
        let (first, pid1) = try Self.extract("alpha document", in: pool)
        let (second, pid2) = try Self.extract("beta document", in: pool)
        XCTAssertEqual(first, "alpha document")
        XCTAssertEqual(second, "beta document")
        XCTAssertEqual(pid1, pid2)
        let statistics = pool.statistics
        XCTAssertEqual(statistics.helpersStarted, 1)
        XCTAssertEqual(statistics.requests, 2)
        XCTAssertEqual(statistics.idleHelpers, 1)
        // Typed errors are answers too: the helper stays.
        XCTAssertThrowsError(try pool.extract(data: Array("hello".utf8), password: nil)) {
            XCTAssertEqual(($0 as? ExtractionError)?.name, "unsupportedFormat")
        }
        XCTAssertEqual(try Self.extract("gamma", in: pool).1, pid1)
        pool.close()
        XCTAssertEqual(pool.statistics.idleHelpers, 0)
        XCTAssertTrue(isGone(pid1))
    }

    /// A request carrying a password goes to a fresh helper that serves no other request: not
    /// one an earlier document may have taken over, and none a later document could read it from.
    func testAPasswordGoesToAFreshHelperUsedOnce() throws {
        let pool = IsolatedExtractorPool(policy: .init(maximumIdleHelpers: 2))
        defer { pool.close() }
        let (_, shared) = try Self.extract("alpha document", in: pool)
        let (result, withPassword) = try pool.run(data: Self.pdf("beta document"), password: "pw")
        XCTAssertEqual(
            ExtractionTestSupport.normalized(try result.get().pages.map(\.text).joined(separator: " ")), "beta document"
        )
        XCTAssertNotEqual(withPassword, shared)
        XCTAssertTrue(isGone(withPassword))
        XCTAssertEqual(pool.statistics.idleHelpers, 1)
        XCTAssertEqual(pool.statistics.helpersRetired, 1)
        XCTAssertEqual(try Self.extract("gamma", in: pool).1, shared)
        let (_, again) = try pool.run(data: Self.pdf("delta"), password: "pw")
        XCTAssertNotEqual(again, shared)
        XCTAssertNotEqual(again, withPassword)
        XCTAssertEqual(pool.statistics.helpersStarted, 3)
    }

    /// A helper runs `helperNiceness` below this process's priority (background work: a search
    /// in the host gets a core first).
    func testHelpersRunAtALowerPriority() throws {
        let pool = IsolatedExtractorPool(policy: .init(maximumIdleHelpers: 1))
        defer { pool.close() }
        let (_, pid) = try Self.extract("alpha document", in: pool)
        XCTAssertEqual(IsolatedExtractorPool.helperNiceness, 10)
        let own = Int(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
        XCTAssertEqual(try Self.statField(19, of: pid), min(19, own + 10), "nice")
    }

    /// A helper starts with the allocator tuning in its (otherwise minimal) environment, and this
    /// machine's glibc takes the value (its dynamic loader lists the tunable as set).
    func testHelperEnvironmentTunesTheAllocator() throws {
        let pool = IsolatedExtractorPool(policy: .init(maximumIdleHelpers: 1))
        defer { pool.close() }
        let (_, pid) = try Self.extract("alpha document", in: pool)
        let environment = try XCTUnwrap(FileManager.default.contents(atPath: "/proc/\(pid)/environ"))
        // glibc's loader may cut the value at its colons in place (NULs where they were), so the
        // bytes after the name are compared with NULs read as colons.
        let variables = environment.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
        XCTAssertEqual(variables.filter { $0.hasPrefix("GLIBC_TUNABLES=") }.count, 1, "\(variables)")
        let raw = [UInt8](environment)
        let expected = [UInt8](IsolatedExtractorPool.allocatorTuning.utf8)
        let start = try XCTUnwrap(
            raw.indices.first {
                raw[$0...].starts(with: Array("GLIBC_TUNABLES=".utf8)) && ($0 == 0 || raw[$0 - 1] == 0)
            })
        XCTAssertEqual(
            String(
                decoding: raw[start...].prefix(expected.count).map { $0 == 0 ? UInt8(ascii: ":") : $0 }, as: UTF8.self),
            IsolatedExtractorPool.allocatorTuning)
        XCTAssertTrue(start + expected.count == raw.count || raw[start + expected.count] == 0, "nothing after it")
        XCTAssertEqual(
            IsolatedExtractorPool.allocatorTuning,
            "GLIBC_TUNABLES=glibc.malloc.tcache_count=1024:glibc.malloc.mmap_threshold=8388608"
                + ":glibc.malloc.trim_threshold=33554432:glibc.malloc.top_pad=4194304")
        let loader = "/lib64/ld-linux-x86-64.so.2"
        guard FileManager.default.isExecutableFile(atPath: loader) else { return }
        let listing = Process()
        let output = Pipe()
        listing.executableURL = URL(fileURLWithPath: loader)
        listing.arguments = ["--list-tunables"]
        let value = IsolatedExtractorPool.allocatorTuning.dropFirst("GLIBC_TUNABLES=".count)
        listing.environment = ["GLIBC_TUNABLES": String(value)]
        listing.standardOutput = output
        try listing.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        listing.waitUntilExit()
        for accepted in [
            "glibc.malloc.tcache_count: 0x400 ", "glibc.malloc.mmap_threshold: 0x800000 ",
            "glibc.malloc.trim_threshold: 0x2000000 ", "glibc.malloc.top_pad: 0x400000 ",
        ] {
            XCTAssertTrue(text.contains(accepted), "\(accepted) in \(text)")
        }
    }

    /// The helper's heap keeps what a document freed for the next one: a large document (buffers
    /// over glibc's default mapping threshold of 128 KiB: its bytes, their copy for poppler, the
    /// answer) and a small one in turn cost the helper few fresh pages after the first round,
    /// where the large one's buffers were mapped afresh (and faulted in page by page). On a busy
    /// machine this also needs each document's reading-order thread joined: one that started
    /// before the last had gone got a new malloc arena, about 690 fresh pages in one round.
    func testARepeatedDocumentCostsTheHelperFewFreshPages() throws {
        let pool = IsolatedExtractorPool(policy: .init(maximumIdleHelpers: 1))
        defer { pool.close() }
        let words = ["patient", "dose", "settlement", "analysis", "record", "method", "review"]
        let pages = (0..<150).map { page in
            (0..<450).map { words[($0 * 7 + page) % words.count] + String($0 % 97) }.joined(separator: " ")
        }
        let data = makePDF(pages: pages, title: nil)
        XCTAssertGreaterThan(data.count, 128 << 10)
        func faults(_ pid: pid_t) throws -> Int { try Self.statField(10, of: pid) }  // minflt
        let small = makePDF(pages: Array(pages.prefix(3)), title: nil)
        var helper: pid_t = 0
        var perDocument: [Int] = []
        for round in 0..<8 {
            let large = round % 2 == 0
            let before = round == 0 ? 0 : try faults(helper)
            let (result, pid) = try pool.run(data: large ? data : small, password: nil)
            XCTAssertEqual(try result.get().pages.count, large ? 150 : 3)
            if round > 0 {
                XCTAssertEqual(pid, helper, "one helper serves every round")
                perDocument.append(try faults(pid) - before)
            }
            helper = pid
        }
        // With glibc's defaults, the large document's buffers (its bytes alone are more than 32
        // pages) were mapped afresh after the small ones: 253–416 fresh pages over the seven
        // rounds, most in the second large one, before glibc's own threshold caught up.
        XCTAssertLessThan(perDocument.reduce(0, +), 64, "fresh pages per document: \(perDocument)")
    }

    /// A helper stand-in that hangs the first time it is started, then is the real helper: the
    /// hung one is killed at the deadline, and the next request gets a fresh helper and the right
    /// answer, which then stays for the request after.
    func testTimedOutHelperIsDiscardedAndReplaced() throws {
        let counter = NSTemporaryDirectory() + "cipherdex-pool-count-" + UUID().uuidString
        defer { try? FileManager.default.removeItem(atPath: counter) }
        let script = try ExtractionTestSupport.script(
            """
            n=$(( $(cat '\(counter)' 2>/dev/null || echo 0) + 1 )); echo $n > '\(counter)'
            if [ $n -eq 1 ]; then exec sleep 30; fi
            exec '\(try realHelper())' "$@"
            """)
        let pool = IsolatedExtractorPool(helperPath: script, limits: .init(wallClockSeconds: 3))
        let start = Date()
        XCTAssertThrowsError(try pool.run(data: Self.pdf("never"), password: nil).result.get()) {
            XCTAssertEqual($0 as? ExtractionError, .timedOut(seconds: 3))
        }
        XCTAssertLessThan(Date().timeIntervalSince(start), 10)
        XCTAssertEqual(pool.statistics.idleHelpers, 0)
        let (text, pid) = try Self.extract("after the timeout", in: pool)
        XCTAssertEqual(text, "after the timeout")
        XCTAssertEqual(try Self.extract("and again", in: pool).1, pid)
        XCTAssertEqual(pool.statistics.helpersStarted, 2)
        XCTAssertEqual(pool.statistics.helpersDiscarded, 1)
    }

    /// A reused helper that stops answering times out and is replaced; one that dies while idle
    /// is noticed before use; one killed mid-request is replaced and the request retried once.
    func testFailedReusedHelpersAreNeverReused() throws {
        let pool = IsolatedExtractorPool(limits: .init(wallClockSeconds: 2))
        let (_, stopped) = try Self.extract("one", in: pool)
        kill(stopped, SIGSTOP)
        XCTAssertThrowsError(try pool.extract(data: Self.pdf("stuck"), password: nil)) {
            XCTAssertEqual($0 as? ExtractionError, .timedOut(seconds: 2))
        }
        XCTAssertTrue(isGone(stopped))
        let (text, fresh) = try Self.extract("two", in: pool)
        XCTAssertEqual(text, "two")
        XCTAssertNotEqual(fresh, stopped)

        kill(fresh, SIGKILL)
        usleep(50_000)
        let (afterIdleDeath, third) = try Self.extract("three", in: pool)
        XCTAssertEqual(afterIdleDeath, "three")
        XCTAssertNotEqual(third, fresh)

        // Stopped so that the request is surely in flight when the helper dies.
        kill(third, SIGSTOP)
        let killer = Thread {
            usleep(300_000)
            kill(third, SIGKILL)
        }
        killer.start()
        let (retried, fourth) = try Self.extract("four", in: pool)
        XCTAssertEqual(retried, "four")
        XCTAssertNotEqual(fourth, third)
        XCTAssertTrue(isGone(third))
    }

    /// The real helper, over its address-space limit, fails with a typed error; the next
    /// document gets a fresh helper. The limit is 160 MiB, not the 128 MiB minimum: the helper
    /// here is this debug test executable, whose address space is about 118 MiB before its first
    /// request, and 128 MiB left too little for one small page once the executable grew by
    /// 144 KiB; 100 MiB of input still cannot fit in 160.
    func testMemoryFailureDiscardsTheHelper() throws {
        let limit = 160 << 20
        let pool = IsolatedExtractorPool(
            limits: .init(memoryBytes: limit), policy: .init(maximumAddressSpaceFraction: 10))
        let (_, first) = try Self.extract("small", in: pool)
        let huge = Array("%PDF-1.4\n".utf8) + [UInt8](repeating: 0x20, count: 100 << 20)
        XCTAssertThrowsError(try pool.extract(data: huge, password: nil)) {
            XCTAssertEqual($0 as? ExtractionError, .memoryLimitExceeded(bytes: limit))
        }
        let (text, next) = try Self.extract("small again", in: pool)
        XCTAssertEqual(text, "small again")
        XCTAssertNotEqual(next, first)
        XCTAssertTrue(isGone(first))
    }

    /// A helper retires after `requestsPerHelper` requests, or when its memory passes a threshold.
    func testRetirement() throws {
        let pool = IsolatedExtractorPool(policy: .init(maximumIdleHelpers: 1, requestsPerHelper: 3))
        var pids: [pid_t] = []
        for index in 0..<7 {
            let (text, pid) = try Self.extract("document \(index)", in: pool)
            XCTAssertEqual(text, "document \(index)")
            pids.append(pid)
        }
        XCTAssertEqual(Set(pids[0..<3]).count, 1)
        XCTAssertEqual(Set(pids[3..<6]).count, 1)
        XCTAssertEqual(Set(pids).count, 3)
        XCTAssertTrue(isGone(pids[0]))
        XCTAssertTrue(isGone(pids[3]))
        XCTAssertEqual(pool.statistics.helpersRetired, 2)

        let greedy = IsolatedExtractorPool(policy: .init(maximumResidentBytes: 1))
        let (_, a) = try Self.extract("x", in: greedy)
        let (_, b) = try Self.extract("y", in: greedy)
        XCTAssertNotEqual(a, b)
        XCTAssertEqual(greedy.statistics.helpersRetired, 2)
    }

    /// Several threads at once each get their own document's text back.
    func testConcurrentRequestsGetTheirOwnAnswers() throws {
        let pool = IsolatedExtractorPool(policy: .init(maximumIdleHelpers: 2, requestsPerHelper: 7))
        let threads = 4
        let perThread = 8
        let failures = Mutex<[String]>([])
        let pids = Mutex<Set<pid_t>>([])
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for request in 0..<perThread {
                let expected =
                    "thread \(thread) request \(request) " + String(repeating: "word\(thread) ", count: request + 1)
                do {
                    let (text, pid) = try Self.extract(expected, in: pool)
                    pids.withLock { _ = $0.insert(pid) }
                    if text != ExtractionTestSupport.normalized(expected) {
                        failures.withLock { $0.append("\(expected) → \(text)") }
                    }
                } catch {
                    failures.withLock { $0.append("\(expected): \(error)") }
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        let statistics = pool.statistics
        XCTAssertEqual(statistics.requests, threads * perThread)
        XCTAssertLessThan(statistics.helpersStarted, threads * perThread / 2, "helpers were reused")
        XCTAssertLessThanOrEqual(statistics.idleHelpers, 2)
        pool.close()
        for pid in pids.withLock({ $0 }) { XCTAssertTrue(isGone(pid)) }
    }

    /// Idle helpers close after the idle timeout.
    func testIdleHelpersCloseAfterTheTimeout() throws {
        let pool = IsolatedExtractorPool(policy: .init(idleTimeoutSeconds: 0.3))
        let (_, pid) = try Self.extract("idle", in: pool)
        XCTAssertEqual(pool.statistics.idleHelpers, 1)
        let deadline = Date() + 5
        while pool.statistics.idleHelpers > 0 && Date() < deadline { usleep(50_000) }
        XCTAssertEqual(pool.statistics.idleHelpers, 0)
        // The sweep takes the helper off the idle list first and kills and reaps it after: on a
        // loaded machine the count can be 0 a moment before the process is gone.
        while !isGone(pid) && Date() < deadline + 5 { usleep(50_000) }
        XCTAssertTrue(isGone(pid))
    }

    /// The CPU budget is per request: one helper serves requests whose CPU time adds up to more
    /// than `cpuSeconds`. (2 s, so the reading-order pass gets 1 s of wall clock per request: past
    /// it, the helper answers with glib's text and exits. A loaded machine took more than the
    /// 0.5 s that 1 s gave it, and once, in CI, more than 1 s for 50 pages that take 0.04 s here;
    /// so each request is 5 pages, about 200 times under that second, and there are more of them.)
    func testCPUBudgetIsPerRequest() throws {
        let pages = (0..<5).map { page in
            (0..<30).map { "Page \(page) line \($0): encrypted searchable document store, quarterly invoice." }.joined(
                separator: "\n")
        }
        let big = makePDF(pages: pages, title: nil)
        let pool = IsolatedExtractorPool(
            limits: .init(wallClockSeconds: 60, cpuSeconds: 2),
            policy: .init(maximumIdleHelpers: 1, requestsPerHelper: 5_000))
        var pid: pid_t?
        var cpu = 0.0
        var requests = 0
        let tick = 1 / Double(sysconf(Int32(_SC_CLK_TCK)))
        while cpu < 4.0 && requests < 5_000 {
            let (result, helper) = try pool.run(data: big, password: nil)
            XCTAssertEqual(try result.get().pages.count, 5)
            if let pid { XCTAssertEqual(helper, pid) }
            pid = helper
            requests += 1
            guard let stat = try? String(contentsOfFile: "/proc/\(helper)/stat", encoding: .utf8) else {
                return XCTFail("helper \(helper) ended after request \(requests), at \(cpu) s of CPU")
            }
            let fields = stat[stat.range(of: ")")!.upperBound...].split(separator: " ")
            cpu = Double(Int(fields[11])! + Int(fields[12])!) * tick
        }
        print(String(format: "CPU BUDGET: one helper used %.2f s of CPU over %d requests (2 s each)", cpu, requests))
        XCTAssertGreaterThanOrEqual(cpu, 4.0)
        // The soft limit was moved to the time used before the last request, rounded up, plus 2 s
        // (`/proc` counts whole ticks, the helper microseconds: 4.00 here can be 4.003 there, so
        // 7 s); the hard cap is 5,000 requests × (2 + 1) s; the address space stays capped.
        let limits = try String(contentsOfFile: "/proc/\(pid!)/limits", encoding: .utf8).split(separator: "\n")
        let cpuLimit = try XCTUnwrap(limits.first { $0.hasPrefix("Max cpu time") }).split(separator: " ").compactMap {
            Int($0)
        }
        XCTAssertEqual(cpuLimit.count, 2)
        XCTAssertGreaterThanOrEqual(Double(cpuLimit[0]), cpu.rounded(.down) + 2)
        XCTAssertLessThanOrEqual(Double(cpuLimit[0]), (cpu + tick).rounded(.up) + 2)
        XCTAssertEqual(cpuLimit[1], 15_000)
        let addressSpace = try XCTUnwrap(limits.first { $0.hasPrefix("Max address space") }).split(separator: " ")
            .compactMap { Int($0) }
        XCTAssertEqual(addressSpace, [1 << 30, 1 << 30])
    }
}

import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// A PDF helper whose parent is gone (the command killed, stopped by Ctrl-C) ends by itself
/// within a second, rather than recognising on for minutes with the decrypted document in memory.
final class HelperOrphanTests: XCTestCase {
    func testAHelperWhoseParentIsKilledEndsWithinASecond() throws {
        let cli = CLIRunner.temporary()
        let fifo = cli.directory + "/requests"
        let pidFile = cli.directory + "/helper.pid"
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let binary = CLIRunner.productsDirectory.appendingPathComponent("cipherdex").path
        // The helper waits for a request on a FIFO whose writer stays open: only its parent's
        // death can end it.
        let parent = Process()
        parent.executableURL = URL(fileURLWithPath: "/bin/sh")
        parent.arguments = [
            "-c",
            "exec 3<>'\(fifo)'; CIPHERDEX_EXTRACT_HELPER_MODE=1 '\(binary)' --cipherdex-extract-helper <&3 >/dev/null & "
                + "echo $! > '\(pidFile)'; exec sleep 60",
        ]
        try parent.run()
        var helper: Int32 = 0
        for _ in 0..<100 where helper == 0 {
            usleep(50_000)
            helper =
                Int32(
                    (try? String(contentsOfFile: pidFile, encoding: .utf8))?.trimmingCharacters(
                        in: .whitespacesAndNewlines) ?? "") ?? 0
        }
        XCTAssertGreaterThan(helper, 0)
        usleep(300_000)
        XCTAssertTrue(Self.isRunning(helper), "the helper waits while its parent lives")
        // (Not waited for with `waitUntilExit`: Foundation's wait did not return while the
        // orphan lived.)
        kill(parent.processIdentifier, SIGKILL)
        let deadline = Date().addingTimeInterval(3)
        while Self.isRunning(helper) && Date() < deadline { usleep(50_000) }
        let orphaned = Self.isRunning(helper)
        if orphaned { kill(helper, SIGKILL) }
        XCTAssertFalse(orphaned, "the orphaned helper still runs")
    }

    /// Whether `pid` runs (a zombie, ended but not yet reaped by its new parent, does not).
    private static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        let state = stat[stat.index(close, offsetBy: 2)]
        return state != "Z" && state != "X"
    }
}

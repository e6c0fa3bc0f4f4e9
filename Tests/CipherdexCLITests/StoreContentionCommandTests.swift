import Foundation
import XCTest

/// Several `cipherdex` processes against one store at once: the only failure another process may
/// cause is exit 16 `storeLocked` (never `storeCorrupted: database is locked`, which a lock
/// released before SQLite's last close would give), and every `doc put` acknowledged with exit 0
/// is in the store at the end, byte for byte.
final class StoreContentionCommandTests: XCTestCase {
    /// How long the processes run: `CIPHERDEX_STRESS_SECONDS` (`make stress`), else 8 s.
    static var duration: Double {
        ProcessInfo.processInfo.environment["CIPHERDEX_STRESS_SECONDS"].flatMap(Double.init) ?? 8
    }

    /// A command meeting a store open elsewhere says it is open in another process, without the
    /// library's wording about an open or close of this process still finishing (multi-process
    /// audit 28).
    func testStoreLockedSaysAnotherProcessHasTheStoreOpen() throws {
        let cli = CLIRunner.temporary()
        XCTAssertEqual(try cli.run(["create", "s", "--plaintext"]).status, 0)
        let lock = open(cli.directory + "/s/cipherdex.lock", O_RDONLY)
        XCTAssertGreaterThanOrEqual(lock, 0)
        defer { close(lock) }
        XCTAssertEqual(flock(lock, LOCK_EX), 0)
        let result = try cli.run(["info", "s"])
        XCTAssertEqual(result.status, 16, result.stderr)
        XCTAssertTrue(result.stderr.contains("storeLocked: the store at s is open in another process"), result.stderr)
        XCTAssertFalse(result.stderr.contains("openAsync"), result.stderr)
    }

    func testConcurrentProcessesFailOnlyWithStoreLockedAndLoseNoWrite() throws {
        let cli = CLIRunner.temporary()
        XCTAssertEqual(try cli.run(["keygen", "--out", "k"]).status, 0)
        XCTAssertEqual(try cli.run(["create", "s", "--key-file", "k"]).status, 0)
        let tally = ContentionTally()
        let workers = 4
        let deadline = Date().addingTimeInterval(Self.duration)
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            var round = 0
            while Date() < deadline {
                round += 1
                let id = "w\(worker)-\(round)"
                let json =
                    #"{"worker":\#(worker),"round":\#(round),"text":"é \#(id) \#(String(repeating: "x", count: round % 50))"}"#
                let command: [String]
                switch round % 4 {
                case 1: command = ["info", "s", "--key-file", "k"]
                case 2: command = ["verify", "s", "--key-file", "k"]
                case 3: command = ["doc", "get", "s", "c", "w\(worker)-\(round - 3)", "--key-file", "k"]
                default: command = ["doc", "put", "s", "c", id, "-", "--key-file", "k"]
                }
                do {
                    let result = try cli.run(command, stdin: Array(json.utf8))
                    tally.record(command: command, result: result, putID: command[1] == "put" ? id : nil, json: json)
                } catch {
                    tally.fail("\(command): \(error)")
                }
            }
        }
        let summary = tally.summary
        XCTAssertEqual(summary.unexpected, [], "only storeLocked may fail")
        XCTAssertGreaterThan(summary.acknowledged.count, 0, "some puts succeeded")
        XCTAssertGreaterThan(summary.locked + summary.succeeded, 0)
        print(
            "contention: \(summary.succeeded) succeeded, \(summary.locked) storeLocked, \(summary.acknowledged.count) puts acknowledged"
        )

        let found = try cli.run(["doc", "find", "s", "c", "--json", "--key-file", "k"])
        XCTAssertEqual(found.status, 0, found.stderr)
        let array = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(found.stdout.utf8)) as? [[String: Any]])
        var stored: [String: String] = [:]
        for entry in array {
            let id = try XCTUnwrap(entry["id"] as? String)
            let document = try XCTUnwrap(entry["document"])
            let data = try JSONSerialization.data(withJSONObject: document, options: [.sortedKeys])
            stored[id] = String(decoding: data, as: UTF8.self)
        }
        for (id, json) in summary.acknowledged {
            let expected = try JSONSerialization.data(
                withJSONObject: try JSONSerialization.jsonObject(with: Data(json.utf8)), options: [.sortedKeys])
            XCTAssertEqual(
                stored[id], String(decoding: expected, as: UTF8.self), "acknowledged put \(id) is kept exactly")
        }
        XCTAssertEqual(try cli.run(["verify", "s", "--key-file", "k"]).status, 0)
    }
}

/// What the contending processes did, collected from several threads.
private final class ContentionTally: @unchecked Sendable {
    struct Summary {
        var succeeded = 0
        var locked = 0
        var unexpected: [String] = []
        var acknowledged: [String: String] = [:]
    }

    private let lock = NSLock()
    private var state = Summary()

    var summary: Summary { lock.withLock { state } }

    func record(command: [String], result: CLIRunner.Result, putID: String?, json: String) {
        lock.withLock {
            switch result.status {
            case 0:
                state.succeeded += 1
                if let putID { state.acknowledged[putID] = json }
                if command[1] == "get", let expected = state.acknowledged[command[4]],
                    !Self.sameJSON(result.stdout, expected)
                {
                    state.unexpected.append("doc get \(command[4]) printed \(result.stdout), stored \(expected)")
                }
            case 16 where result.stderr.hasPrefix("cipherdex: error: storeLocked: "):
                state.locked += 1
            case 1
            where command[1] == "get" && state.acknowledged[command[4]] == nil
                && result.stderr.hasPrefix("cipherdex: error: documentNotFound: "):
                // The put three rounds earlier was refused with storeLocked (or this is round 3).
                state.succeeded += 1
            case 1
            where command[1] == "get" && state.acknowledged[command[4]] == nil
                && result.stderr.hasPrefix("cipherdex: error: unknownCollection: "):
                state.succeeded += 1
            default:
                state.unexpected.append("\(command.joined(separator: " ")) → \(result.status): \(result.stderr)")
            }
        }
    }

    private static func sameJSON(_ left: String, _ right: String) -> Bool {
        guard let a = try? JSONSerialization.jsonObject(with: Data(left.utf8)) as? NSDictionary,
            let b = try? JSONSerialization.jsonObject(with: Data(right.utf8)) as? NSDictionary
        else { return false }
        return a == b
    }

    func fail(_ message: String) {
        lock.withLock { state.unexpected.append(message) }
    }
}

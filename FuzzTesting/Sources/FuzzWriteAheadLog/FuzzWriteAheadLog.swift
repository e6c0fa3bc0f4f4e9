// libFuzzer target: the write-ahead log checks an open runs before SQLite's recovery reads the
// log (`WriteAheadLogScan`, `Store.checkDatabaseCoversLog`; FuzzTesting/README.md).
import Foundation
import FuzzSupport

@testable import CipherdexStore

/// The database every input is written beside as `store.db-wal` (a fresh folder per process).
private let databasePath: String = {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cipherdex-fuzz-wal-\(getpid())")
    try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder.appendingPathComponent("store.db").path
}()
private var logPath: String { databasePath + "-wal" }

/// The page sizes mode bits 0-2 pass to `damage(ofLogAt:pageSize:)` (one absent, two SQLite refuses).
private let expectedPageSizes: [Int?] = [nil, 512, 1024, 4096, 16384, 65536, 1000, 0]
/// The highest page a simulated checkpoint writes (mode 2), so the database file stays small.
private let checkpointPages: UInt32 = 1024

/// Whether SQLite accepts `size` as a log's page size.
private func acceptable(_ size: Int) -> Bool { size >= 512 && size <= 65536 && size & (size - 1) == 0 }

/// The big-endian 32-bit word at `offset` of `bytes`, 0 past their end.
private func word(_ bytes: ArraySlice<UInt8>, _ offset: Int) -> UInt32 {
    let start = bytes.startIndex + offset
    guard offset >= 0, start + 4 <= bytes.endIndex else { return 0 }
    return bytes[start..<(start + 4)].reduce(0) { $0 << 8 | UInt32($1) }
}

/// The database file mode bits 3-4 ask for: none; the database bytes; the log's frames
/// checkpointed (each frame's page at its page number, up to `checkpointPages`, in log order; the
/// page size the header's, else the expected one), then the database bytes over its start; a
/// sparse file of (the database bytes' first word) × 512 bytes. False when it cannot be made.
private func writeDatabase(
    mode: UInt8, database: ArraySlice<UInt8>, log: ArraySlice<UInt8>, expected: Int?
) -> Bool {
    unlink(databasePath)
    switch mode >> 3 & 3 {
    case 0:
        return true
    case 1:
        return FileManager.default.createFile(atPath: databasePath, contents: Data(database))
    case 2:
        let recorded = Int(word(log, 8))
        guard let pageSize = acceptable(recorded) ? recorded : expected.flatMap({ acceptable($0) ? $0 : nil }) else {
            return FileManager.default.createFile(atPath: databasePath, contents: Data(database))
        }
        var file = [UInt8]()
        var offset = WriteAheadLogScan.headerSize
        while offset + WriteAheadLogScan.frameHeaderSize + pageSize <= log.count {
            let page = word(log, offset)
            if page >= 1, page <= checkpointPages {
                let at = Int(page - 1) * pageSize
                if file.count < at + pageSize { file += [UInt8](repeating: 0, count: at + pageSize - file.count) }
                let image = log.startIndex + offset + WriteAheadLogScan.frameHeaderSize
                file.replaceSubrange(at..<(at + pageSize), with: log[image..<(image + pageSize)])
            }
            offset += WriteAheadLogScan.frameHeaderSize + pageSize
        }
        let over = min(database.count, file.count)
        file.replaceSubrange(0..<over, with: database.prefix(over))
        return FileManager.default.createFile(atPath: databasePath, contents: Data(file))
    default:
        guard FileManager.default.createFile(atPath: databasePath, contents: nil) else { return false }
        return truncate(databasePath, off_t(word(database, 0)) * 512) == 0
    }
}

/// The CPU time this thread has used, in seconds.
private func threadTime() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// `body`, which must use less than a second of CPU (libFuzzer's `-timeout` catches waits).
private func timed<T>(_ what: String, _ body: () throws -> T) rethrows -> T {
    let start = threadTime()
    defer {
        let spent = threadTime() - start
        if spent > 1 { fatalError("\(what) took \(spent) s of CPU") }
    }
    return try body()
}

/// Byte 0 (mode): bits 0-2 the page size the open expects (`expectedPageSizes`), bits 3-4 the
/// database file (`writeDatabase`). Bytes 1-2: the length (big-endian) of the database bytes that
/// follow; the rest is `store.db-wal`. `damage(ofLogAt:pageSize:)` and `committedPages(ofLogAt:)`
/// never throw on the readable log and give results that fit it; `checkDatabaseCoversLog` throws
/// only `storeCorrupted` saying the file is cut short, and only when the log commits something;
/// each call uses under a second of CPU.
private func fuzzWriteAheadLog(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = start.map { Array(UnsafeBufferPointer(start: $0, count: count)) } ?? []
    guard input.count >= 3 else { return 0 }
    let mode = input[0]
    let expected = expectedPageSizes[Int(mode & 7)]
    let databaseCount = min(Int(input[1]) << 8 | Int(input[2]), input.count - 3)
    let database = input[3..<(3 + databaseCount)]
    let log = input[(3 + databaseCount)...]
    guard FileManager.default.createFile(atPath: logPath, contents: Data(log)) else {
        fatalError("cannot write \(logPath)")
    }
    guard writeDatabase(mode: mode, database: database, log: log, expected: expected) else { return 0 }
    let frameCount = { (pageSize: Int) in max(log.count - WriteAheadLogScan.headerSize, 0) / (24 + pageSize) }

    do {
        if let damage = try timed("damage", { try WriteAheadLogScan.damage(ofLogAt: logPath, pageSize: expected) }) {
            guard damage.laterFrames >= 1, damage.laterCommits >= 0, damage.laterCommits <= damage.laterFrames,
                !damage.reason(log: logPath).isEmpty
            else { fatalError("damage with impossible counts: \(damage)") }
            if damage.frame == 0 {
                guard damage.offset == 0, damage.laterCommits >= 1 else { fatalError("header damage: \(damage)") }
            } else {
                guard damage.frame >= 1, damage.offset >= WriteAheadLogScan.headerSize, damage.offset < log.count,
                    damage.frame + damage.laterFrames <= frameCount(Int(word(log, 8)))
                else { fatalError("frame damage outside the log: \(damage)") }
            }
        }
    } catch {
        fatalError("damage(ofLogAt:) threw on a readable log: \(error)")
    }

    let committed: (pageSize: Int, databasePages: Int, pages: Set<UInt32>)?
    do {
        committed = try timed("committedPages") { try WriteAheadLogScan.committedPages(ofLogAt: logPath) }
    } catch {
        fatalError("committedPages(ofLogAt:) threw on a readable log: \(error)")
    }
    if let committed {
        guard committed.pageSize == Int(word(log, 8)), acceptable(committed.pageSize), committed.databasePages >= 1,
            !committed.pages.isEmpty, !committed.pages.contains(0),
            committed.pages.count <= frameCount(committed.pageSize)
        else {
            fatalError("committed pages that do not fit the log: \(committed.pageSize), \(committed.databasePages)")
        }
    }

    do {
        try timed("checkDatabaseCoversLog") { try Store.checkDatabaseCoversLog(databasePath: databasePath) }
    } catch StoreError.storeCorrupted(let reason) {
        guard committed != nil, reason.contains("is cut short") else {
            fatalError("checkDatabaseCoversLog: unexpected storeCorrupted: \(reason)")
        }
    } catch {
        fatalError("checkDatabaseCoversLog threw something else: \(error)")
    }
    return 0
}

// MARK: - Seeds

/// A log as SQLite writes it (as `WriteAheadLogScanTests` builds them): each transaction its
/// frames' page numbers (the last frame a commit with the database size `size(transaction)`),
/// salts, checksums over big- or little-endian words; pages varied by `seed`.
private func log(
    _ transactions: [[UInt32]], pageSize: Int = 512, salts: (UInt32, UInt32) = (0x1234_5678, 0x9ABC_DEF0),
    bigEndian: Bool = false, seed: Int = 0, size: (Int) -> UInt32 = { UInt32($0) + 10 }
) -> [UInt8] {
    var bytes = [UInt8]()
    func put(_ word: UInt32) { bytes += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> $0) } }
    put(bigEndian ? 0x377F_0683 : 0x377F_0682)
    put(3_007_000)
    put(UInt32(pageSize))
    put(7)
    put(salts.0)
    put(salts.1)
    var sum = WriteAheadLogScan.checksum(bytes[0..<24], bigEndianWords: bigEndian, from: (0, 0))
    put(sum.0)
    put(sum.1)
    for (transaction, pages) in transactions.enumerated() {
        for (index, page) in pages.enumerated() {
            let start = bytes.count
            put(page)
            put(index == pages.count - 1 ? size(transaction) : 0)
            put(salts.0)
            put(salts.1)
            let data = (0..<pageSize).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(page) &+ transaction &+ seed) }
            sum = WriteAheadLogScan.checksum(bytes[start..<(start + 8)], bigEndianWords: bigEndian, from: sum)
            sum = WriteAheadLogScan.checksum(data[...], bigEndianWords: bigEndian, from: sum)
            put(sum.0)
            put(sum.1)
            bytes += data
        }
    }
    return bytes
}

/// Writes the committed seeds into `folder`: intact logs (both byte orders, page sizes 512 to
/// 4096), damaged frames and headers, torn ends, stale frames of an older log, a header damaged
/// over a checkpointed database, a database cut short at the lock-byte page, commits claiming
/// 2^31 and 2^32 - 1 pages.
private func writeSeeds(into folder: String) throws {
    func input(_ log: [UInt8], mode: UInt8 = 0, database: [UInt8] = []) -> [UInt8] {
        [mode, UInt8(database.count >> 8), UInt8(database.count & 0xFF)] + database + log
    }
    func frame(_ number: Int, pageSize: Int = 512) -> Int { 32 + (number - 1) * (24 + pageSize) }
    func damaged(_ bytes: [UInt8], at offsets: [Int]) -> [UInt8] {
        var bytes = bytes
        for offset in offsets { bytes[offset] ^= 0x40 }
        return bytes
    }
    func sparse(pages: UInt32) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: pages >> $0) } }
    let intact = log([[1, 2, 3], [4], [5, 6, 7, 8]], size: { [3, 4, 8][$0] })
    let lockBytePage = UInt32(0x4000_0000 / 512 + 1)
    let older = log([[1, 2], [3, 4, 5]], salts: (1, 2), seed: 9)
    let newer = log([[1], [2]], salts: (3, 4))
    let seeds: [String: [UInt8]] = [
        "intact": input(intact, mode: 1, database: [UInt8](repeating: 0, count: 512)),
        "intact-big-endian": input(log([[1, 2, 3], [4], [5, 6, 7, 8]], bigEndian: true)),
        "intact-4096": input(log([[1, 2], [2, 3]], pageSize: 4096), mode: 3),
        "intact-1024-same-pages": input(
            log([[1, 2], [1, 2], [2]], pageSize: 1024, size: { _ in 2 }), mode: 2 << 3 | 2),
        "damaged-page": input(damaged(intact, at: [frame(2) + 24 + 100])),
        "damaged-commit-word": input(damaged(intact, at: [frame(2) + 4])),
        "damaged-salt": input(damaged(intact, at: [frame(4) + 8])),
        "damaged-checksum": input(damaged(intact, at: [frame(3) + 16])),
        "damaged-last-transaction": input(damaged(intact, at: [frame(7) + 24 + 3])),
        "torn-end": input(Array(intact.dropLast(100))),
        "zeros-after": input(log([[1, 2], [3, 4]]) + [UInt8](repeating: 0, count: 3 * 536)),
        "newer-over-older": input(newer + older[newer.count...]),
        "damaged-header": input(damaged(log([[1, 2], [3, 4, 5], [6]]), at: [5]), mode: 1),
        "damaged-header-page-size": input(damaged(log([[1, 2], [3]]), at: [9]), mode: 1 << 3 | 1),
        "damaged-header-big-endian": input(damaged(log([[1], [2, 3]], bigEndian: true), at: [25]), mode: 1),
        "damaged-header-checkpointed": input(damaged(log([[1, 2], [3, 4, 5], [6]]), at: [5]), mode: 2 << 3 | 1),
        "cut-short": input(log([[1, 2], [3, 4]]), mode: 3 << 3, database: sparse(pages: 1)),
        "lock-byte-page": input(
            log([[3, lockBytePage + 1, lockBytePage + 2]], size: { _ in lockBytePage + 2 }), mode: 3 << 3,
            database: sparse(pages: lockBytePage - 1)),
        "lock-byte-page-missing": input(
            log([[3, lockBytePage + 2]], size: { _ in lockBytePage + 2 }), mode: 3 << 3,
            database: sparse(pages: lockBytePage - 1)),
        "huge-database-size": input(
            log([[1, 2], [3]], size: { _ in 1 << 31 }), mode: 3 << 3, database: sparse(pages: 2)),
        "huge-database-size-held": input(
            log([[1, 2, 3, 4, 5, 6, 7, 8]], size: { _ in UInt32.max }), mode: 2 << 3 | 1),
        "huge-database-size-damaged-header": input(
            damaged(log([[1, 2], [3]], size: { _ in 1 << 31 }), at: [5]), mode: 2 << 3 | 1),
    ]
    for (name, bytes) in seeds {
        try Data(bytes).write(to: URL(fileURLWithPath: "\(folder)/\(name)"))
    }
}

/// The fuzzer's entry: libFuzzer over `fuzzWriteAheadLog`; with `CIPHERDEX_FUZZ_WRITE_SEEDS` set
/// to a folder, writes the seed corpus there instead.
@main
enum FuzzWriteAheadLogMain {
    static func main() {
        if let folder = ProcessInfo.processInfo.environment["CIPHERDEX_FUZZ_WRITE_SEEDS"] {
            do { try writeSeeds(into: folder) } catch { fatalError("cannot write seeds: \(error)") }
            exit(0)
        }
        runFuzzer(fuzzWriteAheadLog)
    }
}

import Foundation
import XCTest

@testable import CipherdexStore

/// `WriteAheadLogScan` over logs built frame by frame: damage with a later transaction after it
/// is found; what a crash or a checkpoint leaves is not.
final class WriteAheadLogScanTests: XCTestCase {
    private let pageSize = 512
    private var path = ""

    override func setUp() {
        path = TestSupport.temporaryPath("wal") + ".log"
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A log as SQLite writes it: `transactions[i]` frames in transaction i (the last one a
    /// commit), salts `salts`, checksums over big- or little-endian words.
    private func log(
        _ transactions: [Int], salts: (UInt32, UInt32) = (0x1234_5678, 0x9ABC_DEF0), bigEndian: Bool = false,
        seed: UInt8 = 0
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
        var page: UInt32 = 1
        for (transaction, frames) in transactions.enumerated() {
            for index in 0..<frames {
                let start = bytes.count
                put(page)
                put(index == frames - 1 ? page + 10 : 0)
                put(salts.0)
                put(salts.1)
                let data = (0..<pageSize).map {
                    UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(page) &+ transaction &+ Int(seed))
                }
                sum = WriteAheadLogScan.checksum(bytes[start..<(start + 8)], bigEndianWords: bigEndian, from: sum)
                sum = WriteAheadLogScan.checksum(data[...], bigEndianWords: bigEndian, from: sum)
                put(sum.0)
                put(sum.1)
                bytes += data
                page += 1
            }
        }
        return bytes
    }

    /// The byte offset of frame `frame` (from 1).
    private func offset(ofFrame frame: Int) -> Int { 32 + (frame - 1) * (24 + pageSize) }

    private func scan(_ bytes: [UInt8]) throws -> WriteAheadLogScan.Damage? {
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        return try WriteAheadLogScan.damage(ofLogAt: path)
    }

    func testAnIntactLogHasNoDamageInEitherByteOrder() throws {
        for bigEndian in [false, true] {
            XCTAssertNil(try scan(log([3, 1, 4], bigEndian: bigEndian)))
        }
        XCTAssertNil(try scan([]))
        XCTAssertNil(try scan(Array(log([2]).prefix(20))))
    }

    /// A damaged page, header word or checksum with later transactions after it is found, and
    /// says where and how many commits follow; in either byte order.
    func testADamagedFrameFollowedByLaterTransactionsIsFound() throws {
        for bigEndian in [false, true] {
            let intact = log([3, 2, 4, 1], bigEndian: bigEndian)
            // Frame 2 of the first transaction: its page, its page number, its commit word, its
            // salt, its stored checksum.
            for byte in [24 + 100, 0, 4, 8, 16] {
                var damaged = intact
                damaged[offset(ofFrame: 2) + byte] ^= 0x40
                let damage = try XCTUnwrap(try scan(damaged), "byte \(byte)")
                XCTAssertEqual(damage.frame, 2)
                XCTAssertEqual(damage.offset, offset(ofFrame: 2))
                // A commit word made nonzero reads as the end of the damaged transaction: the
                // rest of it counts as later (the frame is damaged all the same).
                XCTAssertEqual(damage.laterCommits, byte == 4 ? 4 : 3, "byte \(byte)")
                XCTAssertEqual(damage.laterFrames, byte == 4 ? 8 : 7, "byte \(byte)")
            }
            // A commit frame damaged in its page: the transactions after it.
            var damaged = intact
            damaged[offset(ofFrame: 5) + 24 + 7] ^= 1
            XCTAssertEqual(
                try scan(damaged), .init(frame: 5, offset: offset(ofFrame: 5), laterCommits: 2, laterFrames: 5))
            // Damage in the second-to-last transaction: the last one is lost with it.
            damaged = intact
            damaged[offset(ofFrame: 6) + 300] ^= 0xFF
            XCTAssertEqual(
                try scan(damaged), .init(frame: 6, offset: offset(ofFrame: 6), laterCommits: 1, laterFrames: 1))
        }
    }

    /// A committed transaction followed by an unfinished one (frames, no commit yet) is still
    /// acknowledged, so damage in it is found.
    func testDamageBeforeAnUnfinishedTransactionIsFound() throws {
        var bytes = log([2, 3])
        bytes.removeLast(24 + pageSize)  // the second transaction's commit frame not yet written
        bytes[offset(ofFrame: 1) + 50] ^= 2
        XCTAssertEqual(try scan(bytes), .init(frame: 1, offset: offset(ofFrame: 1), laterCommits: 0, laterFrames: 2))
    }

    /// What a crash leaves is not damage: a torn frame in the last transaction (even with its
    /// commit frame written), a short frame at the end, zeros; and frames of an earlier log past
    /// the current one's end (other salts) are not this log's.
    func testWhatACrashOrACheckpointLeavesIsNotDamage() throws {
        var torn = log([3, 4])
        for byte in 0..<(pageSize / 2) { torn[offset(ofFrame: 5) + 24 + byte] = 0 }
        XCTAssertNil(try scan(torn))
        var tornHeader = log([3, 4])
        for byte in 0..<24 { tornHeader[offset(ofFrame: 4) + byte] = 0 }
        XCTAssertNil(try scan(tornHeader))
        XCTAssertNil(try scan(Array(log([3, 4]).dropLast(100))))
        XCTAssertNil(try scan(log([2, 2]) + [UInt8](repeating: 0, count: 3 * (24 + pageSize))))
        // A new log (other salts) written over the first frames of an older, longer one.
        let older = log([2, 3, 3], salts: (1, 2), seed: 9)
        let newer = log([1, 1], salts: (3, 4))
        XCTAssertNil(try scan(newer + older[newer.count...]))
    }

    /// Frames of one transaction chained from `chain`: `count` frames (the last a commit when
    /// `commits`), pages from `firstPage`, contents varied by `seed`; and the chain after them.
    private func frames(
        from chain: (UInt32, UInt32), count: Int, commits: Bool, firstPage: UInt32, seed: Int,
        salts: (UInt32, UInt32) = (0x1234_5678, 0x9ABC_DEF0)
    ) -> ([UInt8], (UInt32, UInt32)) {
        var bytes = [UInt8]()
        var sum = chain
        func put(_ word: UInt32) { bytes += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> $0) } }
        for index in 0..<count {
            let start = bytes.count
            let page = firstPage + UInt32(index)
            put(page)
            put(commits && index == count - 1 ? 100 : 0)
            put(salts.0)
            put(salts.1)
            let data = (0..<pageSize).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ Int(page) &+ seed) }
            sum = WriteAheadLogScan.checksum(bytes[start..<(start + 8)], bigEndianWords: false, from: sum)
            sum = WriteAheadLogScan.checksum(data[...], bigEndianWords: false, from: sum)
            put(sum.0)
            put(sum.1)
            bytes += data
        }
        return (bytes, sum)
    }

    /// What SQLite leaves after a transaction that spilled frames and rolled back, then a shorter
    /// one written over their start and torn by a power loss before its sync: the stale frames
    /// past its commit frame keep the log's salts and check among themselves, but not from that
    /// commit frame. Not damage (SQLite drops the unsynced transaction); damage in the committed
    /// one before them still is.
    func testStaleFramesOfARolledBackTransactionAreNotALaterTransaction() throws {
        let header = Array(log([]).prefix(32))
        let start = WriteAheadLogScan.LogHeader(header)!.checksum
        let (committed, afterCommitted) = frames(from: start, count: 3, commits: true, firstPage: 1, seed: 1)
        let (rolledBack, _) = frames(from: afterCommitted, count: 58, commits: false, firstPage: 10, seed: 2)
        let (short, _) = frames(from: afterCommitted, count: 5, commits: true, firstPage: 200, seed: 3)
        var bytes = header + committed + rolledBack
        let frameSize = 24 + pageSize
        bytes.replaceSubrange((32 + 3 * frameSize)..<(32 + 8 * frameSize), with: short)
        XCTAssertNil(try scan(bytes), "intact: the short transaction, then stale frames")
        // Its first frame torn (still the rolled-back one's: it checks, the next does not).
        var torn = bytes
        torn.replaceSubrange(
            (32 + 3 * frameSize)..<(32 + 4 * frameSize), with: rolledBack[0..<frameSize])
        XCTAssertNil(try scan(torn))
        // Its first frame's page damaged: it fails, its commit frame ends it, the stale frames do
        // not chain from that.
        var damaged = bytes
        damaged[32 + 3 * frameSize + 24 + 5] ^= 0x10
        XCTAssertNil(try scan(damaged))
        // Damage in the committed transaction is still found: the short one chains from it.
        var early = bytes
        early[32 + 24 + 5] ^= 0x10
        XCTAssertEqual(try scan(early), .init(frame: 1, offset: 32, laterCommits: 1, laterFrames: 5))
    }

    /// A log whose header fails is ignored by SQLite as a whole: with committed frames that check
    /// from the header as it was, that is damage, whichever of its bytes changed, in either byte
    /// order (the page size from the caller when the header's own is gone).
    func testADamagedHeaderInFrontOfCommittedFramesIsFound() throws {
        for bigEndian in [false, true] {
            for byte in [0, 3, 5, 9, 10, 13, 17, 22, 25, 31] {
                var bytes = log([2, 3, 1], bigEndian: bigEndian)
                bytes[byte] ^= 1
                XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
                XCTAssertEqual(
                    try WriteAheadLogScan.damage(ofLogAt: path, pageSize: pageSize),
                    .init(frame: 0, offset: 0, laterCommits: 3, laterFrames: 6), "byte \(byte), big-endian \(bigEndian)"
                )
            }
        }
        // Its salts and checksum gone too (zeroed), or the whole header: the frames after the
        // first chain from the checksum the first stores.
        for zeroed in [16..<32, 0..<32] {
            for bigEndian in [false, true] {
                var bytes = log([2, 3, 1], bigEndian: bigEndian)
                bytes.replaceSubrange(zeroed, with: [UInt8](repeating: 0, count: zeroed.count))
                XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
                XCTAssertEqual(
                    try WriteAheadLogScan.damage(ofLogAt: path, pageSize: pageSize),
                    .init(frame: 0, offset: 0, laterCommits: 3, laterFrames: 6), "\(zeroed), big-endian \(bigEndian)")
            }
        }
        // The frames are counted while they check: a torn last transaction is not among them.
        var torn = log([2, 3])
        torn[offset(ofFrame: 4) + 30] ^= 1
        torn[1] ^= 1
        XCTAssertEqual(try scan(torn), .init(frame: 0, offset: 0, laterCommits: 1, laterFrames: 3))
        let reason = WriteAheadLogScan.Damage(frame: 0, offset: 0, laterCommits: 2, laterFrames: 5).reason(
            log: "/s/store.db-wal")
        XCTAssertTrue(reason.hasPrefix("the header of the write-ahead log /s/store.db-wal is damaged"), reason)
        XCTAssertTrue(reason.contains("the 2 committed transactions"), reason)
    }

    /// A damaged header over a log the database file already holds (a checkpoint finished
    /// before the header was damaged, or a restart tore it) loses nothing: not damage. One page
    /// the database does not hold makes it damage.
    func testADamagedHeaderOverACheckpointedLogIsNotDamage() throws {
        let folder = TestSupport.temporaryPath("checkpointed")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let database = folder + "/store.db"
        var bytes = log([2, 3, 1])
        bytes[5] ^= 1
        XCTAssertTrue(FileManager.default.createFile(atPath: database + "-wal", contents: Data(bytes)))
        // Pages 1 … 6, one frame each: the database holds each frame's page.
        var pages = [UInt8]()
        for frame in 1...6 { pages += bytes[(offset(ofFrame: frame) + 24)..<(offset(ofFrame: frame) + 24 + pageSize)] }
        XCTAssertTrue(FileManager.default.createFile(atPath: database, contents: Data(pages)))
        XCTAssertNil(try WriteAheadLogScan.damage(ofLogAt: database + "-wal", pageSize: pageSize))
        pages[3 * pageSize + 7] ^= 1
        XCTAssertTrue(FileManager.default.createFile(atPath: database, contents: Data(pages)))
        XCTAssertEqual(
            try WriteAheadLogScan.damage(ofLogAt: database + "-wal", pageSize: pageSize),
            .init(frame: 0, offset: 0, laterCommits: 3, laterFrames: 6))
        try FileManager.default.removeItem(atPath: database)
        XCTAssertNotNil(try WriteAheadLogScan.damage(ofLogAt: database + "-wal", pageSize: pageSize))
    }

    /// A database file whose end is before the page of the lock bytes at 1 GiB (SQLite never
    /// writes nor logs it) is whole when the log holds every page after it; a page after it that
    /// the log does not hold is `cut short`.
    func testTheLockBytePageIsNeverMissing() throws {
        let folder = TestSupport.temporaryPath("lockbyte")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let database = folder + "/store.db"
        let lockBytePage = UInt32(0x4000_0000 / pageSize + 1)
        func logHolding(_ pages: [UInt32], size: UInt32) -> [UInt8] {
            var bytes = Array(log([]).prefix(32))
            var sum = WriteAheadLogScan.LogHeader(bytes)!.checksum
            func put(_ word: UInt32) { bytes += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> $0) } }
            for (index, page) in pages.enumerated() {
                let start = bytes.count
                put(page)
                put(index == pages.count - 1 ? size : 0)
                put(0x1234_5678)
                put(0x9ABC_DEF0)
                let data = [UInt8](repeating: UInt8(truncatingIfNeeded: page), count: pageSize)
                sum = WriteAheadLogScan.checksum(bytes[start..<(start + 8)], bigEndianWords: false, from: sum)
                sum = WriteAheadLogScan.checksum(data[...], bigEndianWords: false, from: sum)
                put(sum.0)
                put(sum.1)
                bytes += data
            }
            return bytes
        }
        // A sparse file ending just before the lock-byte page.
        XCTAssertTrue(FileManager.default.createFile(atPath: database, contents: nil))
        XCTAssertEqual(truncate(database, off_t(lockBytePage - 1) * off_t(pageSize)), 0)
        let whole = logHolding([3, lockBytePage + 1, lockBytePage + 2], size: lockBytePage + 2)
        XCTAssertTrue(FileManager.default.createFile(atPath: database + "-wal", contents: Data(whole)))
        XCTAssertNoThrow(try Store.checkDatabaseCoversLog(databasePath: database))
        let short = logHolding([3, lockBytePage + 2], size: lockBytePage + 2)
        XCTAssertTrue(FileManager.default.createFile(atPath: database + "-wal", contents: Data(short)))
        XCTAssertThrowsError(try Store.checkDatabaseCoversLog(databasePath: database)) {
            let text = ($0 as? StoreError)?.errorDescription ?? "\($0)"
            XCTAssertTrue(text.contains("page \(lockBytePage + 1) of the \(lockBytePage + 2)"), text)
        }
        try FileManager.default.removeItem(atPath: folder)
    }

    /// A log of many small commits (here 32,000 one-frame transactions of distinct pages, 17 MB)
    /// is read in linear time: what recovery keeps is found well within a second, and the open's
    /// check that the database file covers it too (fuzz finding: each commit copied every page
    /// committed before it, quadratic, 3.7 s for 8,000 frames under ASan).
    func testManySmallCommitsAreReadInLinearTime() throws {
        let folder = TestSupport.temporaryPath("manycommits")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let database = folder + "/store.db"
        let count: UInt32 = 32_000
        var bytes = Array(log([]).prefix(32))
        bytes.reserveCapacity(32 + Int(count) * (24 + pageSize))
        var sum = WriteAheadLogScan.LogHeader(bytes)!.checksum
        let data = [UInt8](repeating: 0x5A, count: pageSize)
        func put(_ word: UInt32) { bytes += [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: word >> $0) } }
        for page in 1...count {
            let start = bytes.count
            put(page)
            put(page)
            put(0x1234_5678)
            put(0x9ABC_DEF0)
            sum = WriteAheadLogScan.checksum(bytes[start..<(start + 8)], bigEndianWords: false, from: sum)
            sum = WriteAheadLogScan.checksum(data[...], bigEndianWords: false, from: sum)
            put(sum.0)
            put(sum.1)
            bytes += data
        }
        XCTAssertTrue(FileManager.default.createFile(atPath: database + "-wal", contents: Data(bytes)))
        var started = ContinuousClock.now
        let committed = try XCTUnwrap(try WriteAheadLogScan.committedPages(ofLogAt: database + "-wal"))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
        XCTAssertEqual(committed.databasePages, Int(count))
        XCTAssertEqual(committed.pages, Set(1...count))
        started = ContinuousClock.now
        XCTAssertNoThrow(try Store.checkDatabaseCoversLog(databasePath: database))
        XCTAssertLessThan(ContinuousClock.now - started, .seconds(5))
    }

    /// A header that fails in front of nothing committed is not damage: no frame, frames of no
    /// commit, or frames that check from no form of the header (another log's, left behind).
    func testADamagedHeaderInFrontOfNothingCommittedIsLeftToSQLite() throws {
        var empty = Array(log([]).prefix(32))
        empty[5] ^= 1
        XCTAssertNil(try scan(empty))
        var uncommitted = log([2, 3])
        uncommitted.removeSubrange(offset(ofFrame: 2)...)
        uncommitted[5] ^= 1
        XCTAssertNil(try scan(uncommitted))
        // A new header (other salts and checksum) over an older log, then damaged: the older
        // frames chain from the first one's checksum, but a log is only restarted once the
        // database holds all of it, so nothing is lost.
        let older = log([2, 3], salts: (1, 2), seed: 9)
        var header = Array(log([], salts: (3, 4)).prefix(32))
        header[5] ^= 1
        let folder = TestSupport.temporaryPath("restarted")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        let database = folder + "/store.db"
        XCTAssertTrue(FileManager.default.createFile(atPath: database + "-wal", contents: Data(header + older[32...])))
        var pages = [UInt8]()
        for frame in 1...5 { pages += older[(offset(ofFrame: frame) + 24)..<(offset(ofFrame: frame) + 24 + pageSize)] }
        XCTAssertTrue(FileManager.default.createFile(atPath: database, contents: Data(pages)))
        XCTAssertNil(try WriteAheadLogScan.damage(ofLogAt: database + "-wal", pageSize: pageSize))
        let garbage = header + [UInt8](repeating: 0x5A, count: 3 * (24 + pageSize))
        XCTAssertNil(try scan(garbage))
    }

    /// SQLite's own checksum of a known header (the sums of the words 1, 2, 3, 4 little-endian).
    func testTheChecksumIsSQLites() {
        let words: [UInt8] = [1, 0, 0, 0, 2, 0, 0, 0, 3, 0, 0, 0, 4, 0, 0, 0]
        // s0 = 0+1+0 = 1, s1 = 0+2+1 = 3; s0 = 1+3+3 = 7, s1 = 3+4+7 = 14.
        XCTAssertTrue(WriteAheadLogScan.checksum(words[...], bigEndianWords: false, from: (0, 0)) == (7, 14))
        XCTAssertTrue(
            WriteAheadLogScan.checksum(words[...], bigEndianWords: true, from: (0, 0))
                == (0x0100_0000 &+ 0x0300_0000 &+ 0x0200_0000 &+ 0x0100_0000, 0x0E00_0000))
    }

    /// A log that cannot be opened is an error (the open then fails, typed), not "no damage".
    func testAMissingLogThrows() {
        XCTAssertThrowsError(try WriteAheadLogScan.damage(ofLogAt: path + ".missing"))
    }
}

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a database's write-ahead log the way SQLite's recovery does, to find damage that
/// recovery would take for the log's end and so drop committed transactions without a word.
///
/// SQLite checks each frame's salts and its checksum, which chains from the frame before, and
/// stops at the first frame that fails: everything after it is ignored, and the next checkpoint
/// ends the log, so those transactions are gone for good. A crash can only leave such a frame in
/// the last transaction, the one being written: with `synchronous = FULL` a commit returns only
/// once its frames are synced, and the next transaction is written only after that. So a failing
/// frame whose transaction ended with a commit frame, followed by frames that check in an
/// unbroken chain from that commit frame (written after it, so after it was synced), is damage
/// done since, not a crash: the open refuses the store rather than lose them. Frames that merely
/// check against each other are not enough: a transaction that spilled frames and rolled back
/// leaves them past the log's end with the log's salts, chaining among themselves but not from
/// the commit frame written over their start.
///
/// Damage within the last transaction cannot be told from a torn write and is left to SQLite
/// (that transaction is dropped). A log whose header fails is ignored by SQLite as a whole. That
/// too is damage when frames follow that check from the header as it was (its stored checksum,
/// or the one its first 24 bytes give; its salts, or the first frame's) with a commit among them:
/// SQLite syncs a new log's header before its first frame, and rewrites it only once every
/// frame is in the database, so a header that fails in front of committed frames chained from it
/// was damaged after they were written. The format:
/// <https://www.sqlite.org/fileformat2.html#walformat>.
struct WriteAheadLogScan {
    /// A damaged frame with committed transactions after it.
    struct Damage: Equatable, Sendable {
        /// The damaged frame, counted from 1.
        let frame: Int
        /// Its byte offset in the log.
        let offset: Int
        /// Transactions after the damaged one whose commit frames check (each acknowledged).
        let laterCommits: Int
        /// Frames after the damaged transaction that check.
        let laterFrames: Int

        /// What an error says of it, for the log at `log`: where, what would be lost, what to do.
        func reason(log: String) -> String {
            if frame == 0 {
                let committed =
                    laterCommits == 1 ? "the committed transaction" : "the \(laterCommits) committed transactions"
                return
                    "the header of the write-ahead log \(log) is damaged: SQLite would ignore the whole log and drop "
                    + "\(committed) in it; the store was not opened and nothing was changed. "
                    + "Restore it from a backup, or, to open it without them, keep a copy of the store's folder and "
                    + "remove the log"
            }
            let after =
                laterCommits == 0
                ? "" : laterCommits == 1 ? " and the one after it" : " and the \(laterCommits) after it"
            return "the write-ahead log \(log) is damaged at frame \(frame) (byte \(offset)): SQLite's recovery "
                + "would end the log there and drop the committed transaction holding that frame\(after); "
                + "the store was not opened and nothing was changed. "
                + "Restore it from a backup, or, to open it without them, keep a copy of the store's folder and "
                + "truncate the log to \(offset) bytes"
        }
    }

    /// The size of the log's header.
    static let headerSize = 32
    /// The size of a frame's header (before its page).
    static let frameHeaderSize = 24

    /// The damage in the log at `path`, nil when there is none that recovery would hide (or no
    /// log). Reads the log once, frame by frame; throws `SystemError` when it cannot be read.
    ///
    /// A header that fails is damage (`frame` 0) when committed frames check from it as it was;
    /// its page size is then the header's when that is one SQLite accepts, else `pageSize`.
    static func damage(ofLogAt path: String, pageSize: Int? = nil) throws -> Damage? {
        let file = try FileDescriptor(path: path, flags: O_RDONLY | O_NONBLOCK | O_NOFOLLOW)
        var header = [UInt8](repeating: 0, count: headerSize)
        guard try readFully(file, into: &header, count: headerSize) else { return nil }
        guard let log = LogHeader(header) else {
            return try damagedHeader(header, file: file, logPath: path, pageSize: pageSize)
        }
        var frame = [UInt8](repeating: 0, count: frameHeaderSize + log.pageSize)
        var scan = Scan(log: log)
        while try readFully(file, into: &frame, count: frame.count) {
            scan.take(frame)
        }
        return scan.damage
    }

    /// What SQLite's recovery keeps of the log at `path`: its page size, the database's size in pages after
    /// the last commit frame of the frames that check (in order, from the header), and the pages
    /// those frames hold; nil when there is no such commit (or a header SQLite ignores). Throws
    /// `SystemError` when the log cannot be read.
    static func committedPages(ofLogAt path: String) throws -> (
        pageSize: Int, databasePages: Int, pages: Set<UInt32>
    )? {
        let file = try FileDescriptor(path: path, flags: O_RDONLY | O_NONBLOCK | O_NOFOLLOW)
        var header = [UInt8](repeating: 0, count: headerSize)
        guard try readFully(file, into: &header, count: headerSize), let log = LogHeader(header) else { return nil }
        var frame = [UInt8](repeating: 0, count: frameHeaderSize + log.pageSize)
        var chain = log.checksum
        var pending: [UInt32] = []
        // Grown in place: a commit that copied the pages before it would make a log of many small
        // commits quadratic.
        var pages = Set<UInt32>()
        var databasePages: Int?
        while try readFully(file, into: &frame, count: frame.count), let next = log.check(frame, from: chain) {
            chain = next
            pending.append(walWord(frame, 0))
            let commit = walWord(frame, 4)
            if commit != 0 {
                pages.formUnion(pending)
                pending.removeAll(keepingCapacity: true)
                databasePages = Int(commit)
            }
        }
        return databasePages.map { (log.pageSize, $0, pages) }
    }

    /// Reads exactly `count` bytes into `buffer`; false at the end of the file (a short frame
    /// at the end is one SQLite ignores too).
    static func readFully(_ file: FileDescriptor, into buffer: inout [UInt8], count: Int) throws -> Bool {
        var filled = 0
        while filled < count {
            let got = try buffer.withUnsafeMutableBytes {
                try file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled..<count]))
            }
            if got == 0 { return false }
            filled += got
        }
        return true
    }

    /// What the log's header says, when SQLite would accept it.
    struct LogHeader {
        let pageSize: Int
        let salts: (UInt32, UInt32)
        let checksum: (UInt32, UInt32)
        /// Whether the checksums read the bytes as big-endian words (the magic's low bit).
        let bigEndianWords: Bool

        init?(_ bytes: [UInt8]) {
            guard bytes.count >= WriteAheadLogScan.headerSize else { return nil }
            let magic = walWord(bytes, 0)
            guard magic & 0xFFFF_FFFE == 0x377F_0682, walWord(bytes, 4) == 3_007_000 else { return nil }
            let pageSize = Int(walWord(bytes, 8))
            guard pageSize >= 512, pageSize <= 65536, pageSize & (pageSize - 1) == 0 else { return nil }
            bigEndianWords = magic & 1 == 1
            let sum = WriteAheadLogScan.checksum(bytes[0..<24], bigEndianWords: bigEndianWords, from: (0, 0))
            guard sum == (walWord(bytes, 24), walWord(bytes, 28)) else { return nil }
            self.pageSize = pageSize
            salts = (walWord(bytes, 16), walWord(bytes, 20))
            checksum = sum
        }

        /// A header as it was before damage, from what is left of it.
        init(pageSize: Int, salts: (UInt32, UInt32), checksum: (UInt32, UInt32), bigEndianWords: Bool) {
            self.pageSize = pageSize
            self.salts = salts
            self.checksum = checksum
            self.bigEndianWords = bigEndianWords
        }

        /// The chain after `frame` (a frame header and its page) when it checks from `chain`
        /// with this log's salts, nil when it does not.
        func check(_ frame: [UInt8], from chain: (UInt32, UInt32)) -> (UInt32, UInt32)? {
            guard (walWord(frame, 8), walWord(frame, 12)) == salts, walWord(frame, 0) != 0 else {
                return nil
            }
            var sum = WriteAheadLogScan.checksum(frame[0..<8], bigEndianWords: bigEndianWords, from: chain)
            sum = WriteAheadLogScan.checksum(
                frame[WriteAheadLogScan.frameHeaderSize...], bigEndianWords: bigEndianWords, from: sum)
            return sum == (walWord(frame, 16), walWord(frame, 20)) ? sum : nil
        }
    }

    /// The frames read so far.
    struct Scan {
        /// Where the scan is.
        private enum Phase {
            /// Every frame so far checks.
            case intact
            /// Inside the transaction of the first frame that failed, each frame checked from the
            /// stored checksum of the frame before it.
            case damagedTransaction
            /// Past that transaction's commit frame: frames that check in an unbroken chain from
            /// it were written after it was synced, so it was acknowledged.
            case afterDamagedTransaction
            /// The chain after the damaged transaction broke: what follows is stale or torn.
            case done
        }

        let log: LogHeader
        /// The number of frames taken.
        private(set) var frames = 0
        private var phase = Phase.intact
        /// The checksum the next frame continues (in `intact` and `afterDamagedTransaction`, the
        /// chain; in `damagedTransaction`, the stored checksum of the frame before).
        private var chain: (UInt32, UInt32)
        /// The first frame that failed, and its offset.
        private var failed: (frame: Int, offset: Int)?
        private var laterCommits = 0
        private var laterFrames = 0

        init(log: LogHeader) {
            self.log = log
            chain = log.checksum
        }

        /// The damage found, when frames of a later transaction follow a damaged one.
        var damage: Damage? {
            guard let failed, laterFrames > 0 else { return nil }
            return Damage(
                frame: failed.frame, offset: failed.offset, laterCommits: laterCommits, laterFrames: laterFrames)
        }

        /// Takes the next frame: its 24-byte header and its page.
        mutating func take(_ frame: [UInt8]) {
            frames += 1
            guard phase != .done else { return }
            let offset = WriteAheadLogScan.headerSize + (frames - 1) * frame.count
            let page = walWord(frame, 0)
            let commit = walWord(frame, 4)
            let ours = (walWord(frame, 8), walWord(frame, 12)) == log.salts
            let stored = (walWord(frame, 16), walWord(frame, 20))
            var sum = WriteAheadLogScan.checksum(frame[0..<8], bigEndianWords: log.bigEndianWords, from: chain)
            sum = WriteAheadLogScan.checksum(
                frame[WriteAheadLogScan.frameHeaderSize...], bigEndianWords: log.bigEndianWords, from: sum)
            let checks = ours && page != 0 && sum == stored
            // A commit frame ends its transaction even when it does not check (its page, or the
            // stored checksum before it, damaged): the next transaction chains from what it stores.
            let endsTransaction = ours && commit != 0
            switch phase {
            case .intact:
                if checks {
                    chain = sum
                    return
                }
                failed = (frames, offset)
                phase = endsTransaction ? .afterDamagedTransaction : .damagedTransaction
                chain = stored
            case .damagedTransaction:
                phase = endsTransaction ? .afterDamagedTransaction : .damagedTransaction
                chain = stored
            case .afterDamagedTransaction:
                // Frames a rolled-back transaction left past the log's end keep the log's salts and
                // chain among themselves, but not from this commit frame: the chain must hold.
                guard checks else {
                    phase = .done
                    return
                }
                laterFrames += 1
                if commit != 0 { laterCommits += 1 }
                chain = sum
            case .done:
                return
            }
        }
    }

    /// SQLite's log checksum of `bytes` (a multiple of 8 long) continued from `seed`: two sums
    /// over the 32-bit words, alternately.
    static func checksum(_ bytes: ArraySlice<UInt8>, bigEndianWords: Bool, from seed: (UInt32, UInt32)) -> (
        UInt32, UInt32
    ) {
        var (first, second) = seed
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset + 8 <= raw.count {
                let a = raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self)
                let b = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let x = bigEndianWords ? UInt32(bigEndian: a) : UInt32(littleEndian: a)
                let y = bigEndianWords ? UInt32(bigEndian: b) : UInt32(littleEndian: b)
                first = first &+ x &+ second
                second = second &+ y &+ first
                offset += 8
            }
        }
        return (first, second)
    }
}

/// The big-endian 32-bit word at `offset` of `bytes`.
func walWord(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
    UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
        | UInt32(bytes[offset + 3])
}

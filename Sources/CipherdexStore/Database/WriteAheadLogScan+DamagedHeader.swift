#if canImport(Glibc)
    import Glibc
#endif

/// A log whose header fails: SQLite ignores the whole log. That loses committed transactions
/// when frames follow that check from the header as it was (or, the header's salts and checksum
/// gone, from the first frame's), with a commit among them, and the
/// database file does not already hold what they committed (a log fully checkpointed before its
/// header was damaged, or torn by a restart, loses nothing).
extension WriteAheadLogScan {
    /// The damage of the log at `logPath` (open as `file`, past its `header`): the frames that
    /// check in a chain from the header as it was (its stored checksum, or the one its first 24
    /// bytes give; its salts, or the first frame's; either byte order), counted while they do,
    /// when a commit is among them and the newest committed image of some page they hold is not
    /// what the database file holds. The page size is the header's when SQLite would accept it,
    /// else `expected`.
    static func damagedHeader(_ header: [UInt8], file: FileDescriptor, logPath: String, pageSize expected: Int?)
        throws -> Damage?
    {
        let recorded = Int(walWord(header, 8))
        let acceptable = { (size: Int) in size >= 512 && size <= 65536 && size & (size - 1) == 0 }
        guard let pageSize = acceptable(recorded) ? recorded : expected.flatMap({ acceptable($0) ? $0 : nil }) else {
            return nil
        }
        var frame = [UInt8](repeating: 0, count: frameHeaderSize + pageSize)
        guard try readFully(file, into: &frame, count: frame.count) else { return nil }
        let storedSum = (walWord(header, 24), walWord(header, 28))
        var candidates: [LogHeader] = []
        for bigEndianWords in [false, true] {
            let computedSum = checksum(header[0..<24], bigEndianWords: bigEndianWords, from: (0, 0))
            for salts in [(walWord(header, 16), walWord(header, 20)), (walWord(frame, 8), walWord(frame, 12))] {
                for sum in [storedSum, computedSum] {
                    candidates.append(
                        LogHeader(pageSize: pageSize, salts: salts, checksum: sum, bigEndianWords: bigEndianWords))
                }
            }
        }
        var frames = 0
        var commits = 0
        // Each page's newest frame (counted from 1) in the committed transactions, and in the
        // one being read.
        var committed: [UInt32: Int] = [:]
        var pending: [UInt32: Int] = [:]
        var databasePages = 0
        func take(_ frame: [UInt8]) {
            frames += 1
            pending[walWord(frame, 0)] = frames
            let commit = walWord(frame, 4)
            if commit != 0 {
                commits += 1
                committed.merge(pending) { _, newer in newer }
                pending.removeAll(keepingCapacity: true)
                databasePages = Int(commit)
            }
        }
        let log: LogHeader
        var chain: (UInt32, UInt32)
        let matching = candidates.lazy.compactMap { log in log.check(frame, from: log.checksum).map { (log, $0) } }
        if let (found, first) = matching.first {
            (log, chain) = (found, first)
            take(frame)
        } else {
            // The header's salts and checksum are gone too (zeroed, say): the first frame cannot
            // be checked, but the frames after it chain from the checksum it stores, with its salts.
            let salts = (walWord(frame, 8), walWord(frame, 12))
            let stored = (walWord(frame, 16), walWord(frame, 20))
            var second = frame
            guard walWord(frame, 0) != 0, try readFully(file, into: &second, count: second.count) else { return nil }
            let orders = [false, true].lazy.map {
                LogHeader(pageSize: pageSize, salts: salts, checksum: stored, bigEndianWords: $0)
            }
            guard
                let (found, next) = orders.compactMap({ log in log.check(second, from: stored).map { (log, $0) } })
                    .first
            else { return nil }
            (log, chain) = (found, next)
            take(frame)
            take(second)
        }
        while try readFully(file, into: &frame, count: frame.count), let next = log.check(frame, from: chain) {
            chain = next
            take(frame)
        }
        guard commits > 0 else { return nil }
        let databasePath = String(logPath.dropLast("-wal".count))
        if logPath.hasSuffix("-wal"),
            try databaseHolds(
                committed.filter { Int($0.key) <= databasePages }, log: file, pageSize: pageSize,
                databasePath: databasePath)
        {
            return nil
        }
        return Damage(frame: 0, offset: 0, laterCommits: commits, laterFrames: frames)
    }

    /// Whether the database file at `databasePath` holds, for each page of `pages`, the image
    /// of its frame in `log` (what a finished checkpoint copied there byte for byte).
    private static func databaseHolds(
        _ pages: [UInt32: Int], log: FileDescriptor, pageSize: Int, databasePath: String
    ) throws -> Bool {
        guard let database = try? FileDescriptor(path: databasePath, flags: O_RDONLY | O_NONBLOCK | O_NOFOLLOW) else {
            return false
        }
        var logged = [UInt8](repeating: 0, count: pageSize)
        var stored = [UInt8](repeating: 0, count: pageSize)
        for (page, frame) in pages {
            let frameOffset = UInt64(headerSize) + UInt64(frame - 1) * UInt64(frameHeaderSize + pageSize)
            guard try readPage(log, at: frameOffset + UInt64(frameHeaderSize), into: &logged),
                try readPage(database, at: UInt64(page - 1) * UInt64(pageSize), into: &stored), logged == stored
            else { return false }
        }
        return true
    }

    /// Reads `buffer.count` bytes at `offset`; false when the file ends before.
    private static func readPage(_ file: FileDescriptor, at offset: UInt64, into buffer: inout [UInt8]) throws -> Bool {
        var filled = 0
        while filled < buffer.count {
            let got = try buffer.withUnsafeMutableBytes {
                try file.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[filled...]), at: offset + UInt64(filled))
            }
            if got == 0 { return false }
            filled += got
        }
        return true
    }
}

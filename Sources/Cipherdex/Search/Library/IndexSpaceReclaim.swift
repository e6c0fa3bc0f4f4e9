import Foundation

/// Gives back the space removed documents held, in bounded steps after a removal (and, when the
/// index writer goes idle, the free pages bulk indexing left: `giveBackFreePages`): FTS4 segment
/// merges drop the postings of deleted pages (FTS4 keeps them, as delete markers, until the
/// segments holding them merge), `optimize` when the remaining index is small, then
/// `PRAGMA incremental_vacuum` returns free pages to the file system (stores created with
/// `auto_vacuum = INCREMENTAL`; the file shrinks at the next checkpoint). Every step is its own
/// write transaction, so no writer waits long and a reader sees the index before or after a
/// step, never part of one; a crash in a step rolls that step back and loses nothing.
enum IndexSpaceReclaim {
    /// Leaf pages one FTS4 merge step may write (`merge=X,2`): about 1 MiB per transaction.
    static let mergeStepPages = 256
    /// Merge steps one reclaim runs at most (the rest waits for the next removal).
    static let maxMergeSteps = 256
    /// An index of at most this many pages is optimized (merged into one segment) in one step.
    static let optimizeRowLimit = 4_000
    /// Free pages one `incremental_vacuum` step gives back.
    static let vacuumStepPages = 2_048
    /// Removals smaller than this share of the remaining pages only vacuum free pages: merges
    /// wait until enough was removed to be worth their writes.
    static let mergeShare = 0.01

    /// Runs after `removedPages` pages were removed. Errors (a full disk during a merge) end the
    /// reclaim early: the removal itself is committed, what is left waits for the next one.
    /// `optimizeRowLimit` is `Self.optimizeRowLimit` but for tests of the merge path.
    static func run(store: Store, removedPages: Int, optimizeRowLimit: Int = Self.optimizeRowLimit) {
        guard removedPages > 0 else { return }
        do {
            let remaining =
                try store.transaction { tx in
                    try tx.connection.scalar("SELECT count(*) FROM search_pages")?.integerValue
                } ?? 0
            if remaining <= optimizeRowLimit {
                try store.transaction { tx in
                    try tx.connection.execute("INSERT INTO search_text(search_text) VALUES('optimize')")
                }
            } else if Double(removedPages) >= mergeShare * Double(remaining) {
                try merge(store: store)
            }
            try vacuum(store: store)
        } catch {
            return
        }
    }

    /// Free pages that make `giveBackFreePages` vacuum: at least this many, and at least
    /// `idleFreeShare` of the database.
    static let idleFreePages = 64
    /// See `idleFreePages`.
    static let idleFreeShare = 0.01

    /// When the index writer has nothing left to do (after its last document write, or its
    /// last OCR page): vacuums (`vacuum(store:)`) when the free
    /// pages are at least `idleFreePages` and `idleFreeShare` of the database — what FTS4's
    /// segment merges leave after bulk indexing (2.8% of a 1,000,000-page store, BENCHMARKS.md
    /// "Page text dictionary"). Errors end it: the pages stay free for later writes.
    static func giveBackFreePages(store: Store) {
        do {
            let (free, total) = try store.read { db in
                (
                    try db.scalar("PRAGMA freelist_count")?.integerValue ?? 0,
                    try db.scalar("PRAGMA page_count")?.integerValue ?? 0
                )
            }
            guard free >= Int64(idleFreePages), Double(free) >= idleFreeShare * Double(total) else { return }
            try vacuum(store: store)
        } catch {
            return
        }
    }

    /// FTS4 incremental merges until one is a no-op (fewer than two rows changed) or the step cap.
    static func merge(store: Store) throws {
        for _ in 0..<maxMergeSteps {
            let merged = try store.transaction { tx in
                let db = tx.connection
                let before = db.totalChanges
                try db.execute("INSERT INTO search_text(search_text) VALUES('merge=\(mergeStepPages),2')")
                return db.totalChanges - before >= 2
            }
            if !merged { return }
        }
    }

    /// Free pages back to the file system, `vacuumStepPages` per transaction, then a passive
    /// checkpoint so the database file is truncated now rather than at close.
    static func vacuum(store: Store) throws {
        let incremental = try store.read { try $0.scalar("PRAGMA auto_vacuum")?.integerValue } == 2
        guard incremental else { return }
        var previous = Int64.max
        while true {
            // Stops when nothing is free or a step gave nothing back (never loops in place).
            let free = try store.transaction { tx in
                let db = tx.connection
                let free = try db.scalar("PRAGMA freelist_count")?.integerValue ?? 0
                if free > 0 && free < previous { try db.execute("PRAGMA incremental_vacuum(\(vacuumStepPages))") }
                return free
            }
            if free == 0 || free >= previous { break }
            previous = free
        }
        try store.write { try $0.execute("PRAGMA wal_checkpoint(PASSIVE)") }
    }
}

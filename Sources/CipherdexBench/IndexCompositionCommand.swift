import Cipherdex
import Foundation

/// `cipherdex-bench index-composition STORE --key-file K [--optimize]`: where a store's search
/// index spends its bytes (FTS4 segments by level, the compressed page text, the per-page
/// lengths, the page rows), and with `--optimize` what merging every FTS4 segment into one
/// (`optimize`) then giving the free pages back costs and saves (issue 12's index size). The
/// store is opened as usual, so a migration it lacks runs first.
enum IndexCompositionCommand {
    /// Runs the command with the arguments after `index-composition`; returns the exit status.
    static func main(_ arguments: [String]) -> Int32 {
        var store: String?
        var keyFile: String?
        var optimize = false
        var index = 0
        while index < arguments.count {
            switch arguments[index] {
            case "--key-file":
                index += 1
                keyFile = index < arguments.count ? arguments[index] : nil
            case "--optimize": optimize = true
            default: store = arguments[index]
            }
            index += 1
        }
        guard let store, let keyFile else {
            FileHandle.standardError.write(
                Data("usage: cipherdex-bench index-composition STORE --key-file K [--optimize]\n".utf8))
            return 64
        }
        do {
            let handle = try Store.open(
                StoreConfiguration(
                    path: store, keyProvider: { try EncryptionKey.raw(contentsOfFile: keyFile) }, createIfMissing: false
                ))
            defer { handle.close() }
            print(try composition(handle, title: "before"))
            if optimize {
                let merge = try Bench.time {
                    try handle.transaction { tx in
                        try tx.connection.execute("INSERT INTO search_text(search_text) VALUES('optimize')")
                    }
                }
                let vacuum = try Bench.time {
                    try handle.transaction { tx in try tx.connection.execute("PRAGMA incremental_vacuum") }
                    try handle.write { try $0.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
                }
                print(String(format: "optimize: %.1f s; incremental_vacuum + checkpoint: %.1f s\n", merge, vacuum))
                print(try composition(handle, title: "after optimize"))
            }
            return 0
        } catch {
            FileHandle.standardError.write(Data("cipherdex-bench: error: \(error)\n".utf8))
            return 1
        }
    }

    /// The table of byte counts.
    static func composition(_ store: Store, title: String) throws -> String {
        try store.read { db in
            var lines = ["### Index composition, \(title)", "", "| part | rows | bytes |", "| --- | ---: | ---: |"]
            func add(_ name: String, _ sql: String) throws {
                let row = try db.rows(sql).first
                let rows = row?[0].integerValue ?? 0
                let bytes = row?[1].integerValue ?? 0
                lines.append("| \(name) | \(rows) | \(bytes) |")
            }
            try add(
                "FTS4 leaf blocks (`search_text_segments`)",
                "SELECT count(*), sum(length(block)) FROM search_text_segments")
            try add(
                "FTS4 segment roots (`search_text_segdir`)",
                "SELECT count(*), sum(length(root)) FROM search_text_segdir")
            try add(
                "page text, compressed (`search_text_content`)",
                "SELECT count(*), sum(length(CAST(c0body AS BLOB))) FROM search_text_content")
            try add(
                "page lengths (`search_text_docsize`)", "SELECT count(*), sum(length(size)) FROM search_text_docsize")
            try add(
                "page rows (`search_pages`, uid bytes)",
                "SELECT count(*), sum(length(CAST(uid AS BLOB))) FROM search_pages")
            for row in try db.rows("SELECT level, count(*) FROM search_text_segdir GROUP BY level ORDER BY level") {
                lines.append("| segments at level \(row[0].integerValue ?? 0) | \(row[1].integerValue ?? 0) | |")
            }
            let pageSize = try db.scalar("PRAGMA page_size")?.integerValue ?? 0
            let pages = try db.scalar("PRAGMA page_count")?.integerValue ?? 0
            let free = try db.scalar("PRAGMA freelist_count")?.integerValue ?? 0
            let vacuum = try db.scalar("PRAGMA auto_vacuum")?.integerValue ?? 0
            lines.append(
                "| database pages in use (page size \(pageSize), auto_vacuum \(vacuum)) | \(pages - free) | \((pages - free) * pageSize) |"
            )
            lines.append("| free pages | \(free) | \(free * pageSize) |")
            return lines.joined(separator: "\n") + "\n"
        }
    }
}

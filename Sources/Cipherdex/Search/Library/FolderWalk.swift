import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The files under a synced folder that may be indexed, found with `DirectoryEntries` (raw
/// names), hidden entries left out; what cannot be indexed is listed in `skipped`.
struct FolderWalk {
    /// Candidate files by UID (path relative to the root), with size and modification time.
    private(set) var files: [String: (size: Int64, modified: Double)] = [:]
    /// Entries left out, sorted by path.
    private(set) var skipped: [FolderSyncSummary.SkippedEntry] = []
    /// Relative paths of the folders that could not be read.
    private(set) var unreadableFolders: [String] = []
    /// Of two names that are one text, the one kept when the other is not here (already indexed).
    private let preferred: Set<UTF8Key>

    /// Walks `root` (an absolute path without symbolic links) for files whose lower-cased
    /// extension is in `allowed`. Throws `SearchError.unreadable` when the root itself cannot be
    /// read, and `CancellationError` (between folders) once `cancellation` is set.
    init(
        root: String, allowed: Set<String>, preferring preferred: Set<UTF8Key> = [],
        cancellation: WorkCancellation? = nil
    ) throws {
        self.preferred = preferred
        let rootBytes = Array(root.utf8)
        var stack: [[UInt8]] = [[]]
        while let relative = stack.popLast() {
            try cancellation?.check()
            let directory: DirectoryEntries
            do {
                directory = try DirectoryEntries(path: relative.isEmpty ? rootBytes : rootBytes + [0x2F] + relative)
            } catch let error as SystemError {
                let reason = String(cString: strerror(error.errno))
                guard !relative.isEmpty else { throw SearchError.unreadable(path: root, reason: reason) }
                let path = DirectoryEntries.escaped(relative)
                skipped.append(.init(path: path, reason: "cannot read the folder: \(reason)"))
                unreadableFolders.append(path)
                continue
            }
            for entry in directory.entries where entry.name.first != 0x2E {
                let path = relative.isEmpty ? entry.name : relative + [0x2F] + entry.name
                switch entry.kind {
                case .directory:
                    guard !entry.isSymbolicLink else { continue }
                    guard String(validating: path, as: UTF8.self) != nil else {
                        skipped.append(
                            .init(path: DirectoryEntries.escaped(path), reason: "the folder's name is not valid UTF-8"))
                        continue
                    }
                    stack.append(path)
                case .regularFile:
                    guard allowed.contains(Self.fileExtension(entry.name)) else { continue }
                    guard let uid = String(validating: path, as: UTF8.self) else {
                        skipped.append(
                            .init(path: DirectoryEntries.escaped(path), reason: "the file's name is not valid UTF-8"))
                        continue
                    }
                    if entry.isSymbolicLink {
                        // A link counts as the file it leads to, when that is inside the folder,
                        // compared byte for byte (as strings, a sibling folder named like the root
                        // in another Unicode normalization counted as inside). A link out of the
                        // folder is not followed (it would make every sync of a folder that holds
                        // one incomplete): the help says so.
                        let inside = rootBytes + [0x2F]
                        guard let target = Self.linkTarget(rootBytes + [0x2F] + path),
                            target.starts(with: inside), target.count > inside.count
                        else { continue }
                        guard let relative = String(validating: target[inside.count...], as: UTF8.self) else {
                            skipped.append(
                                .init(
                                    path: DirectoryEntries.escaped(path),
                                    reason: "the link leads to a name that is not valid UTF-8"))
                            continue
                        }
                        record(relative, size: entry.size, modified: entry.modified)
                    } else {
                        record(uid, size: entry.size, modified: entry.modified)
                    }
                case .other:
                    // A FIFO, device or socket (or a link to nothing) named like a document: said,
                    // not left out in silence.
                    guard allowed.contains(Self.fileExtension(entry.name)) else { continue }
                    skipped.append(
                        .init(
                            path: DirectoryEntries.escaped(path),
                            reason: "not a regular file (a FIFO, device, socket or link to nothing)"))
                }
            }
        }
        skipped.sort { $0.path < $1.path }
    }

    /// Records a candidate file. Two names that are the same text in different Unicode
    /// normalizations (`café` composed and decomposed) would be one UID (Swift compares strings
    /// by canonical equivalence, and so do `status(of:)` and search results): the one first in
    /// byte order (or the one `preferred`: already indexed) is kept and the other skipped, said
    /// (one of them was dropped in silence).
    private mutating func record(_ uid: String, size: Int64, modified: Double) {
        guard let index = files.index(forKey: uid), !files[index].key.utf8.elementsEqual(uid.utf8) else {
            files[uid] = (size, modified)
            return
        }
        var kept = files[index].key
        var dropped = uid
        let newIsPreferred = preferred.contains(UTF8Key(uid))
        let replaces =
            newIsPreferred != preferred.contains(UTF8Key(kept))
            ? newIsPreferred : uid.utf8.lexicographicallyPrecedes(kept.utf8)
        if replaces {
            swap(&kept, &dropped)
            files.remove(at: index)
            files[kept] = (size, modified)
        }
        skipped.append(
            .init(
                path: DirectoryEntries.escaped(Array(dropped.utf8)),
                reason: "its name is the same text as '\(DirectoryEntries.escaped(Array(kept.utf8)))' in another "
                    + "Unicode normalization (composed or decomposed accents): only that one is indexed"))
    }

    /// Where the link at `path` (bytes) leads, resolved by the system (`realpath`), in bytes; nil
    /// when it cannot be resolved.
    private static func linkTarget(_ path: [UInt8]) -> [UInt8]? {
        let resolved = (path + [0]).withUnsafeBufferPointer { bytes in
            bytes.withMemoryRebound(to: CChar.self) { realpath($0.baseAddress!, nil) }
        }
        guard let resolved else { return nil }
        defer { free(resolved) }
        return Array(UnsafeBufferPointer(start: resolved, count: strlen(resolved))).map { UInt8(bitPattern: $0) }
    }

    /// Whether `uid` lies in a folder that could not be read (so its absence proves nothing).
    func isInUnreadableFolder(_ uid: String) -> Bool {
        unreadableFolders.contains { uid.hasPrefix($0 + "/") }
    }

    /// The lower-cased text after the last dot of a name (empty when there is none).
    private static func fileExtension(_ name: [UInt8]) -> String {
        guard let dot = name.lastIndex(of: 0x2E), dot > 0 else { return "" }
        return String(decoding: name[(dot + 1)...], as: UTF8.self).lowercased()
    }
}

import Cipherdex
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `--kdf-seconds`: Argon2id calibrated once per machine. The measured cost is kept in
/// `$XDG_CACHE_HOME/cipherdex/argon2id.json` (default `~/.cache/cipherdex/`), keyed by the
/// target time and memory; it holds no secret. An unreadable or damaged cache is measured again.
enum CalibrationCache {
    /// Where the cache lives, nil without a home directory.
    static var path: String? { location?.path }

    /// The cache's path, and the folder that must already exist for it to be written: the cache
    /// folder is made inside it, never it (a `HOME` that does not exist, `/nonexistent` for
    /// system users, was created).
    private static var location: (path: String, base: String)? {
        let environment = ProcessInfo.processInfo.environment
        if let cache = environment["XDG_CACHE_HOME"], cache.hasPrefix("/") {
            return (cache + "/cipherdex/argon2id.json", (cache as NSString).deletingLastPathComponent)
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else { return nil }
        return (home + "/.cache/cipherdex/argon2id.json", home)
    }

    /// The cost for `seconds` on this machine: from the cache, or measured and cached.
    static func cost(targetSeconds seconds: Double, memory: Int = 64 << 20) throws -> PassphraseCost {
        let key = "\(Int((seconds * 1000).rounded())) ms, \(memory) bytes"
        var entries: [String: PassphraseCost] = [:]
        if let path, isTrusted(path), isTrusted((path as NSString).deletingLastPathComponent),
            let data = FileManager.default.contents(atPath: path), data.count < 1 << 16,
            let decoded = try? JSONDecoder().decode([String: PassphraseCost].self, from: data)
        {
            entries = decoded
        }
        if let known = entries[key], PassphraseCost.acceptedOpsLimits.contains(known.opsLimit),
            PassphraseCost.acceptedMemLimits.contains(known.memLimit), known.memLimit <= memory,
            known.memLimit >= min(memory, PassphraseCost.minimumCalibratedMemory)
        {
            return known
        }
        let measured = try PassphraseCost.calibrated(targetSeconds: seconds, memory: memory)
        entries[key] = measured
        var isFolder: ObjCBool = false
        if let (path, base) = location, FileManager.default.fileExists(atPath: base, isDirectory: &isFolder),
            isFolder.boolValue, let data = try? JSONEncoder().encode(entries)
        {
            write(data, to: path, base: base)
        }
        return measured
    }

    /// Whether the cache file or folder at `path` is only this user's: owned by them and
    /// writable by no one else. Another user's, or one others may write (a cache made under
    /// umask 000 by an older build), could hold a cost made weak on purpose: it is measured
    /// again (environment audit 28: another user rewrote it to 1 pass over 8 KiB).
    private static func isTrusted(_ path: String) -> Bool {
        var info = stat()
        guard lstat(path, &info) == 0 else { return false }
        return info.st_uid == geteuid() && info.st_mode & 0o022 == 0
            && (info.st_mode & S_IFMT == S_IFREG || info.st_mode & S_IFMT == S_IFDIR)
    }

    /// Writes the cache owner-only whatever the umask: the folders it makes 0700, the file 0600
    /// through a temporary file renamed into place (best effort: a cache not written is measured
    /// again next time).
    private static func write(_ data: Data, to path: String, base: String) {
        let folder = (path as NSString).deletingLastPathComponent
        let parent = (folder as NSString).deletingLastPathComponent
        if parent != base { _ = mkdir(parent, 0o700) }
        _ = mkdir(folder, 0o700)
        guard isTrusted(folder) else { return }
        let temporary = path + ".tmp-\(getpid())"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return }
        let written = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        let synced = fchmod(descriptor, 0o600) == 0 && fsync(descriptor) == 0
        close(descriptor)
        if written == data.count && synced && rename(temporary, path) == 0 { return }
        unlink(temporary)
    }
}

import Cipherdex
import Foundation

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
        if let path, let data = FileManager.default.contents(atPath: path), data.count < 1 << 16,
            let decoded = try? JSONDecoder().decode([String: PassphraseCost].self, from: data)
        {
            entries = decoded
        }
        if let known = entries[key], PassphraseCost.acceptedOpsLimits.contains(known.opsLimit),
            PassphraseCost.acceptedMemLimits.contains(known.memLimit), known.memLimit <= memory
        {
            return known
        }
        let measured = try PassphraseCost.calibrated(targetSeconds: seconds, memory: memory)
        entries[key] = measured
        var isFolder: ObjCBool = false
        if let (path, base) = location, FileManager.default.fileExists(atPath: base, isDirectory: &isFolder),
            isFolder.boolValue, let data = try? JSONEncoder().encode(entries)
        {
            try? FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try? data.write(to: URL(fileURLWithPath: path), options: .atomic)
        }
        return measured
    }
}

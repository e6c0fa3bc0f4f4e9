import Foundation

/// The mount points the kernel lists for this process (`/proc/self/mountinfo`), bind mounts
/// included: a folder bound onto another of the same file system has the same `st_dev`, so
/// only this list tells it apart.
enum MountPoints {
    /// Every mount point at `path` or below it (`path` resolved, as the list's paths are); empty
    /// when the list cannot be read.
    static func atOrBelow(_ path: String) -> Set<String> {
        guard let text = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return [] }
        let prefix = path == "/" ? "/" : path + "/"
        var points = Set<String>()
        for line in text.split(separator: "\n") {
            // mount ID, parent ID, major:minor, root, mount point, …
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: false)
            guard fields.count > 4 else { continue }
            let point = unescaped(fields[4])
            if point == path || point.hasPrefix(prefix) { points.insert(point) }
        }
        return points
    }

    /// Whether `path` (resolved) is itself a mount point.
    static func isMountPoint(_ path: String) -> Bool {
        atOrBelow(path).contains(path)
    }

    /// A mount point as the list writes it, with its octal escapes (`\040` for a space, `\011`,
    /// `\012`, `\134`) undone.
    private static func unescaped(_ field: Substring) -> String {
        var bytes: [UInt8] = []
        var utf8 = Array(field.utf8)[...]
        while let byte = utf8.popFirst() {
            if byte == UInt8(ascii: "\\"), utf8.count >= 3,
                let value = UInt8(String(decoding: utf8.prefix(3), as: UTF8.self), radix: 8)
            {
                bytes.append(value)
                utf8 = utf8.dropFirst(3)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

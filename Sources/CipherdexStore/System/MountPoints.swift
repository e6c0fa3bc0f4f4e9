import Foundation

/// The mount points the kernel lists for this process (`/proc/self/mountinfo`), bind mounts
/// included: a folder bound onto another of the same file system has the same `st_dev`, so
/// only this list tells it apart.
enum MountPoints {
    /// Every mount point at `path` or below it (`path` resolved, as the list's paths are); empty
    /// when the list cannot be read.
    static func atOrBelow(_ path: String) -> Set<String> {
        let prefix = path == "/" ? "/" : path + "/"
        var points = Set<String>()
        for mount in mounts() where mount.point == path || mount.point.hasPrefix(prefix) {
            points.insert(mount.point)
        }
        return points
    }

    /// `path` (resolved, its existing part a folder or file) as reached through the mount that
    /// shows the most of its file system, when that is another path: a folder bound elsewhere
    /// (`mount --bind STORE/attachments /mnt/a`) gives the path it has where its file system is
    /// mounted whole (`/mnt/a/x` → `STORE/attachments/x`). Used only when the existing part of
    /// both paths is provably the same (`FileIdentity`); nil when there is no other path, the
    /// list cannot be read or what it says does not check out.
    static func widestPath(of path: String) -> String? {
        let mounts = mounts()
        // The mount `path` is on: the deepest mount point holding it; of several at one point
        // the last listed, mounted over the others.
        var own: Mount?
        for mount in mounts where isSameOrBelow(path, mount.point) {
            if let deepest = own, mount.point.utf8.count < deepest.point.utf8.count { continue }
            own = mount
        }
        guard let own else { return nil }
        let place = joined(own.root, relative(path, to: own.point))
        // The mount of the same file system whose mounted folder holds `place` and is the highest.
        var widest = own
        for mount in mounts
        where mount.device == own.device && isSameOrBelow(place, mount.root)
            && mount.root.utf8.count < widest.root.utf8.count
        {
            widest = mount
        }
        guard widest.root.utf8.count < own.root.utf8.count else { return nil }
        let widened = joined(widest.point, relative(place, to: widest.root))
        // Both end with the same part below `own.point`; the existing part must be one folder.
        var original = path
        var candidate = widened
        while true {
            if let identity = FileIdentity(of: original) {
                return identity == FileIdentity(of: candidate) ? widened : nil
            }
            let parent = FileSystem.parent(of: original)
            guard parent != original, isSameOrBelow(parent, own.point) else { return nil }
            original = parent
            candidate = FileSystem.parent(of: candidate)
        }
    }

    /// One line of the list: the file system (`major:minor`), the folder of it that is mounted
    /// (`/` for the whole file system) and where.
    private typealias Mount = (device: Substring, root: String, point: String)

    /// The list's mounts in its order (a mount listed after another at the same point is on top
    /// of it); empty when the list cannot be read.
    private static func mounts() -> [Mount] {
        guard let text = try? String(contentsOfFile: "/proc/self/mountinfo", encoding: .utf8) else { return [] }
        var mounts: [Mount] = []
        for line in text.split(separator: "\n") {
            // mount ID, parent ID, major:minor, root, mount point, …
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: false)
            guard fields.count > 4 else { continue }
            mounts.append((device: fields[2], root: unescaped(fields[3]), point: unescaped(fields[4])))
        }
        return mounts
    }

    /// Whether the absolute path `path` is `folder` or below it, compared byte for byte.
    private static func isSameOrBelow(_ path: String, _ folder: String) -> Bool {
        guard path.utf8.starts(with: folder.utf8) else { return false }
        let rest = path.utf8.dropFirst(folder.utf8.count)
        return rest.isEmpty || folder == "/" || rest.first == UInt8(ascii: "/")
    }

    /// The part of `path` below `folder` (`isSameOrBelow`), with its leading slash; empty for
    /// `folder` itself.
    private static func relative(_ path: String, to folder: String) -> String {
        folder == "/"
            ? (path == "/" ? "" : path) : String(decoding: path.utf8.dropFirst(folder.utf8.count), as: UTF8.self)
    }

    /// `folder` and a part below it (`relative(_:to:)`) as one path.
    private static func joined(_ folder: String, _ relative: String) -> String {
        relative.isEmpty ? folder : (folder == "/" ? relative : folder + relative)
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

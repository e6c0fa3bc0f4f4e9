import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// Mounts for fault tests (they run as root, as CI does): a small tmpfs to fill, a second path
/// to a directory and a read-only view of one. Each is unmounted by `unmount`; a test without
/// the privilege skips.
enum Mounts {
    /// Runs a command, returning its exit status.
    @discardableResult
    static func run(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// A new tmpfs of `size` bytes (and at most `inodes` files and folders) at a new directory,
    /// or a skip.
    static func tmpfs(size: Int, inodes: Int? = nil) throws -> String {
        let point = NSTemporaryDirectory() + "cipherdex-tmpfs-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
        let options = "size=\(size),mode=0700" + (inodes.map { ",nr_inodes=\($0)" } ?? "")
        guard run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", point]) == 0 else {
            throw XCTSkip("cannot mount a tmpfs here (fault tests need root)")
        }
        return point
    }

    /// A bind mount of `directory` at a new path (a second path to the very same folder, as
    /// containers and shared setups have), or a skip.
    static func bind(_ directory: String) throws -> String {
        let point = NSTemporaryDirectory() + "cipherdex-bind-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
        guard run(["mount", "--bind", directory, point]) == 0 else {
            try? FileManager.default.removeItem(atPath: point)
            throw XCTSkip("cannot bind-mount here (fault tests need root)")
        }
        return point
    }

    /// A read-only bind mount of `directory` at a new path, or a skip.
    static func readOnlyView(of directory: String) throws -> String {
        let point = NSTemporaryDirectory() + "cipherdex-ro-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: point, withIntermediateDirectories: true)
        guard run(["mount", "--bind", directory, point]) == 0 else {
            throw XCTSkip("cannot bind-mount here (fault tests need root)")
        }
        guard run(["mount", "-o", "remount,ro,bind", point]) == 0 else {
            unmount(point)
            throw XCTSkip("cannot remount read-only here")
        }
        return point
    }

    /// Unmounts `point` and removes the directory, only when empty: a mount still busy (a store
    /// open through it) is left mounted, and what it shows is never removed through it.
    static func unmount(_ point: String) {
        run(["umount", point])
        rmdir(point)
    }

    /// Fills the file system holding `directory` until about `leave` bytes are free, with one
    /// `posix_fallocate`d filler file (exact and instant); returns its path (remove it to free
    /// the space), or skips when the file system cannot allocate.
    static func fill(_ directory: String, leaving leave: Int) throws -> String {
        let filler = directory + "/filler-" + UUID().uuidString
        var info = statvfs()
        guard statvfs(directory, &info) == 0 else { throw XCTSkip("statvfs failed for \(directory)") }
        let size = Int(info.f_bavail) * Int(info.f_frsize) - leave
        let fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw XCTSkip("cannot create the filler file") }
        defer { close(fd) }
        guard size > 0 else { return filler }
        let result = posix_fallocate(fd, 0, off_t(size))
        guard result == 0 else { throw XCTSkip("posix_fallocate failed (\(result))") }
        return filler
    }
}

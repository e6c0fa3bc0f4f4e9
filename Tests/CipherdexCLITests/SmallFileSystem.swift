import Foundation
import XCTest

#if canImport(Glibc)
    import Glibc
#endif

/// A small tmpfs mounted for one test (a copy of the library tests' helper) (tests run as root), to make a disk fill up for real.
final class SmallFileSystem {
    /// Where it is mounted.
    let path: String
    /// The file that takes the free space, while it exists.
    var fillerPath: String { path + "/filler" }

    /// Mounts a tmpfs of `bytes` at a fresh directory; skips the test when mounting is not
    /// allowed (not root, or in a container without CAP_SYS_ADMIN).
    init(bytes: Int) throws {
        path = NSTemporaryDirectory() + "cipherdex-tmpfs-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let status = Self.run("/bin/mount", ["-t", "tmpfs", "-o", "size=\(bytes)", "tmpfs", path])
        guard status == 0 else {
            try? FileManager.default.removeItem(atPath: path)
            throw XCTSkip("cannot mount a tmpfs (mount exited \(status))")
        }
    }

    /// Free bytes now.
    var freeBytes: Int {
        var info = statvfs()
        guard statvfs(path, &info) == 0 else { return 0 }
        return Int(info.f_bavail) * Int(info.f_frsize)
    }

    /// Takes all the free space but `leaving` bytes, with a filler file.
    func fill(leaving: Int) throws {
        let size = freeBytes - leaving
        guard size > 0 else { return }
        let fd = open(fillerPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard fd >= 0 else { throw XCTSkip("cannot create the filler file") }
        defer { close(fd) }
        let result = posix_fallocate(fd, 0, off_t(size))
        guard result == 0 else { throw XCTSkip("posix_fallocate failed (\(result))") }
    }

    /// Frees the space the filler took.
    func free() {
        unlink(fillerPath)
    }

    /// Makes the file system read-only (a write-protected disk); skips when it cannot.
    func remountReadOnly() throws {
        let status = Self.run("/bin/mount", ["-o", "remount,ro", path])
        guard status == 0 else { throw XCTSkip("cannot remount read-only (mount exited \(status))") }
    }

    /// Unmounts and removes the directory.
    func unmount() {
        _ = Self.run("/bin/umount", ["-l", path])
        try? FileManager.default.removeItem(atPath: path)
    }

    /// Runs a command (`mount`, `umount`), its output discarded: its exit status, -1 when it
    /// could not start.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

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

    /// The ext4 image behind the mount, when it is one.
    private var imagePath: String?

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

    /// Mounts an ext4 file system of `bytes` with blocks of `blockSize` bytes (no reserved
    /// blocks), from an image file through a loop device; skips the test when `mkfs.ext4` or a
    /// loop mount is not available.
    init(ext4Bytes bytes: Int, blockSize: Int) throws {
        path = NSTemporaryDirectory() + "cipherdex-ext4-" + UUID().uuidString
        let image = path + ".img"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: image, contents: nil)
        guard truncate(image, off_t(bytes)) == 0,
            Self.run("/sbin/mkfs.ext4", ["-q", "-F", "-m", "0", "-b", "\(blockSize)", image]) == 0
        else {
            try? FileManager.default.removeItem(atPath: image)
            try? FileManager.default.removeItem(atPath: path)
            throw XCTSkip("cannot make an ext4 image (mkfs.ext4)")
        }
        let status = Self.run("/bin/mount", ["-o", "loop", image, path])
        guard status == 0 else {
            try? FileManager.default.removeItem(atPath: image)
            try? FileManager.default.removeItem(atPath: path)
            throw XCTSkip("cannot mount an ext4 image (mount exited \(status))")
        }
        imagePath = image
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
        if let imagePath { try? FileManager.default.removeItem(atPath: imagePath) }
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

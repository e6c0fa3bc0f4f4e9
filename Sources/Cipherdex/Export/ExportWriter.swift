import Foundation

/// Creates the files and folders of an export, owner-only (0600 files, 0700 folders), each
/// written through a buffer and fsynced when closed.
struct ExportWriter {
    /// The export's directory.
    let root: String

    /// Creates `root/relative`.
    func makeDirectory(_ relative: String) throws {
        let path = root + "/" + relative
        do {
            try FileManager.default.createDirectory(
                atPath: path, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        } catch {
            throw ExportError.cannotWrite(path: path, reason: error.localizedDescription)
        }
    }

    /// Writes the whole file `root/relative`.
    func write(_ relative: String, _ bytes: [UInt8]) throws {
        let file = try open(relative)
        try file.write(bytes)
        try file.close()
    }

    /// Creates `root/relative` (it must not exist) for writing.
    func open(_ relative: String) throws -> ExportFile {
        let path = root + "/" + relative
        guard FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]),
            let handle = FileHandle(forWritingAtPath: path)
        else {
            throw ExportError.cannotWrite(path: path, reason: "the file could not be created")
        }
        return ExportFile(path: path, handle: handle)
    }
}

/// One file being written by an export.
final class ExportFile {
    private let path: String
    private let handle: FileHandle
    private var buffer: [UInt8] = []

    init(path: String, handle: FileHandle) {
        self.path = path
        self.handle = handle
    }

    /// Appends bytes (flushed in 1 MiB pieces).
    func write(_ bytes: [UInt8]) throws {
        buffer += bytes
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Writes what is buffered, fsyncs and closes the file.
    func close() throws {
        try flush()
        do {
            try handle.synchronize()
            try handle.close()
        } catch {
            throw ExportError.cannotWrite(path: path, reason: error.localizedDescription)
        }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        do {
            try handle.write(contentsOf: buffer)
        } catch {
            throw ExportError.cannotWrite(path: path, reason: error.localizedDescription)
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

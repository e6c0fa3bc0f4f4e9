import CipherdexStore
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Creates the files and folders of an export, owner-only (0600 files, 0700 folders), each
/// written through a buffer and fsynced when closed, through the store's `FileDescriptor`
/// layer: a full disk, missing permissions or a failing device are `StoreError`'s typed cases,
/// as for every other write; anything else is `ExportError.cannotWrite`.
final class ExportWriter {
    /// The export's directory.
    let root: String
    /// The names at the top of `root` this writer created: all a failed export may remove
    /// (another export into the same folder at the same time made the others).
    private(set) var createdTopLevelNames: [String] = []

    init(root: String) {
        self.root = root
    }

    /// Creates `root/relative`.
    func makeDirectory(_ relative: String) throws {
        try Self.creatingDirectory(root + "/" + relative)
        recordCreated(relative)
    }

    private func recordCreated(_ relative: String) {
        if !relative.contains("/") { createdTopLevelNames.append(relative) }
    }

    /// Creates the directory `path` (0700; it must not exist).
    static func creatingDirectory(_ path: String) throws {
        guard mkdir(path, 0o700) == 0 else {
            throw failure(SystemError(operation: "mkdir", path: path, errno: errno))
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
        do {
            let file = try FileDescriptor(path: path, flags: O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode: 0o600)
            recordCreated(relative)
            return ExportFile(file: file)
        } catch let error as SystemError {
            throw Self.failure(error)
        }
    }

    /// The typed error for a failed system call of the export.
    static func failure(_ error: SystemError) -> Error {
        switch StoreError.classifying(error) {
        case .system: return ExportError.cannotWrite(path: error.path, reason: error.localizedDescription)
        case let typed: return typed
        }
    }
}

/// One file being written by an export.
final class ExportFile {
    private let file: FileDescriptor
    private var buffer: [UInt8] = []

    init(file: FileDescriptor) {
        self.file = file
    }

    /// Appends bytes (flushed in 1 MiB pieces).
    func write(_ bytes: [UInt8]) throws {
        buffer += bytes
        if buffer.count >= 1 << 20 { try flush() }
    }

    /// Writes what is buffered and fsyncs the file (closed when released).
    func close() throws {
        try flush()
        do {
            try file.sync()
        } catch let error as SystemError {
            throw ExportWriter.failure(error)
        }
    }

    private func flush() throws {
        guard !buffer.isEmpty else { return }
        do {
            try file.writeAll(buffer)
        } catch let error as SystemError {
            throw ExportWriter.failure(error)
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

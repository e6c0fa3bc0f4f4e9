import Foundation
import Synchronization

/// Reads one stored attachment: whole, chunk by chunk, or a byte range, decrypting only what is
/// asked for. In an encrypted store every byte handed out has been authenticated; damage is an
/// `AttachmentError`. In an unencrypted store the file is the plaintext itself, with no tag:
/// whole reads (`forEachChunk`, `readAll`, `write(toFileDescriptor:)`, `chunks()` from the
/// start) check the recorded content hash and throw `contentHashMismatch` before the last piece
/// is handed over, but a byte range (`read(range:)`) cannot be checked without reading
/// everything, and is not.
///
/// One reader may be shared by threads and tasks (it is `Sendable`): `id` and `length` are
/// immutable, and the one piece of mutable state — the open file and cipher state in `source` —
/// lives in a `Mutex` (`read(range:)` and `forEachChunk(_:)` hold it for their whole run).
public final class AttachmentReader: Sendable {
    /// The attachment's identifier.
    public let id: String
    /// Content length in bytes.
    public let length: UInt64
    private let source: Mutex<Source>
    /// Whether the store it came from is still open (a reader the store made for itself: always).
    private let storeIsOpen: @Sendable () -> Bool

    /// Unchecked: the cipher reader and the file descriptor are mutable and not thread-safe,
    /// but a `Source` exists only inside `source`'s `Mutex`, and is used only while it is held.
    private enum Source: @unchecked Sendable {
        case encrypted(AttachmentCipherReader)
        /// The file, and the content hash its row records (nil: not checked).
        case plain(FileDescriptor, recordedHash: [UInt8]?)
    }

    /// Opens attachment `id`'s file at `path`. In an unencrypted store (no `masterKey`) the file
    /// holds the content itself, so its size must be `recordedLength` (when given): a file of
    /// another size is `truncated` or `trailingData` at once, never streamed to its end; whole
    /// reads are checked against `recordedContentHash` when given (`PlainContentCheck`).
    ///
    /// A file this process may not open (`EACCES`, `EPERM`) is `StoreError.permissionDenied`
    /// naming its path, and a failing device (`EIO`) `StoreError.ioError`: the environment's
    /// errors, not damage.
    init(
        id: String, path: String, masterKey: SecureBytes?, recordedLength: UInt64? = nil,
        recordedContentHash: [UInt8]? = nil, storeIsOpen: @escaping @Sendable () -> Bool = { true }
    ) throws {
        self.id = id
        self.storeIsOpen = storeIsOpen
        do {
            if let masterKey {
                let reader = try AttachmentCipherReader(path: path, attachmentID: id, masterKey: masterKey)
                length = reader.length
                source = Mutex(.encrypted(reader))
            } else {
                let fd = try AttachmentFileIO.openForReading(path: path, id: id)
                let file = FileDescriptor(adopting: fd, path: path)
                let size = try AttachmentFileIO.size(fd, id: id)
                if let recordedLength, size < recordedLength {
                    throw AttachmentError.truncated(id: id, expectedBytes: recordedLength, actualBytes: size)
                }
                if let recordedLength, size > recordedLength {
                    throw AttachmentError.trailingData(id: id, expectedBytes: recordedLength, actualBytes: size)
                }
                length = size
                source = Mutex(.plain(file, recordedHash: recordedContentHash))
            }
        } catch AttachmentError.io(_, let operation, let code) where operation == "open" {
            let typed = StoreError.classifying(SystemError(operation: operation, path: path, errno: code))
            if case .system = typed { throw AttachmentError.io(id: id, operation: operation, errno: code) }
            throw typed
        }
    }

    /// The bytes an HTTP-style request selects: `start` through `end` inclusive, counted from 0,
    /// `end` nil meaning to the end of the content.
    ///
    /// As in HTTP (RFC 9110, 14.1.2) an `end` at or past the last byte is clamped to the last
    /// byte, so any `end` up to `UInt64.max` works; a `start` at or past the length throws
    /// `AttachmentError.rangeOutOfBounds` (except `0` on empty content, which selects nothing),
    /// and so does an `end` before `start`. Nothing overflows whatever the bounds.
    public func byteRange(from start: UInt64, through end: UInt64?) throws -> Range<UInt64> {
        let outOfBounds = AttachmentError.rangeOutOfBounds(id: id, range: start..<start, length: length)
        if let end, end < start { throw outOfBounds }
        if start == 0 && length == 0 { return 0..<0 }
        guard start < length else { throw outOfBounds }
        // `end < length` makes `end + 1` at most `length`: no overflow.
        guard let end, end < length else { return start..<length }
        return start..<(end + 1)
    }

    /// Throws `StoreError.closed` once the store this reader came from is closed: its content is
    /// the store's, and no handle of a closed store reads it.
    private func checkStoreOpen() throws {
        guard storeIsOpen() else { throw StoreError.closed }
    }

    /// Bytes `range` of the content (only the chunks that overlap it are decrypted). A range
    /// reaching past the length throws `AttachmentError.rangeOutOfBounds`, whatever its bounds
    /// (up to `UInt64.max`); `byteRange(from:through:)` turns HTTP-style bounds into a range.
    public func read(range: Range<UInt64>) throws -> Data {
        try checkStoreOpen()
        return try source.withLock { source in try Self.read(range: range, from: source, id: id, length: length) }
    }

    private static func read(range: Range<UInt64>, from source: Source, id: String, length: UInt64) throws -> Data {
        switch source {
        case .encrypted(let reader):
            return Data(try reader.read(range: range))
        case .plain(let file, _):
            guard range.upperBound <= length else {
                throw AttachmentError.rangeOutOfBounds(id: id, range: range, length: length)
            }
            var data = Data(count: range.count)
            let count = try data.withUnsafeMutableBytes { buffer in
                try AttachmentFileIO.read(file.rawValue, into: buffer, at: range.lowerBound, id: id)
            }
            guard count == range.count else {
                throw AttachmentError.truncated(
                    id: id, expectedBytes: range.upperBound, actualBytes: range.lowerBound + UInt64(count))
            }
            return data
        }
    }

    /// Hands the content to `body` piece by piece, in order: up to 1 MiB at a time, each piece
    /// authenticated before `body` sees it (memory stays flat whatever the size). If a later
    /// piece fails authentication the call throws: discard what `body` received. In an
    /// unencrypted store the content hash is computed on the way and checked before the last
    /// piece is handed over (`contentHashMismatch`).
    public func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try checkStoreOpen()
        // Asked again before each piece: a long read ends once the store is closed.
        try source.withLock { source in
            try Self.forEachChunk(of: source, id: id, length: length) { piece in
                try checkStoreOpen()
                try body(piece)
            }
        }
    }

    private static func forEachChunk(
        of source: Source, id: String, length: UInt64, _ body: (UnsafeRawBufferPointer) throws -> Void
    ) throws {
        switch source {
        case .encrypted(let reader):
            try reader.readAll(into: body)
        case .plain(let file, let recordedHash):
            let check = recordedHash.map { PlainContentCheck(id: id, recordedHash: $0) }
            let wholeContentHash = { try Self.wholeContentHash(of: file, id: id, length: length) }
            try Self.forEachPiece(of: file, id: id, length: length) { piece, isLast in
                guard let check else { return try body(piece) }
                if !isLast {
                    // Hashed on the other core while `body` takes the piece.
                    try check.update(piece) { try body(piece) }
                } else {
                    // The last piece only once the whole content matches its recorded hash.
                    check.update(piece) {}
                    try check.finish(wholeContentHash: wholeContentHash)
                    try body(piece)
                }
            }
            if length == 0, let check { try check.finish(wholeContentHash: wholeContentHash) }
        }
    }

    /// A check of a whole read made piece by piece outside `forEachChunk` (`chunks()`): nil in an
    /// encrypted store (its pieces are authenticated) or without a recorded hash.
    func wholeReadCheck() -> PlainContentCheck? {
        source.withLock { source in
            guard case .plain(_, let recordedHash?) = source else { return nil }
            return PlainContentCheck(id: id, recordedHash: recordedHash)
        }
    }

    /// What `PlainContentCheck.finish` needs from the file of an unencrypted store's attachment.
    func wholeContentHash() throws -> [UInt8] {
        try source.withLock { source in
            guard case .plain(let file, _) = source else { return [] }
            return try Self.wholeContentHash(of: file, id: id, length: length)
        }
    }

    /// Reads the first `length` bytes of a plain file in 1 MiB pieces, in order, handing each to
    /// `body` with whether it is the last; a file shorter than that is `truncated`.
    private static func forEachPiece(
        of file: FileDescriptor, id: String, length: UInt64,
        _ body: (_ piece: UnsafeRawBufferPointer, _ isLast: Bool) throws -> Void
    ) throws {
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: UInt64 = 0
        while offset < length {
            let count = Int(min(UInt64(buffer.count), length - offset))
            try buffer.withUnsafeMutableBytes { raw in
                let slice = UnsafeMutableRawBufferPointer(rebasing: raw[0..<count])
                let read = try AttachmentFileIO.read(file.rawValue, into: slice, at: offset, id: id)
                guard read == count else {
                    throw AttachmentError.truncated(id: id, expectedBytes: length, actualBytes: offset + UInt64(read))
                }
                try body(UnsafeRawBufferPointer(slice), offset + UInt64(count) >= length)
            }
            offset += UInt64(count)
        }
    }

    /// Unkeyed BLAKE2b-256 of a plain file's whole content, read again: the content hash of an
    /// attachment added before the tree (`PlainContentCheck`).
    private static func wholeContentHash(of file: FileDescriptor, id: String, length: UInt64) throws -> [UInt8] {
        let hash = Sodium.StreamingHash(key: nil)
        try forEachPiece(of: file, id: id, length: length) { piece, _ in hash.update(piece) }
        return hash.finish()
    }

    /// Writes the whole content, in order, to `fileDescriptor` at its current offset (the
    /// descriptor stays open; `cipherdex cat` passes standard output). Like `forEachChunk`, each
    /// piece is authenticated before it is written, and a throw means the output is incomplete.
    /// When the descriptor is a regular file, what is safely written is dropped from the page
    /// cache as the write goes on, so a large attachment does not fill memory with its copy
    /// (see `OutputWriteBehind`); the caller still syncs the file if it needs durability.
    ///
    /// - Throws: what `forEachChunk` throws, or `AttachmentError.io` for a failed write.
    public func write(toFileDescriptor fileDescriptor: Int32) throws {
        var output = OutputWriteBehind(fileDescriptor: fileDescriptor, id: id)
        try forEachChunk { piece in try output.write(piece) }
    }

    /// The whole content.
    public func readAll() throws -> Data {
        try readAll(cancellation: nil)
    }

    /// `readAll()`, stopping between chunks once `cancellation` is set.
    func readAll(cancellation: WorkCancellation?) throws -> Data {
        var data = Data()
        data.reserveCapacity(Int(length))
        try forEachChunk { bytes in
            try cancellation?.check()
            data.append(contentsOf: bytes)
        }
        return data
    }

    /// The content as an asynchronous sequence of chunks of `chunkSize` bytes, each read and
    /// decrypted only when the consumer asks for it, on Cipherdex's reader queue (never on a
    /// thread of Swift's cooperative pool). Cancelling the consuming task makes its next step
    /// throw `CancellationError`: a loop that ends without an error read everything.
    public func chunks(chunkSize: Int = 64 * 1024) -> AttachmentChunks {
        AttachmentChunks(reader: self, chunkSize: chunkSize)
    }
}

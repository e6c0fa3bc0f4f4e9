import Foundation

/// Reads one stored attachment: whole, chunk by chunk, or a byte range, decrypting only what is
/// asked for. Every byte handed out has been authenticated; damage is an `AttachmentError`.
///
/// One reader may be shared by threads and tasks: `id` and `length` are immutable, and the one
/// piece of mutable state — the open file and cipher state in `source` — is only touched inside
/// `lock` (`read(range:)` and `forEachChunk(_:)` take it for their whole run), which is why the
/// `Sendable` conformance is unchecked.
public final class AttachmentReader: @unchecked Sendable {
    /// The attachment's identifier.
    public let id: String
    /// Content length in bytes.
    public let length: UInt64
    private let source: Source
    private let lock = NSLock()

    private enum Source {
        case encrypted(AttachmentCipherReader)
        case plain(FileDescriptor)
    }

    /// Opens attachment `id`'s file at `path`. In an unencrypted store (no `masterKey`) the file
    /// holds the content itself, so its size must be `recordedLength` (when given): a file of
    /// another size is `truncated` or `trailingData` at once, never streamed to its end.
    init(id: String, path: String, masterKey: SecureBytes?, recordedLength: UInt64? = nil) throws {
        self.id = id
        if let masterKey {
            let reader = try AttachmentCipherReader(path: path, attachmentID: id, masterKey: masterKey)
            source = .encrypted(reader)
            length = reader.length
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
            source = .plain(file)
            length = size
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

    /// Bytes `range` of the content (only the chunks that overlap it are decrypted). A range
    /// reaching past the length throws `AttachmentError.rangeOutOfBounds`, whatever its bounds
    /// (up to `UInt64.max`); `byteRange(from:through:)` turns HTTP-style bounds into a range.
    public func read(range: Range<UInt64>) throws -> Data {
        lock.lock()
        defer { lock.unlock() }
        switch source {
        case .encrypted(let reader):
            return Data(try reader.read(range: range))
        case .plain(let file):
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
    /// piece fails authentication the call throws: discard what `body` received.
    public func forEachChunk(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        lock.lock()
        defer { lock.unlock() }
        switch source {
        case .encrypted(let reader):
            try reader.readAll(into: body)
        case .plain(let file):
            var offset: UInt64 = 0
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            while offset < length {
                let count = Int(min(UInt64(buffer.count), length - offset))
                try buffer.withUnsafeMutableBytes { raw in
                    let slice = UnsafeMutableRawBufferPointer(rebasing: raw[0..<count])
                    let read = try AttachmentFileIO.read(file.rawValue, into: slice, at: offset, id: id)
                    guard read == count else {
                        throw AttachmentError.truncated(
                            id: id, expectedBytes: length, actualBytes: offset + UInt64(read))
                    }
                    try body(UnsafeRawBufferPointer(slice))
                }
                offset += UInt64(count)
            }
        }
    }

    /// The whole content.
    public func readAll() throws -> Data {
        var data = Data()
        data.reserveCapacity(Int(length))
        try forEachChunk { data.append(contentsOf: $0) }
        return data
    }

    /// The content as an asynchronous stream of chunks of `chunkSize` bytes, each read and
    /// decrypted only when the consumer asks for it.
    public func chunks(chunkSize: Int = 64 * 1024) -> AsyncThrowingStream<Data, Error> {
        let step = UInt64(max(1, chunkSize))
        let position = Position()
        return AsyncThrowingStream {
            let start = position.advance(by: step, limit: self.length)
            guard let start else { return nil }
            return try self.read(range: start..<min(start + step, self.length))
        }
    }

    /// The next offset of a `chunks()` stream.
    private final class Position: @unchecked Sendable {
        private let lock = NSLock()
        private var offset: UInt64 = 0

        /// Returns the current offset and moves on, or nil at the end.
        func advance(by step: UInt64, limit: UInt64) -> UInt64? {
            lock.withLock {
                guard offset < limit else { return nil }
                defer { offset += step }
                return offset
            }
        }
    }
}

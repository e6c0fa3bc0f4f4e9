import Foundation

extension AttachmentReader {
    /// Bytes `range` of the content, for `Int` offsets (`reader.read(range: 0..<1024)`): the same
    /// as `read(range:)` with `UInt64` bounds. A range starting below 0 throws
    /// `AttachmentError.rangeOutOfBounds` (reported with its bounds clamped at 0).
    public func read(range: Range<Int>) throws -> Data {
        guard range.lowerBound >= 0 else {
            throw AttachmentError.rangeOutOfBounds(
                id: id, range: 0..<UInt64(max(0, range.upperBound)), length: length)
        }
        return try read(range: UInt64(range.lowerBound)..<UInt64(range.upperBound))
    }

    /// The async form of `read(range:)`: decrypts on Cipherdex's reader queue, never blocking a
    /// thread of Swift's cooperative pool.
    public func readAsync(range: Range<UInt64>) async throws -> Data {
        try await BlockingWork.run { _ in try self.read(range: range) }
    }

    /// The async form of `read(range:)` for `Int` offsets.
    public func readAsync(range: Range<Int>) async throws -> Data {
        try await BlockingWork.run { _ in try self.read(range: range) }
    }

    /// The async form of `readAll()`; cancelling the task stops it between chunks.
    public func readAllAsync() async throws -> Data {
        try await BlockingWork.run { cancellation in try self.readAll(cancellation: cancellation) }
    }
}

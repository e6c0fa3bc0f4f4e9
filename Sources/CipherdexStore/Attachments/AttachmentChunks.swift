import Foundation

/// An attachment's content as an asynchronous sequence of chunks (`AttachmentReader.chunks()`):
/// each chunk is read and decrypted only when the consumer asks for it, on Cipherdex's reader
/// queue (never on a thread of Swift's cooperative pool). In an unencrypted store the content
/// hash is computed on the way and the last chunk throws `AttachmentError.contentHashMismatch`
/// when it does not match (see `AttachmentReader`).
///
/// A consuming task that is cancelled gets `CancellationError` from its next step, so a loop
/// that ends without an error has read the whole content (a stream that merely ended on
/// cancellation could not be told from a complete read).
public struct AttachmentChunks: AsyncSequence, Sendable {
    /// A chunk of content.
    public typealias Element = Data

    private let reader: AttachmentReader
    private let step: UInt64

    init(reader: AttachmentReader, chunkSize: Int) {
        self.reader = reader
        step = UInt64(Swift.max(1, chunkSize))
    }

    /// An iterator from the first byte.
    public func makeAsyncIterator() -> Iterator {
        Iterator(reader: reader, step: step)
    }

    /// Steps through the content, one chunk at a time.
    public struct Iterator: AsyncIteratorProtocol {
        private let reader: AttachmentReader
        private let step: UInt64
        private var offset: UInt64 = 0
        /// In an unencrypted store, the content hash computed on the way (`PlainContentCheck`).
        private let check: PlainContentCheck?

        init(reader: AttachmentReader, step: UInt64) {
            self.reader = reader
            self.step = step
            check = reader.wholeReadCheck()
        }

        /// The next chunk, nil after the last; `CancellationError` once the task is cancelled.
        public mutating func next() async throws -> Data? {
            guard offset < reader.length else { return nil }
            try Task.checkCancellation()
            let start = offset
            let range = start..<(reader.length - start < step ? reader.length : start + step)
            let reader = self.reader
            let check = self.check
            let chunk = try await BlockingWork.run { _ in
                let chunk = try reader.read(range: range)
                // The last chunk only once the whole content matches its recorded hash.
                chunk.withUnsafeBytes { check?.update($0) {} }
                if range.upperBound == reader.length {
                    try check?.finish(wholeContentHash: { try reader.wholeContentHash() })
                }
                return chunk
            }
            offset = range.upperBound
            return chunk
        }
    }
}

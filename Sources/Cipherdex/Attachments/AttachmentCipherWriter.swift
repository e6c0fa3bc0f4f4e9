/// Streams plaintext into an encrypted attachment file (format: `AttachmentCipherFormat`).
///
/// Memory is flat: one chunk of plaintext buffer and a batch of 16 sealed chunks, whatever the
/// attachment size. A full buffered chunk is sealed only once more input arrives, because until
/// then it might be the final chunk (whose nonce carries the last flag).
///
/// **The header is written last.** `init` writes 54 zero bytes where the header goes; chunks
/// follow at their fixed offsets; `finish()` writes the real header (with the final plaintext
/// length and its tag) at offset 0, sets the exact file size and, by default, `fsync`s. A file
/// whose writer never finished (crash, error, abandoned writer) therefore has an all-zero
/// header and is rejected by readers as `badHeader`, never mistaken for a shorter attachment.
/// Writing the header last means the chunks' associated data cannot include the length; the
/// header tag authenticates it instead (see `AttachmentCipherFormat`).
///
/// The plaintext buffer is reused for every chunk and wiped with `sodium_memzero` when the
/// writer finishes, fails or is deinitialised. Not thread-safe.
final class AttachmentCipherWriter {
    /// Where the writer is in its life.
    private enum State {
        /// Accepting `write` calls.
        case open
        /// `finish()` succeeded; the file is complete.
        case finished
        /// A write failed; the file is incomplete and every later call rethrows this error.
        case failed(AttachmentError)
    }

    /// The attachment id bound into the keys, associated data and header tag.
    let attachmentID: String
    /// Plaintext bytes per chunk.
    let chunkSize: Int
    /// The AEAD algorithm recorded in the header.
    let algorithm: Sodium.ChunkAEAD.Algorithm
    /// Plaintext bytes accepted so far.
    private(set) var length: UInt64 = 0

    /// The file being written.
    private let fd: Int32
    /// Whether the writer opened `fd` and so must close it.
    private let ownsFileDescriptor: Bool
    /// The header fields; length and tag are filled in by `finish()`.
    private var header: AttachmentCipherFormat.Header
    /// The per-file header MAC key.
    private let headerKey: SecureBytes
    /// The per-file chunk AEAD context.
    private let aead: Sodium.ChunkAEAD
    /// The associated data of every chunk (`header[0..<30] || id`).
    private let associatedData: [UInt8]
    /// Reused chunk buffers (plaintext wiped when freed).
    private let buffers: AttachmentChunkBuffers
    private var plaintext: UnsafeMutableRawBufferPointer { buffers.plaintext }
    /// How many bytes of `plaintext` are filled.
    private var buffered = 0
    /// Sealed chunks waiting to be written with one `pwrite` (up to `batchChunks` of them):
    /// ciphertext only, so it needs no wiping.
    private let batch: UnsafeMutableRawBufferPointer
    /// Bytes of `batch` in use.
    private var batchCount = 0
    /// File offset of `batch[0]`.
    private var batchOffset = UInt64(AttachmentCipherFormat.headerBytes)
    /// Chunks written per system call.
    static let batchChunks = 16
    private var nonce: UnsafeMutableRawBufferPointer { buffers.nonce }
    /// Index of the next chunk to seal.
    private var chunkIndex: UInt64 = 0
    /// File offset just past the last chunk written.
    private var endOffset = UInt64(AttachmentCipherFormat.headerBytes)
    /// Open, finished or failed.
    private var state = State.open

    /// Creates (or truncates) the file at `path`, mode 0600, and prepares to write into it.
    ///
    /// - Parameters:
    ///   - path: the attachment file; closed by `finish()` or when the writer goes away.
    ///   - attachmentID: the id the file is bound to; a reader must present the same id.
    ///   - masterKey: the 32-byte attachments master key.
    ///   - chunkSize: plaintext bytes per chunk, within `AttachmentCipherFormat.chunkSizeRange`.
    /// - Throws: `AttachmentError.io` when the file cannot be created or written.
    convenience init(
        path: String, attachmentID: String, masterKey: SecureBytes,
        chunkSize: Int = AttachmentCipherFormat.defaultChunkSize
    ) throws(AttachmentError) {
        let fd = try AttachmentFileIO.openForWriting(path: path, id: attachmentID)
        try self.init(
            fileDescriptor: fd, ownsFileDescriptor: true, attachmentID: attachmentID, masterKey: masterKey,
            chunkSize: chunkSize, algorithm: .preferred)
    }

    /// Writes into an already open, writable file descriptor, starting at offset 0.
    ///
    /// The caller keeps ownership of `fileDescriptor` (it is not closed). Any previous content
    /// is overwritten and the file is cut to the exact attachment size by `finish()`.
    convenience init(
        fileDescriptor: Int32, attachmentID: String, masterKey: SecureBytes,
        chunkSize: Int = AttachmentCipherFormat.defaultChunkSize
    ) throws(AttachmentError) {
        try self.init(
            fileDescriptor: fileDescriptor, ownsFileDescriptor: false, attachmentID: attachmentID,
            masterKey: masterKey, chunkSize: chunkSize, algorithm: .preferred)
    }

    /// The designated initialiser; `algorithm` can be forced (tests use XChaCha on AES-NI hosts).
    init(
        fileDescriptor: Int32, ownsFileDescriptor: Bool, attachmentID: String, masterKey: SecureBytes,
        chunkSize: Int, algorithm: Sodium.ChunkAEAD.Algorithm
    ) throws(AttachmentError) {
        precondition(AttachmentCipherFormat.chunkSizeRange.contains(chunkSize), "chunk size out of range")
        // Reserve the header with zeros: until finish() the file reads as unfinished.
        let zeros = [UInt8](repeating: 0, count: AttachmentCipherFormat.headerBytes)
        do {
            try AttachmentFileIO.write(fileDescriptor, zeros, at: 0, id: attachmentID)
        } catch {
            if ownsFileDescriptor { AttachmentFileIO.close(fileDescriptor) }
            throw error
        }
        let salt = Sodium.randomBytes(AttachmentCipherFormat.saltBytes)
        let keys = AttachmentCipherFormat.deriveKeys(masterKey: masterKey, attachmentID: attachmentID, salt: salt)
        guard let aead = Sodium.ChunkAEAD(algorithm: algorithm, key: keys.chunkKey) else {
            if ownsFileDescriptor { AttachmentFileIO.close(fileDescriptor) }
            throw .unsupportedAlgorithm(id: attachmentID, algorithm: Int(algorithm.rawValue))
        }
        self.attachmentID = attachmentID
        self.chunkSize = chunkSize
        self.algorithm = algorithm
        self.fd = fileDescriptor
        self.ownsFileDescriptor = ownsFileDescriptor
        self.header = AttachmentCipherFormat.Header(
            algorithmID: algorithm.rawValue, chunkSize: UInt32(chunkSize), salt: salt, plaintextLength: 0)
        self.headerKey = keys.headerKey
        self.aead = aead
        self.associatedData = AttachmentCipherFormat.associatedData(for: self.header, attachmentID: attachmentID)
        self.buffers = AttachmentChunkBuffers(chunkSize: chunkSize, nonceBytes: algorithm.nonceBytes)
        self.batch = .allocate(
            byteCount: Self.batchChunks * (chunkSize + AttachmentCipherFormat.chunkTagBytes), alignment: 64)
    }

    deinit {
        batch.deallocate()
        // finish() already closed an owned descriptor; otherwise the file stays unfinished.
        if ownsFileDescriptor && !isFinished {
            AttachmentFileIO.close(fd)
        }
    }

    /// Appends plaintext. Full chunks are sealed and written as soon as they are known not to be
    /// the last one; whole chunks are sealed straight from `bytes` without copying.
    ///
    /// - Throws: `AttachmentError.io` on a failed write; the writer is then unusable.
    func write(_ bytes: UnsafeRawBufferPointer) throws(AttachmentError) {
        try ensureOpen()
        do {
            var position = 0
            while position < bytes.count {
                if buffered == chunkSize {
                    // More input follows, so the buffered chunk is not the final one.
                    try sealAndWrite(UnsafeRawBufferPointer(plaintext), isFinal: false)
                    buffered = 0
                }
                let remaining = bytes.count - position
                if buffered == 0 && remaining > chunkSize {
                    let chunk = UnsafeRawBufferPointer(rebasing: bytes[position..<(position + chunkSize)])
                    try sealAndWrite(chunk, isFinal: false)
                    position += chunkSize
                    continue
                }
                let count = min(remaining, chunkSize - buffered)
                (plaintext.baseAddress! + buffered).copyMemory(from: bytes.baseAddress! + position, byteCount: count)
                buffered += count
                position += count
            }
            length += UInt64(bytes.count)
        } catch {
            fail(error)
            throw error
        }
    }

    /// Appends the bytes of an array (convenience for small inputs and tests).
    func write(_ bytes: [UInt8]) throws(AttachmentError) {
        let result: Result<Void, AttachmentError> = bytes.withUnsafeBytes { buffer in
            do throws(AttachmentError) { return .success(try write(buffer)) } catch { return .failure(error) }
        }
        try result.get()
    }

    /// Seals the final chunk (possibly empty), writes the header, sets the exact file size and
    /// optionally `fsync`s; closes the file if the writer opened it.
    ///
    /// - Parameter synchronize: whether to `fsync` before returning (default true).
    /// - Returns: the plaintext length of the attachment.
    /// - Throws: `AttachmentError.io`; the file is then incomplete (zero header or short).
    @discardableResult
    func finish(synchronize: Bool = true) throws(AttachmentError) -> UInt64 {
        try ensureOpen()
        do {
            try sealAndWrite(UnsafeRawBufferPointer(rebasing: plaintext[0..<buffered]), isFinal: true)
            try flush()
            buffered = 0
            Sodium.memzero(plaintext)
            header.plaintextLength = length
            header.tag = AttachmentCipherFormat.headerTag(for: header, attachmentID: attachmentID, headerKey: headerKey)
            try AttachmentFileIO.write(fd, header.encoded, at: 0, id: attachmentID)
            try AttachmentFileIO.truncate(fd, to: endOffset, id: attachmentID)
            if synchronize { try AttachmentFileIO.synchronize(fd, id: attachmentID) }
        } catch {
            fail(error)
            throw error
        }
        state = .finished
        if ownsFileDescriptor { AttachmentFileIO.close(fd) }
        return length
    }

    /// Whether `finish()` completed.
    private var isFinished: Bool {
        if case .finished = state { return true }
        return false
    }

    /// Throws the stored failure, or stops on use after `finish()`.
    private func ensureOpen() throws(AttachmentError) {
        switch state {
        case .open: return
        case .finished: preconditionFailure("AttachmentCipherWriter used after finish()")
        case .failed(let error): throw error
        }
    }

    /// Records a failure and wipes the buffered plaintext.
    private func fail(_ error: AttachmentError) {
        state = .failed(error)
        buffered = 0
        Sodium.memzero(plaintext)
    }

    /// Seals `chunk` as chunk `chunkIndex` into the batch, writing the batch out when it is full.
    private func sealAndWrite(_ chunk: UnsafeRawBufferPointer, isFinal: Bool) throws(AttachmentError) {
        let sealedCount = chunk.count + AttachmentCipherFormat.chunkTagBytes
        if batchCount + sealedCount > batch.count { try flush() }
        AttachmentCipherFormat.writeNonce(into: nonce, chunkIndex: chunkIndex, isFinal: isFinal)
        let output = UnsafeMutableRawBufferPointer(rebasing: batch[batchCount..<(batchCount + sealedCount)])
        associatedData.withUnsafeBytes { ad in
            aead.seal(chunk, into: output, nonce: UnsafeRawBufferPointer(nonce), associatedData: ad)
        }
        let offset = AttachmentCipherFormat.chunkOffset(chunkIndex, chunkSize: UInt64(chunkSize))
        precondition(offset == batchOffset + UInt64(batchCount), "chunks are written in order")
        batchCount += sealedCount
        chunkIndex += 1
        endOffset = offset + UInt64(sealedCount)
    }

    /// Writes the batched chunks at their offset.
    private func flush() throws(AttachmentError) {
        guard batchCount > 0 else { return }
        try AttachmentFileIO.write(fd, UnsafeRawBufferPointer(rebasing: batch[0..<batchCount]), at: batchOffset, id: attachmentID)
        batchOffset += UInt64(batchCount)
        batchCount = 0
    }
}

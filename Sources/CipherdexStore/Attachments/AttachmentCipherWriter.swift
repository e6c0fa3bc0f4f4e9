import Dispatch

/// Streams plaintext into an encrypted attachment file (format: `AttachmentCipherFormat`).
///
/// Memory is flat: one chunk of plaintext buffer and three batches of 16 sealed chunks, whatever
/// the attachment size. Sealing (and the optional content hash) is shared with a helper thread,
/// which also writes each sealed batch out while the caller fetches more input. A full buffered
/// chunk is sealed only once more input arrives, because until then it might be the final chunk
/// (whose nonce carries the last flag).
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
/// writer finishes, fails or is deinitialised. Not thread-safe: one caller at a time.
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
    /// The chunk held back until more input shows it is not the final one (wiped when freed).
    private let plaintext: UnsafeMutableRawBufferPointer
    /// How many bytes of `plaintext` are filled.
    private var buffered = 0
    /// Batch buffers of sealed chunks (ciphertext only, so they need no wiping), used in turn:
    /// the helper thread writes one or two out while the next window is sealed into another.
    private let batches: [UnsafeMutableRawBufferPointer]
    /// The batch buffer the next window is sealed into.
    private var currentBatch = 0
    /// File offset where the next batch goes.
    private var batchOffset = UInt64(AttachmentCipherFormat.headerBytes)
    /// Chunks sealed per window and written per system call.
    static let batchChunks = 16
    /// The helper thread: writes batches out, and helps seal and hash.
    private let background = AttachmentBackgroundWrites(buffers: AttachmentCipherWriter.batchBuffers)
    /// How many batch buffers there are (three: a window need not wait for the batch before it to
    /// be written when the helper thread runs late).
    static let batchBuffers = 3
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
        self.plaintext = .allocate(byteCount: chunkSize, alignment: 64)
        self.batches = (0..<Self.batchBuffers).map { _ in
            .allocate(byteCount: Self.batchChunks * (chunkSize + AttachmentCipherFormat.chunkTagBytes), alignment: 64)
        }
    }

    deinit {
        // The helper thread may still be writing a batch.
        background.waitForAll()
        for batch in batches { batch.deallocate() }
        Sodium.memzero(plaintext)
        plaintext.deallocate()
        // finish() already closed an owned descriptor; otherwise the file stays unfinished.
        if ownsFileDescriptor && !isFinished {
            AttachmentFileIO.close(fd)
        }
    }

    /// Appends plaintext, and feeds it to `hash` when one is given.
    ///
    /// Input is taken in windows of up to `batchChunks` chunks. The chunks of a window (sealed
    /// straight from `bytes`, without copying) and its hash leaves are shared between this thread
    /// and the helper thread; the sealed batch is then written out by the helper while this
    /// thread returns for more input. A full chunk is sealed only once more input follows, since
    /// until then it might be the final one.
    ///
    /// - Throws: `AttachmentError.io` on a failed write (possibly of an earlier window); the
    ///   writer is then unusable.
    func write(_ bytes: UnsafeRawBufferPointer, hashing hash: Sodium.ContentHash? = nil) throws(AttachmentError) {
        try ensureOpen()
        do {
            try background.checkFailure()
            var position = 0
            repeat {
                position = try writeWindow(bytes, from: position, hashing: hash)
            } while position < bytes.count
            length += UInt64(bytes.count)
        } catch {
            fail(error)
            throw error
        }
    }

    /// Seals and queues one window of `bytes` starting at `start`; returns where it ended.
    private func writeWindow(
        _ bytes: UnsafeRawBufferPointer, from start: Int, hashing hash: Sodium.ContentHash?
    ) throws(AttachmentError) -> Int {
        var position = start
        // Top up a partly filled chunk buffer first.
        if buffered > 0 && buffered < chunkSize {
            let count = min(bytes.count - position, chunkSize - buffered)
            (plaintext.baseAddress! + buffered).copyMemory(from: bytes.baseAddress! + position, byteCount: count)
            buffered += count
            position += count
        }
        let batchIndex = currentBatch
        background.waitForBuffer(batchIndex)
        let batch = batches[batchIndex]
        let sealedSize = chunkSize + AttachmentCipherFormat.chunkTagBytes
        var jobs: [ChunkAEADWork.Job] = []
        func addJob(_ chunk: UnsafeRawBufferPointer) {
            let slot = jobs.count * sealedSize
            jobs.append(
                .init(
                    input: chunk, index: chunkIndex + UInt64(jobs.count), isFinal: false,
                    output: UnsafeMutableRawBufferPointer(rebasing: batch[slot..<(slot + sealedSize)])))
        }
        // The buffered chunk, now that more input follows.
        let sealsBuffer = buffered == chunkSize && position < bytes.count
        if sealsBuffer { addJob(UnsafeRawBufferPointer(plaintext)) }
        // Whole chunks that are not the last bytes seen.
        while jobs.count < Self.batchChunks && bytes.count - position > chunkSize {
            addJob(UnsafeRawBufferPointer(rebasing: bytes[position..<(position + chunkSize)]))
            position += chunkSize
        }
        // What is left (at most a chunk) is buffered once the window is sealed.
        let end = jobs.count < Self.batchChunks ? bytes.count : position
        let window = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        let leaves = hash?.beginUpdate(window)
        let seals = ChunkAEADWork(.seal, jobs: jobs, aead: aead, associatedData: associatedData)
        if seals.count + (leaves?.count ?? 0) >= 2 {
            // The helper joins once the writes queued before are done; this thread waits only
            // for chunks and leaves the helper took, never for its turn to come.
            background.help {
                leaves?.drain()
                seals.drain()
            }
        }
        leaves?.drain()
        seals.drain()
        leaves?.waitUntilFinished()
        seals.waitUntilFinished()
        if let leaves { hash?.endUpdate(leaves, window) }
        if sealsBuffer { buffered = 0 }
        if end > position {
            (plaintext.baseAddress! + buffered).copyMemory(
                from: bytes.baseAddress! + position, byteCount: end - position)
            buffered += end - position
        }
        if !jobs.isEmpty {
            precondition(
                AttachmentCipherFormat.chunkOffset(chunkIndex, chunkSize: UInt64(chunkSize)) == batchOffset,
                "chunks are written in order")
            let count = jobs.count * sealedSize
            background.submit(
                fd: fd, bytes: UnsafeRawBufferPointer(rebasing: batch[0..<count]), offset: batchOffset,
                buffer: batchIndex, id: attachmentID)
            chunkIndex += UInt64(jobs.count)
            batchOffset += UInt64(count)
            endOffset = batchOffset
            currentBatch = (currentBatch + 1) % batches.count
        }
        return end
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
            try sealFinalChunk()
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

    /// Seals the buffered bytes (possibly none) as the final chunk and writes it, after every
    /// batch queued before it.
    private func sealFinalChunk() throws(AttachmentError) {
        background.waitForAll()
        try background.checkFailure()
        let sealedCount = buffered + AttachmentCipherFormat.chunkTagBytes
        let output = UnsafeMutableRawBufferPointer(rebasing: batches[currentBatch][0..<sealedCount])
        let job = ChunkAEADWork.Job(
            input: UnsafeRawBufferPointer(rebasing: plaintext[0..<buffered]), index: chunkIndex, isFinal: true,
            output: output)
        ChunkAEADWork(.seal, jobs: [job], aead: aead, associatedData: associatedData).drain()
        let offset = AttachmentCipherFormat.chunkOffset(chunkIndex, chunkSize: UInt64(chunkSize))
        precondition(offset == batchOffset, "chunks are written in order")
        try AttachmentFileIO.write(fd, UnsafeRawBufferPointer(output), at: offset, id: attachmentID)
        chunkIndex += 1
        endOffset = offset + UInt64(sealedCount)
    }
}

import Dispatch

/// Random-access reader of an encrypted attachment file (format: `AttachmentCipherFormat`).
///
/// `init` opens the file and validates it completely except for the chunk contents: magic,
/// version, header tag (which binds the master key and attachment id), algorithm, chunk size,
/// and that the file size is exactly what the authenticated length implies. Reads then
/// decrypt only the chunks they touch; every chunk is authenticated before any of its bytes
/// are returned, so a damaged file yields a typed `AttachmentError`, never wrong bytes.
///
/// Memory is flat: one sealed-chunk buffer and one plaintext scratch chunk, reused, the
/// scratch wiped with `sodium_memzero` after each call (`readAll` uses a window of 16 chunks
/// each way instead, opened on both cores). The file stays open until the reader
/// goes away. Not thread-safe (the buffers are shared); use one reader per thread.
final class AttachmentCipherReader {
    /// The attachment id the file was verified against.
    let attachmentID: String
    /// Plaintext length of the attachment.
    let length: UInt64
    /// Plaintext bytes per chunk.
    let chunkSize: Int
    /// The AEAD algorithm from the header.
    let algorithm: Sodium.ChunkAEAD.Algorithm
    /// Number of chunks in the file (at least one).
    let chunkCount: UInt64

    /// The open attachment file.
    private let fd: Int32
    /// The file size validated by `init`.
    private let fileSize: UInt64
    /// The per-file chunk AEAD context.
    private let aead: Sodium.ChunkAEAD
    /// The associated data of every chunk (`header[0..<30] || id`).
    private let associatedData: [UInt8]
    /// Reused chunk buffers (plaintext wiped when freed).
    private let buffers: AttachmentChunkBuffers
    private var plaintext: UnsafeMutableRawBufferPointer { buffers.plaintext }
    private var sealed: UnsafeMutableRawBufferPointer { buffers.sealed }
    private var nonce: UnsafeMutableRawBufferPointer { buffers.nonce }

    /// Opens and validates the attachment file at `path` for `attachmentID`.
    ///
    /// - Parameters:
    ///   - path: the attachment file.
    ///   - attachmentID: the id the file must be bound to.
    ///   - masterKey: the 32-byte attachments master key.
    /// - Throws: `AttachmentError`: `notFound`, `badHeader`, `unsupportedVersion`,
    ///   `headerAuthenticationFailed`, `unsupportedAlgorithm`, `truncated`, `trailingData`, `io`.
    convenience init(path: String, attachmentID: String, masterKey: SecureBytes) throws(AttachmentError) {
        try self.init(
            path: path, attachmentID: attachmentID, masterKey: masterKey,
            availableAlgorithms: Sodium.ChunkAEAD.Algorithm.available)
    }

    /// The designated initialiser; `availableAlgorithms` lets tests simulate a machine without
    /// AES-NI.
    init(
        path: String, attachmentID: String, masterKey: SecureBytes,
        availableAlgorithms: Set<Sodium.ChunkAEAD.Algorithm>
    ) throws(AttachmentError) {
        let fd = try AttachmentFileIO.openForReading(path: path, id: attachmentID)
        let header: AttachmentCipherFormat.Header
        let algorithm: Sodium.ChunkAEAD.Algorithm
        let aead: Sodium.ChunkAEAD
        let fileSize: UInt64
        do throws(AttachmentError) {
            fileSize = try AttachmentFileIO.size(fd, id: attachmentID)
            header = try Self.readHeader(fd, fileSize: fileSize, id: attachmentID)
            let keys = AttachmentCipherFormat.deriveKeys(
                masterKey: masterKey, attachmentID: attachmentID, salt: header.salt)
            let expectedTag = AttachmentCipherFormat.headerTag(
                for: header, attachmentID: attachmentID, headerKey: keys.headerKey)
            guard Sodium.constantTimeEquals(expectedTag, header.tag) else {
                throw AttachmentError.headerAuthenticationFailed(id: attachmentID)
            }
            // From here on the header is authentic.
            guard let known = Sodium.ChunkAEAD.Algorithm(rawValue: header.algorithmID),
                availableAlgorithms.contains(known),
                let context = Sodium.ChunkAEAD(algorithm: known, key: keys.chunkKey)
            else {
                throw AttachmentError.unsupportedAlgorithm(id: attachmentID, algorithm: Int(header.algorithmID))
            }
            algorithm = known
            aead = context
            guard AttachmentCipherFormat.chunkSizeRange.contains(Int(header.chunkSize)) else {
                throw AttachmentError.badHeader(id: attachmentID, reason: "chunk size \(header.chunkSize) out of range")
            }
            guard
                let expected = AttachmentCipherFormat.expectedFileSize(
                    plaintextLength: header.plaintextLength, chunkSize: UInt64(header.chunkSize))
            else {
                throw AttachmentError.badHeader(id: attachmentID, reason: "plaintext length too large")
            }
            if fileSize < expected {
                throw AttachmentError.truncated(id: attachmentID, expectedBytes: expected, actualBytes: fileSize)
            }
            if fileSize > expected {
                throw AttachmentError.trailingData(id: attachmentID, expectedBytes: expected, actualBytes: fileSize)
            }
        } catch {
            AttachmentFileIO.close(fd)
            throw error
        }
        self.attachmentID = attachmentID
        self.length = header.plaintextLength
        self.chunkSize = Int(header.chunkSize)
        self.algorithm = algorithm
        self.chunkCount = AttachmentCipherFormat.chunkCount(
            plaintextLength: header.plaintextLength, chunkSize: UInt64(header.chunkSize))
        self.fd = fd
        self.fileSize = fileSize
        self.aead = aead
        self.associatedData = AttachmentCipherFormat.associatedData(for: header, attachmentID: attachmentID)
        self.buffers = AttachmentChunkBuffers(chunkSize: chunkSize, nonceBytes: algorithm.nonceBytes)
    }

    deinit {
        AttachmentFileIO.close(fd)
    }

    /// Decrypts the plaintext bytes in `range`, opening only the chunks it overlaps.
    ///
    /// Chunks wholly inside the range are decrypted straight into the result; partial chunks go
    /// through the scratch buffer. An empty range within bounds returns `[]` without reading.
    /// - Throws: `rangeOutOfBounds` if `range.upperBound > length`; `chunkAuthenticationFailed`,
    ///   `truncated` (the file shrank since `init`) or `io` while reading.
    func read(range: Range<UInt64>) throws(AttachmentError) -> [UInt8] {
        guard range.upperBound <= length else {
            throw .rangeOutOfBounds(id: attachmentID, range: range, length: length)
        }
        guard !range.isEmpty else { return [] }
        defer { Sodium.memzero(plaintext) }
        let size = UInt64(chunkSize)
        let count = Int(range.upperBound - range.lowerBound)
        var failure: AttachmentError?
        let result = [UInt8](unsafeUninitializedCapacity: count) { output, initialized in
            let destination = UnsafeMutableRawBufferPointer(output)
            do throws(AttachmentError) {
                for index in (range.lowerBound / size)...((range.upperBound - 1) / size) {
                    let chunkStart = index * size
                    let chunkLength = plaintextCount(ofChunk: index)
                    let low = Int(max(range.lowerBound, chunkStart) - chunkStart)
                    let high = Int(min(range.upperBound, chunkStart + UInt64(chunkLength)) - chunkStart)
                    let target = Int(chunkStart + UInt64(low) - range.lowerBound)
                    if low == 0 && high == chunkLength {
                        try openChunk(
                            index,
                            into: UnsafeMutableRawBufferPointer(
                                rebasing: destination[target..<(target + chunkLength)]))
                    } else {
                        try openChunk(
                            index, into: UnsafeMutableRawBufferPointer(rebasing: plaintext[0..<chunkLength]))
                        (destination.baseAddress! + target).copyMemory(
                            from: plaintext.baseAddress! + low, byteCount: high - low)
                    }
                }
                initialized = count
            } catch {
                Sodium.memzero(destination)
                initialized = 0
                failure = error
            }
        }
        if let failure { throw failure }
        return result
    }

    /// Chunks read with one `pread` and opened together by `readAll(into:)`.
    static let windowChunks = 16
    /// Windows `readAll(into:)` asks the kernel to read ahead of the one it opens.
    static let prefetchWindows: UInt64 = 4

    /// Streams the whole plaintext to `sink`, in windows of up to `windowChunks` authenticated
    /// chunks.
    ///
    /// Each window's sealed chunks are read with one `pread` and opened by this thread and a
    /// helper thread together; `sink` gets the window only once every chunk in it verified, but
    /// a later window may still fail: on an error, discard what `sink` received. Empty windows
    /// are not delivered. The buffer passed to `sink` is valid only during the call, and is
    /// wiped once the whole read ends. The next `prefetchWindows` windows are requested from
    /// storage (`AttachmentFileIO.prefetch`) before each `pread`, so the disk reads them while
    /// this window is opened and delivered, instead of one window at a time (issue 16).
    /// - Throws: `AttachmentError` from reading, or whatever `sink` throws.
    func readAll(into sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        let tag = AttachmentCipherFormat.chunkTagBytes
        let windowChunks = Int(min(UInt64(Self.windowChunks), chunkCount))
        let sealedWindow = UnsafeMutableRawBufferPointer.allocate(
            byteCount: windowChunks * (chunkSize + tag), alignment: 64)
        let window = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, windowChunks * chunkSize), alignment: 64)
        defer {
            Sodium.memzero(window)
            window.deallocate()
            sealedWindow.deallocate()
        }
        var first: UInt64 = 0
        var prefetched: UInt64 = 0
        while first < chunkCount {
            let count = Int(min(UInt64(windowChunks), chunkCount - first))
            var jobs: [ChunkAEADWork.Job] = []
            var plainCount = 0
            var sealedCount = 0
            for number in 0..<count {
                let index = first + UInt64(number)
                let chunkLength = plaintextCount(ofChunk: index)
                jobs.append(
                    .init(
                        input: UnsafeRawBufferPointer(
                            rebasing: sealedWindow[sealedCount..<(sealedCount + chunkLength + tag)]),
                        index: index, isFinal: index == chunkCount - 1,
                        output: UnsafeMutableRawBufferPointer(
                            rebasing: window[plainCount..<(plainCount + chunkLength)])))
                plainCount += chunkLength
                sealedCount += chunkLength + tag
            }
            let offset = AttachmentCipherFormat.chunkOffset(first, chunkSize: UInt64(chunkSize))
            let ahead = min(fileSize, offset + UInt64(sealedCount) * (1 + Self.prefetchWindows))
            if ahead > max(prefetched, offset + UInt64(sealedCount)) {
                let from = max(prefetched, offset + UInt64(sealedCount))
                AttachmentFileIO.prefetch(fd, offset: from, count: ahead - from)
                prefetched = ahead
            }
            let got = try AttachmentFileIO.read(
                fd, into: UnsafeMutableRawBufferPointer(rebasing: sealedWindow[0..<sealedCount]), at: offset,
                id: attachmentID)
            guard got == sealedCount else {
                throw AttachmentError.truncated(
                    id: attachmentID, expectedBytes: fileSize, actualBytes: offset + UInt64(got))
            }
            let work = ChunkAEADWork(.open, jobs: jobs, aead: aead, associatedData: associatedData)
            // The other core opens chunks from the start; this thread waits only for the chunks it
            // took, never for it to start (a late start finds nothing left and touches no buffer).
            if count >= 2 { DispatchQueue.global(qos: .userInitiated).async { work.drain() } }
            work.drain()
            work.waitUntilFinished()
            if let failed = work.firstFailure {
                throw AttachmentError.chunkAuthenticationFailed(id: attachmentID, chunkIndex: failed)
            }
            if plainCount > 0 { try sink(UnsafeRawBufferPointer(rebasing: window[0..<plainCount])) }
            first += UInt64(count)
        }
    }

    /// Plaintext bytes in chunk `index`: `chunkSize` except for the final chunk.
    private func plaintextCount(ofChunk index: UInt64) -> Int {
        index == chunkCount - 1 ? Int(length - index * UInt64(chunkSize)) : chunkSize
    }

    /// Reads chunk `index`, verifies it and decrypts it into `destination` (its exact length).
    private func openChunk(_ index: UInt64, into destination: UnsafeMutableRawBufferPointer) throws(AttachmentError) {
        let sealedCount = destination.count + AttachmentCipherFormat.chunkTagBytes
        let input = UnsafeMutableRawBufferPointer(rebasing: sealed[0..<sealedCount])
        let offset = AttachmentCipherFormat.chunkOffset(index, chunkSize: UInt64(chunkSize))
        let got = try AttachmentFileIO.read(fd, into: input, at: offset, id: attachmentID)
        guard got == sealedCount else {
            throw .truncated(id: attachmentID, expectedBytes: fileSize, actualBytes: offset + UInt64(got))
        }
        AttachmentCipherFormat.writeNonce(into: nonce, chunkIndex: index, isFinal: index == chunkCount - 1)
        let verified = associatedData.withUnsafeBytes { ad in
            aead.open(
                UnsafeRawBufferPointer(input), into: destination, nonce: UnsafeRawBufferPointer(nonce),
                associatedData: ad)
        }
        guard verified else { throw .chunkAuthenticationFailed(id: attachmentID, chunkIndex: index) }
    }

    /// Reads and parses the header, telling a short file apart from a foreign one.
    private static func readHeader(_ fd: Int32, fileSize: UInt64, id: String) throws(AttachmentError)
        -> AttachmentCipherFormat.Header
    {
        var bytes = [UInt8](repeating: 0, count: AttachmentCipherFormat.headerBytes)
        var readResult: Result<Int, AttachmentError> = .success(0)
        bytes.withUnsafeMutableBytes { buffer in
            readResult = Result { () throws(AttachmentError) in
                try AttachmentFileIO.read(fd, into: buffer, at: 0, id: id)
            }
        }
        let got = try readResult.get()
        if got < AttachmentCipherFormat.headerBytes {
            let prefix = min(got, AttachmentCipherFormat.magic.count)
            guard bytes[0..<prefix].elementsEqual(AttachmentCipherFormat.magic[0..<prefix]) else {
                throw .badHeader(id: id, reason: "bad magic")
            }
            throw .truncated(
                id: id, expectedBytes: UInt64(AttachmentCipherFormat.headerBytes), actualBytes: UInt64(got))
        }
        return try AttachmentCipherFormat.Header.decode(bytes, attachmentID: id)
    }
}

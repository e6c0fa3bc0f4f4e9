/// The encrypted attachment file format (version 1): a chunked STREAM construction.
///
/// All integers are big-endian. `id` is the attachment id as UTF-8 bytes; `||` is concatenation.
///
/// ## Layout
///
/// | Offset | Size | Field                                                                      |
/// |-------:|-----:|----------------------------------------------------------------------------|
/// |      0 |    8 | magic `"CDXATT1\0"` (`43 44 58 41 54 54 31 00`)                            |
/// |      8 |    1 | format version, `1`                                                        |
/// |      9 |    1 | algorithm id: `1` = AES-256-GCM, `2` = XChaCha20-Poly1305-IETF              |
/// |     10 |    4 | chunk size `C`: plaintext bytes per chunk, UInt32, 1...16 MiB (default 65536) |
/// |     14 |   16 | salt: random per file                                                      |
/// |     30 |    8 | plaintext length `L`, UInt64                                               |
/// |     38 |   16 | header tag                                                                 |
/// |     54 |  ... | `n` chunks, each `ciphertext || 16-byte AEAD tag`                          |
///
/// `n = max(1, ceil(L / C))`. Chunks `0 ..< n-1` carry exactly `C` plaintext bytes; the final
/// chunk carries `L - (n-1)·C` bytes (`1...C`, or `0` for empty content: an empty attachment is
/// one empty final chunk, 16 bytes of tag). The file size is therefore exactly
/// `54 + L + 16·n`; anything shorter is truncated, anything longer has trailing data.
///
/// ## Keys
///
/// `K = BLAKE2b-512(key: masterKey, "cdx-attachment-key-v1" || id || salt)` with the 32-byte
/// attachments master key; `K[0..<32]` is the chunk AEAD key and `K[32..<64]` the header MAC
/// key. The label is fixed and the salt fixed-length, so the input is unambiguous. Every file
/// (even a rewrite of the same id) has its own keys, which is what makes the short, counter
/// based nonces below safe.
///
/// ## Header tag
///
/// `BLAKE2b-128(key: headerKey, "cdx-attachment-header-v1" || header[0..<38] || id)`: it
/// authenticates every header field, including the plaintext length, under a key bound to the
/// master key, the id and the salt. A reader checks magic and version first (to know how to
/// parse), then this tag, and only then trusts the algorithm, chunk size and length.
///
/// ## Chunks
///
/// Chunk `i` is sealed with the header's algorithm under the chunk key with
///
/// - nonce `i` (UInt64) `||` zero bytes `||` last flag (one byte: `1` for chunk `n-1`, `0`
///   otherwise), padded to the algorithm's nonce size: 12 bytes for AES-256-GCM
///   (`i || 00 00 00 || flag`), 24 bytes for XChaCha20-Poly1305 (`i || 00 × 15 || flag`);
/// - associated data `header[0..<30] || id` (magic, version, algorithm, chunk size, salt, id).
///
/// The length and header tag are not in the associated data because the writer writes the
/// header last (see `AttachmentCipherWriter`); the length is authenticated by the header tag,
/// and the chunk count it implies is enforced by the exact file size and by the last flag.
///
/// ## What is detected
///
/// Flipped bits anywhere (header tag or chunk tags), truncation and appended bytes (file size
/// against the authenticated length; a dropped final chunk also loses its last flag), reordered
/// or duplicated chunks (index in the nonce), chunks or whole files moved between attachments
/// or files (id and salt in the keys, id in the associated data and header tag), and a wrong
/// master key (header tag). A file whose writer did not finish has an all-zero header.
enum AttachmentCipherFormat {
    /// The 8 magic bytes `"CDXATT1\0"` at offset 0.
    static let magic: [UInt8] = Array("CDXATT1".utf8) + [0]
    /// The only format version this code reads and writes.
    static let version: UInt8 = 1
    /// Plaintext bytes per chunk unless the writer is told otherwise.
    static let defaultChunkSize = 65_536
    /// The range of chunk sizes writers accept and readers trust (bounds reader memory).
    static let chunkSizeRange: ClosedRange<Int> = 1...(16 << 20)
    /// Length of the random per-file salt.
    static let saltBytes = 16
    /// Length of the header tag.
    static let headerTagBytes = 16
    /// Length of the AEAD tag after each chunk's ciphertext.
    static let chunkTagBytes = 16
    /// Header bytes covered by the header tag (everything before it).
    static let headerFieldsBytes = 38
    /// Header bytes included in every chunk's associated data (magic through salt).
    static let associatedHeaderBytes = 30
    /// Total header length; the first chunk starts here.
    static let headerBytes = headerFieldsBytes + headerTagBytes
    /// Offset of the plaintext length field inside the header.
    static let lengthOffset = 30
    /// Domain-separation label for per-file key derivation.
    static let keyDerivationLabel: [UInt8] = Array("cdx-attachment-key-v1".utf8)
    /// Domain-separation label for the header tag.
    static let headerTagLabel: [UInt8] = Array("cdx-attachment-header-v1".utf8)

    /// The decoded header fields, before or after authentication.
    struct Header: Equatable, Sendable {
        /// Raw algorithm id (kept raw so an unknown id can be reported).
        var algorithmID: UInt8
        /// Plaintext bytes per chunk.
        var chunkSize: UInt32
        /// The random per-file salt (16 bytes).
        var salt: [UInt8]
        /// Total plaintext length.
        var plaintextLength: UInt64
        /// The header tag (16 bytes); zeros until computed.
        var tag: [UInt8] = [UInt8](repeating: 0, count: AttachmentCipherFormat.headerTagBytes)

        /// The 38 bytes the header tag covers: magic, version, algorithm, chunk size, salt, length.
        var fields: [UInt8] {
            var bytes = AttachmentCipherFormat.magic
            bytes.reserveCapacity(AttachmentCipherFormat.headerBytes)
            bytes.append(AttachmentCipherFormat.version)
            bytes.append(algorithmID)
            appendBigEndian(chunkSize, to: &bytes)
            bytes.append(contentsOf: salt)
            appendBigEndian(plaintextLength, to: &bytes)
            return bytes
        }

        /// The full 54-byte header as written to disk.
        var encoded: [UInt8] { fields + tag }

        /// Parses a 54-byte header, checking only what is needed to parse it: magic and version.
        ///
        /// Everything else is unauthenticated until `tag` is verified against `headerTag`.
        static func decode(_ bytes: [UInt8], attachmentID: String) throws(AttachmentError) -> Header {
            precondition(bytes.count == AttachmentCipherFormat.headerBytes)
            let magic = AttachmentCipherFormat.magic
            guard Array(bytes[0..<magic.count]) == magic else {
                let reason = bytes.allSatisfy { $0 == 0 } ? "empty header (unfinished write)" : "bad magic"
                throw .badHeader(id: attachmentID, reason: reason)
            }
            guard bytes[8] == AttachmentCipherFormat.version else {
                throw .unsupportedVersion(id: attachmentID, version: Int(bytes[8]))
            }
            return Header(
                algorithmID: bytes[9],
                chunkSize: UInt32(readBigEndian(bytes, at: 10, count: 4)),
                salt: Array(bytes[14..<30]),
                plaintextLength: readBigEndian(bytes, at: 30, count: 8),
                tag: Array(bytes[38..<54]))
        }
    }

    /// The two per-file secrets derived from the master key, id and salt.
    struct FileKeys {
        /// The 32-byte chunk AEAD key.
        let chunkKey: SecureBytes
        /// The 32-byte header MAC key.
        let headerKey: SecureBytes
    }

    /// Derives the per-file keys: `BLAKE2b-512(masterKey, label || id || salt)` split in halves.
    static func deriveKeys(masterKey: SecureBytes, attachmentID: String, salt: [UInt8]) -> FileKeys {
        precondition(masterKey.count == 32, "the attachments master key must be 32 bytes")
        precondition(salt.count == saltBytes)
        let material = Sodium.keyedHash(
            keyDerivationLabel + Array(attachmentID.utf8) + salt, key: masterKey, outputCount: 64)
        return material.withUnsafeBytes { bytes in
            FileKeys(
                chunkKey: SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[0..<32])),
                headerKey: SecureBytes(copying: UnsafeRawBufferPointer(rebasing: bytes[32..<64])))
        }
    }

    /// The header tag over `header.fields` and the attachment id under the header key.
    static func headerTag(for header: Header, attachmentID: String, headerKey: SecureBytes) -> [UInt8] {
        Sodium.keyedTag(
            headerTagLabel + header.fields + Array(attachmentID.utf8), key: headerKey,
            outputCount: headerTagBytes)
    }

    /// The associated data of every chunk: header bytes 0..<30 followed by the id.
    static func associatedData(for header: Header, attachmentID: String) -> [UInt8] {
        Array(header.fields[0..<associatedHeaderBytes]) + Array(attachmentID.utf8)
    }

    /// Number of chunks for `length` plaintext bytes: `max(1, ceil(length / chunkSize))`.
    static func chunkCount(plaintextLength length: UInt64, chunkSize: UInt64) -> UInt64 {
        precondition(chunkSize > 0)
        let full = length / chunkSize
        let count = length % chunkSize == 0 ? full : full + 1
        return max(count, 1)
    }

    /// The exact file size for `length` plaintext bytes, or nil if it overflows UInt64.
    static func expectedFileSize(plaintextLength length: UInt64, chunkSize: UInt64) -> UInt64? {
        let chunks = chunkCount(plaintextLength: length, chunkSize: chunkSize)
        let (tags, tagsOverflow) = chunks.multipliedReportingOverflow(by: UInt64(chunkTagBytes))
        let (body, bodyOverflow) = length.addingReportingOverflow(tags)
        let (total, totalOverflow) = body.addingReportingOverflow(UInt64(headerBytes))
        return tagsOverflow || bodyOverflow || totalOverflow ? nil : total
    }

    /// Writes the nonce of chunk `index` into `nonce` (its whole length): index, zeros, last flag.
    static func writeNonce(into nonce: UnsafeMutableRawBufferPointer, chunkIndex index: UInt64, isFinal: Bool) {
        precondition(nonce.count >= 9)
        for offset in 0..<8 {
            nonce[offset] = UInt8(truncatingIfNeeded: index >> UInt64(56 - 8 * offset))
        }
        for offset in 8..<(nonce.count - 1) {
            nonce[offset] = 0
        }
        nonce[nonce.count - 1] = isFinal ? 1 : 0
    }

    /// Byte offset of chunk `index` in the file.
    static func chunkOffset(_ index: UInt64, chunkSize: UInt64) -> UInt64 {
        UInt64(headerBytes) + index * (chunkSize + UInt64(chunkTagBytes))
    }
}

/// Appends `value` to `bytes` in big-endian order.
private func appendBigEndian<Value: FixedWidthInteger>(_ value: Value, to bytes: inout [UInt8]) {
    for shift in stride(from: Value.bitWidth - 8, through: 0, by: -8) {
        bytes.append(UInt8(truncatingIfNeeded: value >> shift))
    }
}

/// Reads a big-endian unsigned integer of `count` bytes at `offset`.
private func readBigEndian(_ bytes: [UInt8], at offset: Int, count: Int) -> UInt64 {
    bytes[offset..<(offset + count)].reduce(0) { ($0 << 8) | UInt64($1) }
}

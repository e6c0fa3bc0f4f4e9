internal import CCrypto

/// AES-256-GCM of attachment chunks through OpenSSL's libcrypto: the same construction as
/// libsodium's `crypto_aead_aes256gcm` (12-byte nonce, the 16-byte tag after the ciphertext), so
/// the bytes on disk are the same whichever library sealed them (`OpenSSLGCMTests` checks both
/// ways), at about twice libsodium's speed on this project's machines (BENCHMARKS.md, "Attachment
/// CPU").
///
/// The key schedule lives in two OpenSSL contexts made once per file (one to seal, one to open),
/// which OpenSSL wipes when they are freed; each call works on its own copy, so any number of
/// threads may seal and open at once. Every OpenSSL call is checked: a call that fails returns
/// false, and `Sodium.ChunkAEAD` then does the chunk with libsodium instead.
final class OpenSSLGCM: @unchecked Sendable {
    /// Tag length in bytes.
    static let tagBytes = 16
    /// Nonce length in bytes (GCM's default IV length in OpenSSL).
    static let nonceBytes = 12

    private let sealing: OpaquePointer
    private let opening: OpaquePointer

    /// Expands `key` (32 bytes) into the two contexts; nil when OpenSSL fails to.
    init?(key: SecureBytes) {
        guard key.count == 32 else { return nil }
        guard let sealing = EVP_CIPHER_CTX_new() else { return nil }
        guard let opening = EVP_CIPHER_CTX_new() else {
            EVP_CIPHER_CTX_free(sealing)
            return nil
        }
        let ready = key.withUnsafeBytes { keyBytes -> Bool in
            let key = keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            return EVP_EncryptInit_ex(sealing, EVP_aes_256_gcm(), nil, key, nil) == 1
                && EVP_DecryptInit_ex(opening, EVP_aes_256_gcm(), nil, key, nil) == 1
        }
        guard ready else {
            EVP_CIPHER_CTX_free(sealing)
            EVP_CIPHER_CTX_free(opening)
            return nil
        }
        self.sealing = sealing
        self.opening = opening
    }

    deinit {
        // EVP_CIPHER_CTX_free cleanses the key schedule before releasing it.
        EVP_CIPHER_CTX_free(sealing)
        EVP_CIPHER_CTX_free(opening)
    }

    /// Seals `plaintext` into `output` (ciphertext, then the tag); false when an OpenSSL call
    /// failed (`output` is then to be ignored).
    func seal(
        _ plaintext: UnsafeRawBufferPointer, into output: UnsafeMutableRawBufferPointer,
        nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer
    ) -> Bool {
        guard output.count == plaintext.count + Self.tagBytes, nonce.count == Self.nonceBytes,
            plaintext.count <= Int(Int32.max) - Self.tagBytes, associatedData.count <= Int(Int32.max),
            let context = EVP_CIPHER_CTX_new()
        else { return false }
        defer { EVP_CIPHER_CTX_free(context) }
        let out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var length: Int32 = 0
        guard EVP_CIPHER_CTX_copy(context, sealing) == 1,
            EVP_EncryptInit_ex(context, nil, nil, nil, nonce.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 1,
            Self.update(context, associatedData: associatedData, encrypting: true)
        else { return false }
        if plaintext.count > 0 {
            guard
                EVP_EncryptUpdate(
                    context, out, &length, plaintext.baseAddress!.assumingMemoryBound(to: UInt8.self),
                    Int32(plaintext.count)) == 1, length == Int32(plaintext.count)
            else { return false }
        }
        var finalLength: Int32 = 0
        guard EVP_EncryptFinal_ex(context, out + plaintext.count, &finalLength) == 1, finalLength == 0,
            EVP_CIPHER_CTX_ctrl(
                context, cipherdex_evp_ctrl_gcm_get_tag, Int32(Self.tagBytes), out + plaintext.count) == 1
        else { return false }
        return true
    }

    /// Verifies and decrypts `sealed` (ciphertext, then the tag) into `plaintext`; false when the
    /// tag does not verify or an OpenSSL call failed (`plaintext` is then to be discarded).
    func open(
        _ sealed: UnsafeRawBufferPointer, into plaintext: UnsafeMutableRawBufferPointer,
        nonce: UnsafeRawBufferPointer, associatedData: UnsafeRawBufferPointer
    ) -> Bool {
        guard sealed.count >= Self.tagBytes, plaintext.count == sealed.count - Self.tagBytes,
            nonce.count == Self.nonceBytes, sealed.count <= Int(Int32.max), associatedData.count <= Int(Int32.max),
            let context = EVP_CIPHER_CTX_new()
        else { return false }
        defer { EVP_CIPHER_CTX_free(context) }
        let input = sealed.baseAddress!.assumingMemoryBound(to: UInt8.self)
        var length: Int32 = 0
        guard EVP_CIPHER_CTX_copy(context, opening) == 1,
            EVP_DecryptInit_ex(context, nil, nil, nil, nonce.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 1,
            Self.update(context, associatedData: associatedData, encrypting: false)
        else { return false }
        if plaintext.count > 0 {
            guard
                EVP_DecryptUpdate(
                    context, plaintext.baseAddress!.assumingMemoryBound(to: UInt8.self), &length, input,
                    Int32(plaintext.count)) == 1, length == Int32(plaintext.count)
            else { return false }
        }
        // The control takes a non-const pointer but only reads the tag.
        let tag = UnsafeMutableRawPointer(mutating: input + plaintext.count)
        var finalLength: Int32 = 0
        var scratch: UInt8 = 0
        guard EVP_CIPHER_CTX_ctrl(context, cipherdex_evp_ctrl_gcm_set_tag, Int32(Self.tagBytes), tag) == 1,
            EVP_DecryptFinal_ex(context, &scratch, &finalLength) == 1, finalLength == 0
        else { return false }
        return true
    }

    /// Feeds the associated data (nothing when there is none).
    private static func update(
        _ context: OpaquePointer, associatedData: UnsafeRawBufferPointer, encrypting: Bool
    ) -> Bool {
        guard associatedData.count > 0 else { return true }
        var length: Int32 = 0
        let ad = associatedData.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let status =
            encrypting
            ? EVP_EncryptUpdate(context, nil, &length, ad, Int32(associatedData.count))
            : EVP_DecryptUpdate(context, nil, &length, ad, Int32(associatedData.count))
        return status == 1 && length == Int32(associatedData.count)
    }
}

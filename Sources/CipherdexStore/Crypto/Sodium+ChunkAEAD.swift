internal import CSodium

extension Sodium {
    /// A per-file AEAD context that seals and opens chunks in caller-owned buffers.
    ///
    /// The context holds the key material once per file (the AES-256-GCM precomputed state, or
    /// the XChaCha20-Poly1305 key) in `sodium_malloc` memory; sealing and opening a chunk then
    /// allocate nothing. Nonces and associated data are supplied by the caller, who is
    /// responsible for never reusing a nonce under the same key.
    ///
    /// Not thread-safe to mutate, but sealing and opening only read the key material, so one
    /// context may be used from several threads as long as their buffers are distinct.
    final class ChunkAEAD: @unchecked Sendable {
        /// The AEAD algorithms a chunk may be sealed with; the raw value is stored on disk.
        enum Algorithm: UInt8, Sendable, CaseIterable {
            /// AES-256-GCM (12-byte nonce, 16-byte tag); needs AES-NI and CLMUL on x86-64.
            case aes256gcm = 1
            /// XChaCha20-Poly1305-IETF (24-byte nonce, 16-byte tag); available everywhere.
            case xchacha20poly1305 = 2

            /// Nonce length in bytes for this algorithm.
            var nonceBytes: Int {
                switch self {
                case .aes256gcm: return Int(crypto_aead_aes256gcm_NPUBBYTES)
                case .xchacha20poly1305: return Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
                }
            }

            /// Whether this machine's libsodium can run the algorithm.
            var isAvailable: Bool {
                switch self {
                case .aes256gcm:
                    Sodium.ensureInitialized()
                    return crypto_aead_aes256gcm_is_available() == 1
                case .xchacha20poly1305:
                    return true
                }
            }

            /// The fastest algorithm available here: AES-256-GCM with hardware support, else XChaCha.
            static var preferred: Algorithm {
                Algorithm.aes256gcm.isAvailable ? .aes256gcm : .xchacha20poly1305
            }

            /// The set of algorithms this machine can run.
            static var available: Set<Algorithm> {
                Set(allCases.filter(\.isAvailable))
            }
        }

        /// Key length in bytes expected by `init(algorithm:key:)` (both algorithms use 32).
        static let keyBytes = 32
        /// Authentication tag length in bytes appended to every sealed chunk (both algorithms).
        static let tagBytes = 16

        /// The algorithm this context seals and opens with.
        let algorithm: Algorithm
        /// The AES-GCM precomputed state or the XChaCha key, in secure memory.
        private let keyMaterial: SecureBytes
        /// AES-256-GCM through OpenSSL, which seals and opens first (the same bytes, faster);
        /// libsodium does a chunk it could not. Nil for XChaCha.
        private let openSSL: OpenSSLGCM?

        /// Prepares a context for `algorithm` under the 32-byte `key`.
        ///
        /// Returns nil when the algorithm is not available on this machine (AES-GCM without
        /// AES-NI). For AES-GCM the key schedule is expanded once here (`beforenm`, and in
        /// OpenSSL's contexts unless `usingOpenSSL` is false: the tests compare the two).
        init?(algorithm: Algorithm, key: SecureBytes, usingOpenSSL: Bool = true) {
            precondition(key.count == Self.keyBytes, "chunk AEAD key must be 32 bytes")
            guard algorithm.isAvailable else { return nil }
            Sodium.ensureInitialized()
            self.algorithm = algorithm
            switch algorithm {
            case .aes256gcm:
                let stateBytes = crypto_aead_aes256gcm_statebytes()
                keyMaterial = SecureBytes(count: stateBytes) { state in
                    let base = state.baseAddress!
                    // sodium_malloc places the block at the end of a page, so a size that is a
                    // multiple of 16 yields the 16-byte alignment the state requires.
                    precondition(Int(bitPattern: base) % 16 == 0, "AES-GCM state must be 16-byte aligned")
                    key.withUnsafeBytes { keyBytes in
                        _ = crypto_aead_aes256gcm_beforenm(
                            base.assumingMemoryBound(to: crypto_aead_aes256gcm_state.self),
                            keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                }
                openSSL = usingOpenSSL ? OpenSSLGCM(key: key) : nil
            case .xchacha20poly1305:
                keyMaterial = key.withUnsafeBytes { SecureBytes(copying: $0) }
                openSSL = nil
            }
        }

        /// Seals `plaintext` into `output`, which receives the ciphertext followed by the tag.
        ///
        /// `output` must hold exactly `plaintext.count + tagBytes` bytes and must not overlap
        /// `plaintext`; `nonce` must be `algorithm.nonceBytes` long and unique under this key.
        func seal(
            _ plaintext: UnsafeRawBufferPointer,
            into output: UnsafeMutableRawBufferPointer,
            nonce: UnsafeRawBufferPointer,
            associatedData: UnsafeRawBufferPointer
        ) {
            precondition(output.count == plaintext.count + Self.tagBytes, "output must fit ciphertext and tag")
            precondition(nonce.count == algorithm.nonceBytes, "wrong nonce length")
            if let openSSL, openSSL.seal(plaintext, into: output, nonce: nonce, associatedData: associatedData) {
                return
            }
            var dummy: UInt8 = 0
            withUnsafeMutablePointer(to: &dummy) { dummyPointer in
                let message = plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(dummyPointer)
                let ad = associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self)
                let out = output.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let npub = nonce.baseAddress!.assumingMemoryBound(to: UInt8.self)
                var written: UInt64 = 0
                keyMaterial.withUnsafeBytes { material in
                    switch algorithm {
                    case .aes256gcm:
                        _ = crypto_aead_aes256gcm_encrypt_afternm(
                            out, &written, message, UInt64(plaintext.count), ad, UInt64(associatedData.count),
                            nil, npub, material.baseAddress!.assumingMemoryBound(to: crypto_aead_aes256gcm_state.self))
                    case .xchacha20poly1305:
                        _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                            out, &written, message, UInt64(plaintext.count), ad, UInt64(associatedData.count),
                            nil, npub, material.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                }
                precondition(written == UInt64(output.count), "AEAD wrote an unexpected length")
            }
        }

        /// Verifies and decrypts `sealed` (ciphertext followed by tag) into `plaintext`.
        ///
        /// `plaintext` must hold exactly `sealed.count - tagBytes` bytes and must not overlap
        /// `sealed`. Returns false, leaving `plaintext` zeroed, when the tag does not verify
        /// (wrong key, nonce, associated data, or any modified byte).
        func open(
            _ sealed: UnsafeRawBufferPointer,
            into plaintext: UnsafeMutableRawBufferPointer,
            nonce: UnsafeRawBufferPointer,
            associatedData: UnsafeRawBufferPointer
        ) -> Bool {
            guard sealed.count >= Self.tagBytes, plaintext.count == sealed.count - Self.tagBytes,
                nonce.count == algorithm.nonceBytes
            else { return false }
            // OpenSSL first; when it says no (a wrong tag, or a failed call), libsodium decides.
            if let openSSL, openSSL.open(sealed, into: plaintext, nonce: nonce, associatedData: associatedData) {
                return true
            }
            var dummy: UInt8 = 0
            return withUnsafeMutablePointer(to: &dummy) { dummyPointer in
                let out = plaintext.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? dummyPointer
                let input = sealed.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let ad = associatedData.baseAddress?.assumingMemoryBound(to: UInt8.self)
                let npub = nonce.baseAddress!.assumingMemoryBound(to: UInt8.self)
                var written: UInt64 = 0
                let status = keyMaterial.withUnsafeBytes { material -> Int32 in
                    switch algorithm {
                    case .aes256gcm:
                        return crypto_aead_aes256gcm_decrypt_afternm(
                            out, &written, nil, input, UInt64(sealed.count), ad, UInt64(associatedData.count),
                            npub, material.baseAddress!.assumingMemoryBound(to: crypto_aead_aes256gcm_state.self))
                    case .xchacha20poly1305:
                        return crypto_aead_xchacha20poly1305_ietf_decrypt(
                            out, &written, nil, input, UInt64(sealed.count), ad, UInt64(associatedData.count),
                            npub, material.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                }
                guard status == 0, written == UInt64(plaintext.count) else {
                    Sodium.memzero(plaintext)
                    return false
                }
                return true
            }
        }
    }

    /// Overwrites `buffer` with zeros in a way the compiler may not elide (`sodium_memzero`).
    static func memzero(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        sodium_memzero(base, buffer.count)
    }

    /// Keyed BLAKE2b of a public `message` under a secret `key`, returned as a secret.
    ///
    /// `key` must be 16...64 bytes and `outputCount` 16...64 bytes. Used to derive per-file keys
    /// from a master key, so the output lives in secure memory.
    static func keyedHash(_ message: [UInt8], key: SecureBytes, outputCount: Int) -> SecureBytes {
        precondition((16...64).contains(key.count) && (16...64).contains(outputCount), "BLAKE2b key/output size")
        ensureInitialized()
        return SecureBytes(count: outputCount) { destination in
            key.withUnsafeBytes { keyBytes in
                _ = crypto_generichash(
                    destination.baseAddress!.assumingMemoryBound(to: UInt8.self), outputCount,
                    message, UInt64(message.count),
                    keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
            }
        }
    }

    /// Keyed BLAKE2b of a public `message`, as a public tag of `outputCount` (16...64) bytes.
    static func keyedTag(_ message: [UInt8], key: SecureBytes, outputCount: Int) -> [UInt8] {
        precondition((16...64).contains(key.count) && (16...64).contains(outputCount), "BLAKE2b key/output size")
        ensureInitialized()
        var output = [UInt8](repeating: 0, count: outputCount)
        key.withUnsafeBytes { keyBytes in
            _ = crypto_generichash(
                &output, outputCount, message, UInt64(message.count),
                keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
        }
        return output
    }
}

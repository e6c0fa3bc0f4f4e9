internal import CSodium

#if canImport(Glibc)
    import Glibc
#endif

/// The one place Cipherdex calls libsodium for primitives; every other file goes through here.
package enum Sodium {
    private static let initialization: Int32 = sodium_init()

    /// Calls `sodium_init` once per process; safe from any thread.
    /// The loaded libsodium's version (`sodium_version_string`).
    static var versionString: String { String(cString: sodium_version_string()) }

    static func ensureInitialized() {
        precondition(initialization >= 0, "libsodium failed to initialise")
    }

    /// Random bytes that are not secret (salts, nonces, identifiers).
    static func randomBytes(_ count: Int) -> [UInt8] {
        ensureInitialized()
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, count) }
        return bytes
    }

    // MARK: XChaCha20-Poly1305 (IETF)

    static let aeadKeyBytes = Int(crypto_aead_xchacha20poly1305_ietf_KEYBYTES)
    static let aeadNonceBytes = Int(crypto_aead_xchacha20poly1305_ietf_NPUBBYTES)
    static let aeadTagBytes = Int(crypto_aead_xchacha20poly1305_ietf_ABYTES)

    /// Seals `plaintext` (secret) under `key`; returns ciphertext followed by the tag.
    static func seal(_ plaintext: SecureBytes, key: SecureBytes, nonce: [UInt8], associatedData: [UInt8]) -> [UInt8] {
        precondition(key.count == aeadKeyBytes && nonce.count == aeadNonceBytes)
        ensureInitialized()
        var output = [UInt8](repeating: 0, count: plaintext.count + aeadTagBytes)
        var outputLength: UInt64 = 0
        plaintext.withUnsafeBytes { message in
            key.withUnsafeBytes { keyBytes in
                _ = crypto_aead_xchacha20poly1305_ietf_encrypt(
                    &output, &outputLength,
                    message.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(message.count),
                    associatedData, UInt64(associatedData.count), nil, nonce,
                    keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
            }
        }
        return output
    }

    /// Opens a sealed box into secure memory, or returns nil when authentication fails.
    static func open(_ sealed: [UInt8], key: SecureBytes, nonce: [UInt8], associatedData: [UInt8]) -> SecureBytes? {
        guard key.count == aeadKeyBytes, nonce.count == aeadNonceBytes, sealed.count >= aeadTagBytes else {
            return nil
        }
        ensureInitialized()
        var succeeded = false
        let plaintext = SecureBytes(count: sealed.count - aeadTagBytes) { destination in
            key.withUnsafeBytes { keyBytes in
                var length: UInt64 = 0
                succeeded =
                    crypto_aead_xchacha20poly1305_ietf_decrypt(
                        destination.baseAddress!.assumingMemoryBound(to: UInt8.self), &length, nil,
                        sealed, UInt64(sealed.count), associatedData, UInt64(associatedData.count), nonce,
                        keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0
            }
        }
        return succeeded ? plaintext : nil
    }

    // MARK: BLAKE2b

    /// Keyed BLAKE2b-256 of `message` (a MAC when `key` is secret).
    static func mac(_ message: [UInt8], key: SecureBytes) -> [UInt8] {
        ensureInitialized()
        var output = [UInt8](repeating: 0, count: 32)
        key.withUnsafeBytes { keyBytes in
            _ = crypto_generichash(
                &output, 32, message, UInt64(message.count),
                keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count)
        }
        return output
    }

    /// Unkeyed BLAKE2b-256: a checksum against accidental damage, not a MAC.
    static func checksum(_ message: [UInt8]) -> [UInt8] {
        ensureInitialized()
        var output = [UInt8](repeating: 0, count: 32)
        _ = crypto_generichash(&output, 32, message, UInt64(message.count), nil, 0)
        return output
    }

    /// Constant-time equality of two public byte strings of the same length (tags, MACs).
    static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        guard lhs.count == rhs.count else { return false }
        return sodium_memcmp(lhs, rhs, lhs.count) == 0
    }

    /// Derives a 32-byte subkey from `masterKey` (32 bytes) for `context` (exactly 8 ASCII bytes).
    static func deriveSubkey(from masterKey: SecureBytes, id: UInt64, context: StaticString) -> SecureBytes {
        precondition(masterKey.count == Int(crypto_kdf_KEYBYTES) && context.utf8CodeUnitCount == 8)
        ensureInitialized()
        return SecureBytes(count: 32) { destination in
            masterKey.withUnsafeBytes { master in
                context.withUTF8Buffer { contextBytes in
                    contextBytes.withMemoryRebound(to: CChar.self) { contextChars in
                        _ = crypto_kdf_derive_from_key(
                            destination.baseAddress!.assumingMemoryBound(to: UInt8.self), 32, id,
                            contextChars.baseAddress!, master.baseAddress!.assumingMemoryBound(to: UInt8.self))
                    }
                }
            }
        }
    }

    // MARK: Argon2id

    /// Argon2id (crypto_pwhash, ALG_ARGON2ID13) of a secret passphrase into a 32-byte key.
    /// Returns nil when libsodium refuses (parameters out of range); its memory refused
    /// (`ENOMEM`: a memory limit, `ulimit -v`) is `StoreError.resourcesExhausted`, not a reason
    /// to take the keyslot for damaged (environment audit 28: `metadataCorrupt`, which apps
    /// answer by restoring a backup).
    static func argon2id(passphrase: SecureBytes, salt: [UInt8], opsLimit: UInt64, memLimit: Int) throws
        -> SecureBytes?
    {
        guard salt.count == Int(crypto_pwhash_SALTBYTES) else { return nil }
        ensureInitialized()
        var succeeded = false
        var failure: Int32 = 0
        let key = SecureBytes(count: 32) { destination in
            passphrase.withUnsafeBytes { password in
                errno = 0
                succeeded =
                    crypto_pwhash(
                        destination.baseAddress!.assumingMemoryBound(to: UInt8.self), 32,
                        password.baseAddress!.assumingMemoryBound(to: CChar.self), UInt64(password.count),
                        salt, opsLimit, memLimit, crypto_pwhash_ALG_ARGON2ID13) == 0
                failure = errno
            }
        }
        if !succeeded && failure == ENOMEM {
            throw StoreError.resourcesExhausted(
                path: "memory",
                reason: "Argon2id could not have the \(memLimit >> 20) MiB of memory the passphrase keyslot asks for "
                    + "(the process's memory limit)")
        }
        return succeeded ? key : nil
    }

    /// Salt length Argon2id expects.
    static let passwordSaltBytes = Int(crypto_pwhash_SALTBYTES)
    /// Lowest opsLimit libsodium accepts for Argon2id.
    static let minimumOpsLimit = UInt64(crypto_pwhash_OPSLIMIT_MIN)
    /// Lowest memLimit libsodium accepts for Argon2id.
    static let minimumMemLimit = Int(crypto_pwhash_MEMLIMIT_MIN)
}

internal import CCrypto

/// Poly1305 through OpenSSL's libcrypto, for the leaves of the content hash
/// (`Sodium.ContentHash`, tree v3): the same tags as libsodium's `crypto_onetimeauth_poly1305`
/// (`OpenSSLPoly1305Tests` checks both) at about three times its speed on this project's
/// machines (BENCHMARKS.md, "Attachment CPU").
///
/// One context per thread: it is not shared. The key is copied into OpenSSL's state for one tag
/// at a time and cleansed by OpenSSL when the tag is finished. Every call is checked: `tag`
/// returns false when one failed, and the caller computes that leaf with libsodium instead.
final class OpenSSLPoly1305 {
    /// Key length in bytes.
    static let keyBytes = 32
    /// Tag length in bytes.
    static let tagBytes = 16

    private let context: UnsafeMutableRawPointer

    /// A context, or nil when this libcrypto has no Poly1305 MAC (before OpenSSL 3) or fails.
    init?() {
        guard let context = cipherdex_poly1305_context_new() else { return nil }
        self.context = context
    }

    deinit {
        cipherdex_poly1305_context_free(context)
    }

    /// Writes the tag of `message` under `key` (32 bytes) to `tag` (16 bytes); false when an
    /// OpenSSL call failed (`tag` is then to be ignored).
    func tag(
        _ message: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, into tag: UnsafeMutablePointer<UInt8>
    ) -> Bool {
        guard key.count == Self.keyBytes, let keyBase = key.baseAddress else { return false }
        let bytes = message.baseAddress?.assumingMemoryBound(to: UInt8.self)
        return cipherdex_poly1305(
            context, keyBase.assumingMemoryBound(to: UInt8.self), bytes, message.count, tag) == 1
    }
}

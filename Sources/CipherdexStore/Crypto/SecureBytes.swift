internal import CSodium

/// Secret bytes held in memory from `sodium_malloc`: guarded pages, locked against swapping,
/// and zeroed by `sodium_free` when the last reference goes away.
///
/// Every key, data key, passphrase and derived subkey in Cipherdex lives in one of these and
/// nowhere else. The type is immutable after initialisation, so it is safe to share.
package final class SecureBytes: @unchecked Sendable {
    /// How many bytes the buffer holds.
    let count: Int
    private let pointer: UnsafeMutableRawPointer

    /// Allocates `count` zeroed bytes and lets `initialize` fill them. When `initialize` throws,
    /// the buffer is zeroed and freed (exactly once) and the error rethrown.
    init(count: Int, initialize: (UnsafeMutableRawBufferPointer) throws -> Void = { _ in }) rethrows {
        Sodium.ensureInitialized()
        // sodium_malloc(0) is allowed but returns a pointer we must still free; keep one byte.
        guard let raw = sodium_malloc(max(count, 1)) else {
            fatalError("sodium_malloc failed: out of locked memory")
        }
        sodium_memzero(raw, max(count, 1))
        // Fill the buffer before any stored property is set. A class initializer that throws
        // after every stored property is initialized runs `deinit`, which frees `pointer`; had
        // the catch below freed it too, a throwing `initialize` would free it twice. Here a
        // throw leaves `self` uninitialized, so `deinit` does not run and the catch owns `raw`.
        do {
            try initialize(UnsafeMutableRawBufferPointer(start: raw, count: count))
        } catch {
            sodium_free(raw)
            throw error
        }
        self.count = count
        self.pointer = raw
    }

    /// Copies `bytes` into a new secure buffer.
    convenience init(copying bytes: UnsafeRawBufferPointer) {
        self.init(count: bytes.count) { destination in
            if let base = bytes.baseAddress, bytes.count > 0 {
                destination.baseAddress!.copyMemory(from: base, byteCount: bytes.count)
            }
        }
    }

    /// Copies the bytes of a collection into a new secure buffer, straight from its storage (or
    /// byte by byte when it has none): no intermediate copy is made, since nothing would zero it.
    convenience init<Bytes: Collection>(copying bytes: Bytes) where Bytes.Element == UInt8 {
        let count = bytes.count
        self.init(count: count) { destination in
            let copied: Void? = bytes.withContiguousStorageIfAvailable { source in
                if let base = source.baseAddress, source.count > 0 {
                    destination.baseAddress!.copyMemory(from: base, byteCount: min(source.count, count))
                }
            }
            guard copied == nil else { return }
            for (offset, byte) in zip(0..<count, bytes) { destination[offset] = byte }
        }
    }

    /// `count` bytes from the operating system's CSPRNG.
    static func random(count: Int) -> SecureBytes {
        SecureBytes(count: count) { buffer in
            if let base = buffer.baseAddress, buffer.count > 0 {
                randombytes_buf(base, buffer.count)
            }
        }
    }

    deinit {
        sodium_free(pointer)
    }

    /// Read access to the secret bytes; the pointer must not escape `body`.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try body(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// Constant-time comparison with another secret of the same length.
    func constantTimeEquals(_ other: SecureBytes) -> Bool {
        guard count == other.count else { return false }
        return sodium_memcmp(pointer, other.pointer, count) == 0
    }

    /// The secret as SQLCipher's raw-key literal `x'<hex>'`, built in secure memory.
    ///
    /// SQLCipher runs PBKDF2 on any key it is handed as bytes; only this text form makes it use
    /// the 32 bytes directly.
    func sqlcipherRawKeyLiteral() -> SecureBytes {
        let hexCount = count * 2
        return SecureBytes(count: hexCount + 3) { destination in
            let base = destination.baseAddress!.assumingMemoryBound(to: UInt8.self)
            base[0] = UInt8(ascii: "x")
            base[1] = UInt8(ascii: "'")
            // sodium_bin2hex writes a NUL after the digits; the closing quote overwrites it.
            let scratch = SecureBytes(count: hexCount + 1) { hex in
                _ = sodium_bin2hex(
                    hex.baseAddress!.assumingMemoryBound(to: CChar.self), hexCount + 1,
                    pointer.assumingMemoryBound(to: UInt8.self), count)
            }
            scratch.withUnsafeBytes { hex in
                (base + 2).update(from: hex.baseAddress!.assumingMemoryBound(to: UInt8.self), count: hexCount)
            }
            base[hexCount + 2] = UInt8(ascii: "'")
        }
    }
}

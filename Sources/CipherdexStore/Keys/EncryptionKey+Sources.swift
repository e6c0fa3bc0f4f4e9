import Foundation

#if canImport(Glibc)
    import Glibc
#endif

extension EncryptionKey {
    /// A raw key read from a file holding either exactly 32 raw bytes or 64 hexadecimal digits,
    /// with any spaces, tabs, line feeds and carriage returns before and after them ignored
    /// (FORMAT.md section 3). The file's bytes go straight into secure memory.
    ///
    /// The path must name a regular file of at most 4 KiB, or a symbolic link to one; anything
    /// else (directory, FIFO, socket, device) throws `KeyError.unreadable` at once (running out
    /// of open files or memory: `StoreError.resourcesExhausted`).
    public static func raw(contentsOfFile path: String) throws -> EncryptionKey {
        let bytes = try readSecureFile(path, limit: 4096)
        if bytes.count == rawKeyLength {
            return try fromSecure(kind: .raw, bytes)
        }
        guard let decoded = SecureBytes.decodingHex(bytes, byteCount: rawKeyLength) else {
            throw KeyError.invalidHex("the file holds \(bytes.count) bytes; expected 32 raw bytes or 64 hex digits")
        }
        return try fromSecure(kind: .raw, decoded)
    }

    /// A raw key from 64 hexadecimal digits (surrounding whitespace ignored).
    public static func raw(hex: String) throws -> EncryptionKey {
        let text = SecureBytes(copying: hex.utf8)
        guard let decoded = SecureBytes.decodingHex(text, byteCount: rawKeyLength) else {
            let length = hex.trimmingCharacters(in: .whitespacesAndNewlines).utf8.count
            throw KeyError.invalidHex(
                length == 64
                    ? "a character is not a hexadecimal digit (0-9, a-f, A-F)"
                    : "expected 64 hex digits, got \(length) characters")
        }
        return try fromSecure(kind: .raw, decoded)
    }

    /// A passphrase of exactly these bytes (a terminal's line, an environment variable's value),
    /// never decoded or repaired: bytes that are not UTF-8 are used as they are, as a file's
    /// are, so every source gives the same key for the same bytes (FORMAT.md section 3).
    package static func passphrase(bytes: UnsafeRawBufferPointer) throws -> EncryptionKey {
        var key = try fromSecure(kind: .passphrase, SecureBytes(copying: bytes))
        key.cameFromRepairingSource = true
        return key
    }

    /// A passphrase read from a file; a final line feed is dropped, and then a final carriage
    /// return (so `\r\n` and a lone `\r` too), nothing else (FORMAT.md section 3). The path
    /// must name a regular file of at most 64 KiB, or a symbolic link to one; anything else
    /// throws `KeyError.unreadable` at once (running out of open files or memory:
    /// `StoreError.resourcesExhausted`).
    public static func passphrase(contentsOfFile path: String) throws -> EncryptionKey {
        let bytes = try readSecureFile(path, limit: 64 * 1024)
        let trimmed = bytes.withUnsafeBytes { raw -> SecureBytes in
            var end = raw.count
            if end > 0 && raw[end - 1] == 0x0A { end -= 1 }
            if end > 0 && raw[end - 1] == 0x0D { end -= 1 }
            return SecureBytes(copying: UnsafeRawBufferPointer(rebasing: raw[0..<end]))
        }
        return try fromSecure(kind: .passphrase, trimmed)
    }

    /// The key's bytes as 64 hex digits and a newline, handed to `body` (for `keygen`); the
    /// buffer is zeroed afterwards. Passphrase keys are refused.
    public func withHexLine<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) throws -> Result {
        guard kind == .raw else { throw KeyError.invalidHex("a passphrase has no hex form") }
        return try secret.hexLine().withUnsafeBytes(body)
    }

    /// Reads a key or passphrase file straight into secure memory. Only a regular file (or a
    /// symbolic link to one) of at most `limit` bytes is read: a directory, FIFO, socket or
    /// device is refused at once (never blocking, never reading without end). Every failure is
    /// `KeyError.unreadable` naming the path, except running out of open files or memory
    /// (`EMFILE`, `ENFILE`, `ENOMEM`): `StoreError.resourcesExhausted`, as for the store's own
    /// files (the file is fine; close some files and retry).
    static func readSecureFile(_ path: String, limit: Int) throws -> SecureBytes {
        do {
            let (file, size) = try FileDescriptor.openRegularFile(path: path, limit: limit)
            return try SecureBytes(count: size) { try file.readExactly(into: $0) }
        } catch let error as SystemError where [EMFILE, ENFILE, ENOMEM].contains(error.errno) {
            throw StoreError.classifying(error)
        } catch let error as SystemError {
            throw KeyError.unreadable(source: path, reason: String(cString: strerror(error.errno)))
        } catch let error as RegularFileError {
            throw KeyError.unreadable(source: path, reason: error.reason)
        }
    }
}

extension EncryptionKey {
    /// For a passphrase from an environment variable or the terminal whose bytes are not UTF-8:
    /// the same passphrase as builds before 2026-12-06 turned it into bytes (each ill-formed
    /// sequence replaced by U+FFFD, as `String(decoding:as:)` does); nil for any other key (a
    /// file's bytes were never repaired). An open tries it only when the bytes themselves open
    /// no slot, so a store made that way still opens. Transcoded straight into `SecureBytes`.
    var repairedLegacyPassphrase: EncryptionKey? {
        guard kind == .passphrase, cameFromRepairingSource else { return nil }
        return secret.withUnsafeBytes { raw -> EncryptionKey? in
            // `transcode` returns true when the input held an ill-formed sequence.
            let illFormed = transcode(
                raw.makeIterator(), from: UTF8.self, to: UTF8.self, stoppingOnError: true, into: { _ in })
            guard illFormed else { return nil }
            var repairedCount = 0
            _ = transcode(raw.makeIterator(), from: UTF8.self, to: UTF8.self, stoppingOnError: false) { _ in
                repairedCount += 1
            }
            let repaired = SecureBytes(count: repairedCount) { destination in
                var offset = 0
                _ = transcode(raw.makeIterator(), from: UTF8.self, to: UTF8.self, stoppingOnError: false) { unit in
                    destination[offset] = unit
                    offset += 1
                }
            }
            return try? EncryptionKey.fromSecure(kind: .passphrase, repaired)
        }
    }
}

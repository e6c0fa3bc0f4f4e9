internal import CCrypto

#if canImport(Glibc)
    import Glibc
#endif

/// Authenticates every page of an encrypted database file by itself, the check SQLCipher 4.x
/// runs as `PRAGMA cipher_integrity_check` and SQLCipher 3.x lacks: there, only the pages a
/// query reads are authenticated, so `verify` found no damage in free pages and never named the
/// page that failed.
///
/// SQLCipher's page format with the settings Cipherdex pins (HMAC-SHA1, `FORMAT.md` section 5):
/// each page ends in a reserve of 48 bytes (a 16-byte IV, then the 20-byte HMAC, rounded up to
/// the AES block); the HMAC is over the page from its start (byte 16 on page 1, after the
/// salt) through the IV, followed by the page number as 4 bytes little-endian, keyed with
/// PBKDF2-HMAC-SHA1(data key, the file's first 16 bytes XOR 0x3a, 2 iterations, 32 bytes).
struct SQLCipherPageCheck {
    /// The reserve at the end of each page: IV and HMAC-SHA1, rounded up to 16 bytes.
    static let reserveBytes = 48
    static let ivBytes = 16
    static let hmacBytes = 20

    let pageSize: Int
    private let hmacKey: SecureBytes

    /// The check for a file whose first 16 bytes are `salt`, under the 32-byte `dataKey`; nil
    /// when OpenSSL's key derivation fails.
    init?(dataKey: SecureBytes, salt: [UInt8], pageSize: Int) {
        guard dataKey.count == 32, salt.count == 16, pageSize > Self.reserveBytes + 16 else { return nil }
        let masked = salt.map { $0 ^ 0x3a }
        var derived: Int32 = 0
        let key = SecureBytes(count: 32) { output in
            derived = dataKey.withUnsafeBytes { password in
                PKCS5_PBKDF2_HMAC_SHA1(
                    password.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(password.count), masked,
                    Int32(masked.count), 2, Int32(output.count), output.baseAddress!.assumingMemoryBound(to: UInt8.self)
                )
            }
        }
        guard derived == 1 else { return nil }
        self.hmacKey = key
        self.pageSize = pageSize
    }

    /// Whether `page` (exactly `pageSize` bytes as the file holds them) carries the HMAC of
    /// page `number`.
    func authenticates(_ page: UnsafeRawBufferPointer, number: UInt32) -> Bool {
        guard page.count == pageSize else { return false }
        let start = number == 1 ? 16 : 0
        let end = pageSize - Self.reserveBytes + Self.ivBytes
        var message = [UInt8](page[start..<end])
        withUnsafeBytes(of: number.littleEndian) { message.append(contentsOf: $0) }
        var mac = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let done = hmacKey.withUnsafeBytes { key in
            HMAC(EVP_sha1(), key.baseAddress, Int32(key.count), message, message.count, &mac, &length)
        }
        guard done != nil, length == UInt32(Self.hmacBytes) else { return false }
        var difference: UInt8 = 0
        for index in 0..<Self.hmacBytes { difference |= mac[index] ^ page[end + index] }
        return difference == 0
    }

    /// The numbers of the pages of the database file at `path`, up to `pageCount`, that do not
    /// authenticate; `skipping` are pages not to look at (the lock-byte page, pages the log
    /// holds). Pages past the end of the file are not there to check. Throws `SystemError` when
    /// the file cannot be read, nil when the check cannot be made (no salt, OpenSSL failed).
    static func failingPages(
        ofDatabaseAt path: String, dataKey: SecureBytes, pageSize: Int, pageCount: Int, skipping: Set<UInt32>,
        cancellation: WorkCancellation?
    ) throws -> [UInt32]? {
        let file = try FileDescriptor(path: path, flags: O_RDONLY | O_NOFOLLOW)
        var page = [UInt8](repeating: 0, count: pageSize)
        let first = try page.withUnsafeMutableBytes { try file.read(into: $0, at: 0) }
        guard first >= 16,
            let check = SQLCipherPageCheck(dataKey: dataKey, salt: Array(page[0..<16]), pageSize: pageSize)
        else { return nil }
        var failing: [UInt32] = []
        for number in UInt32(1)...UInt32(max(1, pageCount)) where !skipping.contains(number) {
            if number % 1024 == 0 { try cancellation?.check() }
            let offset = UInt64(number - 1) * UInt64(pageSize)
            let read = try page.withUnsafeMutableBytes { try file.read(into: $0, at: offset) }
            if read == 0 { break }  // past the end of the file: the log holds the rest
            let whole = read == pageSize
            if !whole || !page.withUnsafeBytes({ check.authenticates($0, number: number) }) { failing.append(number) }
        }
        return failing
    }
}

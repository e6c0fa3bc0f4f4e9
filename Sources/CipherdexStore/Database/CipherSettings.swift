/// The SQLCipher settings a database was created with. SQLCipher does not record them in the
/// file, so they are kept in the store's metadata and applied explicitly on every open; they are
/// chosen to mean the same on SQLCipher 3.x and 4.x.
public struct CipherSettings: Codable, Equatable, Sendable {
    /// Database page size in bytes (`cipher_page_size`).
    public var pageSize: Int
    /// Whether every page carries an HMAC (`cipher_use_hmac`).
    public var useHMAC: Bool
    /// HMAC algorithm (`cipher_hmac_algorithm` on 4.x; 3.x always uses HMAC_SHA1).
    public var hmacAlgorithm: String
    /// Key derivation algorithm for the HMAC subkey (`cipher_kdf_algorithm` on 4.x).
    public var kdfAlgorithm: String
    /// PBKDF2 iterations (`kdf_iter`); unused for a raw key but pinned anyway.
    public var kdfIterations: Int
    /// The page cipher SQLCipher uses (informational: both 3.x and 4.x use AES-256-CBC).
    public var cipher: String

    /// The settings new stores get: 16 KiB pages, HMAC-SHA1 (the one algorithm both 3.x and 4.x
    /// offer), fixed KDF parameters.
    public static let `default` = CipherSettings(
        pageSize: 16384, useHMAC: true, hmacAlgorithm: "HMAC_SHA1", kdfAlgorithm: "PBKDF2_HMAC_SHA1",
        kdfIterations: 64000, cipher: "aes-256-cbc")

    /// The PRAGMA statements that apply these settings; run right after keying a connection.
    var pragmas: [String] {
        let allowedAlgorithms: Set<String> = ["HMAC_SHA1", "HMAC_SHA256", "HMAC_SHA512"]
        let allowedKDF: Set<String> = ["PBKDF2_HMAC_SHA1", "PBKDF2_HMAC_SHA256", "PBKDF2_HMAC_SHA512"]
        var statements = [
            "PRAGMA cipher_page_size = \(pageSize)",
            "PRAGMA kdf_iter = \(kdfIterations)",
            "PRAGMA cipher_use_hmac = \(useHMAC ? "ON" : "OFF")",
        ]
        // Unknown pragmas are ignored by SQLCipher 3.x; 4.x needs them to read 3.x-style files.
        if allowedAlgorithms.contains(hmacAlgorithm) {
            statements.append("PRAGMA cipher_hmac_algorithm = \(hmacAlgorithm)")
        }
        if allowedKDF.contains(kdfAlgorithm) {
            statements.append("PRAGMA cipher_kdf_algorithm = \(kdfAlgorithm)")
        }
        return statements
    }

    /// What is malformed in these settings (damage, not a newer scheme), or nil.
    var malformation: String? {
        guard [1024, 2048, 4096, 8192, 16384, 32768, 65536].contains(pageSize) else {
            return "cipher pageSize \(pageSize) is not a power of two from 1024 to 65536"
        }
        guard kdfIterations > 0 else { return "cipher kdfIterations \(kdfIterations) is not positive" }
        return nil
    }

    /// Whether the values are ones this build can apply.
    var isSupported: Bool {
        [1024, 2048, 4096, 8192, 16384, 32768, 65536].contains(pageSize)
            && ["HMAC_SHA1", "HMAC_SHA256", "HMAC_SHA512"].contains(hmacAlgorithm)
            && ["PBKDF2_HMAC_SHA1", "PBKDF2_HMAC_SHA256", "PBKDF2_HMAC_SHA512"].contains(kdfAlgorithm)
            && kdfIterations > 0 && cipher == "aes-256-cbc"
    }
}

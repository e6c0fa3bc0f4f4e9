/// The version of Cipherdex and of the C libraries it runs on.
public enum CipherdexVersion {
    /// This release of Cipherdex (semantic versioning).
    public static let current = "0.9.0"

    /// The SQLite version SQLCipher is built on, as the loaded library reports it.
    public static var sqlite: String { Connection.sqliteVersion }

    /// The libsodium version, as the loaded library reports it.
    public static var sodium: String { Sodium.versionString }
}

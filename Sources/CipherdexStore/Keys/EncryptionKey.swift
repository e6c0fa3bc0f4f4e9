import Foundation

/// The key an application supplies for an encrypted store: either 32 raw bytes used directly,
/// or a passphrase stretched with Argon2id. The bytes live in locked memory that is zeroed when
/// the last copy of the key goes away; Cipherdex never stores or caches it.
public struct EncryptionKey: Sendable {
    /// Which kind of key this is.
    public enum Kind: String, Codable, Sendable {
        /// Exactly 32 bytes, used directly as a key-encryption key.
        case raw
        /// A passphrase, stretched with Argon2id and a per-store salt.
        case passphrase
    }

    /// Raw keys are exactly this many bytes.
    public static let rawKeyLength = 32

    /// Which kind of key this is.
    public let kind: Kind
    let secret: SecureBytes
    /// A passphrase from an environment variable or a terminal (`passphrase(bytes:)`), which
    /// builds before 2026-12-06 repaired when it was not UTF-8 (`repairedLegacyPassphrase`).
    var cameFromRepairingSource = false

    private init(kind: Kind, secret: SecureBytes) {
        self.kind = kind
        self.secret = secret
    }

    /// A raw key of exactly 32 bytes. Any other length throws `KeyError.invalidLength`.
    /// The caller's copy is not ours to zero; load it as briefly as possible.
    public static func raw<Bytes: Collection>(_ bytes: Bytes) throws -> EncryptionKey where Bytes.Element == UInt8 {
        guard bytes.count == rawKeyLength else { throw KeyError.invalidLength(bytes.count) }
        return EncryptionKey(kind: .raw, secret: SecureBytes(copying: bytes))
    }

    /// A passphrase key. An empty passphrase throws `KeyError.emptyPassphrase`.
    public static func passphrase(_ passphrase: String) throws -> EncryptionKey {
        guard !passphrase.isEmpty else { throw KeyError.emptyPassphrase }
        return EncryptionKey(kind: .passphrase, secret: SecureBytes(copying: passphrase.utf8))
    }

    /// A new random raw key from the operating system's CSPRNG.
    public static func generateRaw() -> EncryptionKey {
        EncryptionKey(kind: .raw, secret: SecureBytes.random(count: rawKeyLength))
    }

    /// Whether `other` is the same key, compared in constant time.
    public func matches(_ other: EncryptionKey) -> Bool {
        kind == other.kind && secret.constantTimeEquals(other.secret)
    }

    /// Builds a key from secret bytes already in secure memory.
    static func fromSecure(kind: Kind, _ secret: SecureBytes) throws -> EncryptionKey {
        switch kind {
        case .raw:
            guard secret.count == rawKeyLength else { throw KeyError.invalidLength(secret.count) }
        case .passphrase:
            guard secret.count > 0 else { throw KeyError.emptyPassphrase }
        }
        return EncryptionKey(kind: kind, secret: secret)
    }
}

/// Supplies the key when the store needs it (opening, rotating). Cipherdex calls it only then,
/// never caches what it returns, and zeroes the bytes once used. It should read the key from
/// secure storage each time and always return the same key.
public typealias KeyProvider = @Sendable () throws -> EncryptionKey

/// A key that cannot be used as given.
public enum KeyError: Error, LocalizedError, Equatable, Sendable {
    /// A raw key must be exactly 32 bytes; this one has the given length.
    case invalidLength(Int)
    /// A passphrase must not be empty.
    case emptyPassphrase
    /// Key text was not 64 hexadecimal digits; the reason says what was wrong (never the text).
    case invalidHex(String)
    /// A key or passphrase source could not be read.
    case unreadable(source: String, reason: String)
    /// The Argon2id cost asked for is outside what an open accepts.
    case unsupportedCost(String)
    /// Text given as a recovery key cannot be one; the reason says why (never the text).
    case recoveryKeyMalformed(String)
    /// The check character of this group (counted from 1) does not match: it was mistyped.
    case recoveryKeyGroupMistyped(group: Int)
    /// The store has no keyslot with this id.
    case noSuchKeyslot(Int)
    /// The store's last keyslot cannot be removed: without it nothing opens the store.
    case lastKeyslot(Int)
    /// The store already holds the most keyslots it may (`StoreMetadata.maximumKeyslots`).
    case tooManyKeyslots(Int)
    /// A keyslot label must be 1 to 64 printable characters.
    case invalidLabel(String)
    /// The new key already opens this keyslot: a second slot for it would keep it working after
    /// `rotateKey` or `removeKey` of either (nothing was changed).
    case keyAlreadyInSlot(Int)

    /// A one-line description that never contains key material.
    public var errorDescription: String? {
        switch self {
        case .invalidLength(let length):
            return "a raw key must be exactly 32 bytes, got \(length)"
        case .emptyPassphrase:
            return "the passphrase is empty"
        case .invalidHex(let reason):
            return "key text is not 64 hexadecimal digits: \(reason)"
        case .unreadable(let source, let reason):
            return "cannot read key from \(source): \(reason)"
        case .unsupportedCost(let reason):
            return "unsupported passphrase cost: \(reason)"
        case .recoveryKeyMalformed(let reason):
            return "not a recovery key: \(reason)"
        case .recoveryKeyGroupMistyped(let group):
            return "recovery key group \(group) is mistyped (its check character does not match)"
        case .noSuchKeyslot(let id):
            return "the store has no keyslot \(id)"
        case .lastKeyslot(let id):
            return "keyslot \(id) is the store's last key; add another before removing it"
        case .tooManyKeyslots(let limit):
            return "the store already holds \(limit) keyslots, the most it may"
        case .invalidLabel(let reason):
            return "invalid keyslot label: \(reason)"
        case .keyAlreadyInSlot(let id):
            return "the new key already opens keyslot \(id); a second slot for it would keep it working after a "
                + "rekey or removal of either"
        }
    }
}

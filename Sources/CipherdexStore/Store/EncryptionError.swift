import Foundation

/// Why an encrypted (or unencrypted) store could not be opened: exactly the reasons an
/// application must tell apart to respond (as in Ditto's encryption at rest).
/// A failed open never modifies any file of the store.
public enum EncryptionError: Error, LocalizedError, Equatable, Sendable {
    /// The store is encrypted and no key was supplied.
    case keyRequired
    /// The store is unencrypted and a key was supplied.
    case keyUnexpected
    /// The supplied key opens none of the store's keyslots: it is the wrong key.
    case keyInvalid
    /// The store uses a format or scheme this build does not support (`found` is its version).
    case unsupportedScheme(found: Int, supported: Int)
    /// The store's metadata file is missing, unreadable, damaged or fails authentication.
    case metadataCorrupt(reason: String)

    /// The case's name, as the CLI prints it.
    public var name: String {
        switch self {
        case .keyRequired: return "keyRequired"
        case .keyUnexpected: return "keyUnexpected"
        case .keyInvalid: return "keyInvalid"
        case .unsupportedScheme: return "unsupportedScheme"
        case .metadataCorrupt: return "metadataCorrupt"
        }
    }

    /// A one-line description.
    public var errorDescription: String? {
        switch self {
        case .keyRequired:
            return "the store is encrypted and no key was supplied"
        case .keyUnexpected:
            return "the store is not encrypted but a key was supplied"
        case .keyInvalid:
            return "the key does not open this store (wrong key)"
        case .unsupportedScheme(let found, let supported) where found > supported:
            // `found` is the metadata's format version or a migration number (`info`'s
            // "schema"): a newer build wrote either (upgrade audit 28: "format version 1010").
            return "the store was written by a newer build of Cipherdex (its format or schema version is \(found); "
                + "this build supports up to \(supported)): open it with that build or a newer one"
        case .unsupportedScheme(let found, _):
            return "the store uses a cipher, HMAC, key derivation or keyslot algorithm this build does not know "
                + "(format version \(found))"
        case .metadataCorrupt(let reason):
            return "the store's metadata is corrupt: \(reason)"
        }
    }
}

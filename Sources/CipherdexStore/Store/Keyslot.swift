import Foundation

/// One wrapped copy of the store's data key, sealed with XChaCha20-Poly1305 under a key-encryption
/// key: the application's raw key itself, or Argon2id of its passphrase with `kdf`.
struct Keyslot: Codable, Equatable, Sendable {
    /// Argon2id parameters of a passphrase keyslot.
    struct PassphraseKDF: Codable, Equatable, Sendable {
        /// Always `argon2id13`.
        var algorithm: String
        /// Argon2id passes.
        var opsLimit: UInt64
        /// Argon2id memory in bytes.
        var memLimit: Int
        /// Random per-slot salt (16 bytes, base64).
        var salt: Base64Bytes
    }

    /// Slot number, unique within the store.
    var id: Int
    /// `raw` or `passphrase`.
    var kind: EncryptionKey.Kind
    /// Present for passphrase slots.
    var kdf: PassphraseKDF?
    /// Always `xchacha20poly1305-ietf`.
    var aead: String
    /// 24-byte random nonce.
    var nonce: Base64Bytes
    /// The sealed data key (32 bytes + 16-byte tag).
    var wrappedKey: Base64Bytes
    /// A name the user chose (`recovery` for a recovery key); absent in slots of older stores.
    var label: String?
    /// When the slot was added, in whole seconds since 1970; absent in slots of older stores.
    var createdAt: Int64?

    /// The label of the slot `Store.addRecoveryKey()` adds.
    static let recoveryLabel = "recovery"
    /// The longest label, in bytes of UTF-8.
    static let maximumLabelBytes = 64

    /// Throws `KeyError.invalidLabel` unless `label` is 1 to 64 bytes without control characters.
    static func checkLabel(_ label: String) throws {
        guard !label.isEmpty, label.utf8.count <= maximumLabelBytes else {
            throw KeyError.invalidLabel("it must be 1 to \(maximumLabelBytes) bytes of UTF-8")
        }
        guard !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw KeyError.invalidLabel("it holds a control character")
        }
    }

    static let aeadName = "xchacha20poly1305-ietf"
    static let kdfName = "argon2id13"

    /// Associated data binding a slot to its store and its own fields, so slots cannot be moved
    /// between stores or have their parameters swapped.
    static func associatedData(storeID: String, slotID: Int, kind: EncryptionKey.Kind, kdf: PassphraseKDF?) -> [UInt8] {
        var text = "cipherdex-keyslot-v1|\(storeID)|\(slotID)|\(kind.rawValue)"
        if let kdf {
            text += "|\(kdf.algorithm)|\(kdf.opsLimit)|\(kdf.memLimit)|\(kdf.salt.base64)"
        }
        return Array(text.utf8)
    }

    /// Throws unless an open would accept a slot of this cost (see `StoreMetadata`'s range
    /// checks): a store must never be created or rekeyed into one it cannot open.
    static func checkAccepted(_ cost: PassphraseCost) throws {
        guard PassphraseCost.acceptedOpsLimits.contains(cost.opsLimit),
            PassphraseCost.acceptedMemLimits.contains(cost.memLimit)
        else {
            throw KeyError.unsupportedCost(
                "Argon2id cost \(cost.opsLimit) passes over \(cost.memLimit) bytes is outside "
                    + "\(PassphraseCost.acceptedOpsLimits) passes and \(PassphraseCost.acceptedMemLimits) bytes")
        }
    }

    /// Wraps `dataKey` with `key` into a new slot.
    static func seal(
        dataKey: SecureBytes, with key: EncryptionKey, slotID: Int, storeID: String, cost: PassphraseCost,
        label: String? = nil
    ) throws -> Keyslot {
        if let label { try checkLabel(label) }
        var kdf: PassphraseKDF?
        if key.kind == .passphrase {
            try checkAccepted(cost)
            kdf = PassphraseKDF(
                algorithm: kdfName, opsLimit: cost.opsLimit, memLimit: cost.memLimit,
                salt: Base64Bytes(Sodium.randomBytes(Sodium.passwordSaltBytes)))
        }
        let kek = try keyEncryptionKey(for: key, kdf: kdf)
        let nonce = Sodium.randomBytes(Sodium.aeadNonceBytes)
        let sealed = Sodium.seal(
            dataKey, key: kek, nonce: nonce,
            associatedData: associatedData(storeID: storeID, slotID: slotID, kind: key.kind, kdf: kdf))
        return Keyslot(
            id: slotID, kind: key.kind, kdf: kdf, aead: aeadName, nonce: Base64Bytes(nonce),
            wrappedKey: Base64Bytes(sealed), label: label, createdAt: Int64(Date().timeIntervalSince1970))
    }

    /// The data key when `key` opens this slot, nil otherwise.
    func unwrap(with key: EncryptionKey, storeID: String) throws -> SecureBytes? {
        guard key.kind == kind, aead == Self.aeadName else { return nil }
        let kek = try Self.keyEncryptionKey(for: key, kdf: kdf)
        return Sodium.open(
            wrappedKey.bytes, key: kek, nonce: nonce.bytes,
            associatedData: Self.associatedData(storeID: storeID, slotID: id, kind: kind, kdf: kdf))
    }

    /// What is malformed in this slot (damage, not a newer scheme), or nil: a nonce or salt of
    /// the wrong length, a raw slot with a key derivation or a passphrase slot without one.
    var malformation: String? {
        if aead == Self.aeadName && nonce.bytes.count != Sodium.aeadNonceBytes {
            return "keyslot \(id)'s nonce is \(nonce.bytes.count) bytes, not \(Sodium.aeadNonceBytes)"
        }
        switch kind {
        case .raw where kdf != nil: return "keyslot \(id) holds a raw key but names a key derivation"
        case .passphrase where kdf == nil: return "keyslot \(id) holds a passphrase but no key derivation"
        default: break
        }
        if let kdf, kdf.algorithm == Self.kdfName, kdf.salt.bytes.count != Sodium.passwordSaltBytes {
            return "keyslot \(id)'s salt is \(kdf.salt.bytes.count) bytes, not \(Sodium.passwordSaltBytes)"
        }
        return nil
    }

    /// Whether this build understands the slot's algorithms and parameters.
    var isSupported: Bool {
        guard aead == Self.aeadName, nonce.bytes.count == Sodium.aeadNonceBytes else { return false }
        switch kind {
        case .raw: return kdf == nil
        case .passphrase:
            guard let kdf else { return false }
            return kdf.algorithm == Self.kdfName && kdf.salt.bytes.count == Sodium.passwordSaltBytes
        }
    }

    private static func keyEncryptionKey(for key: EncryptionKey, kdf: PassphraseKDF?) throws -> SecureBytes {
        switch key.kind {
        case .raw:
            return key.secret
        case .passphrase:
            guard let kdf,
                let derived = try Sodium.argon2id(
                    passphrase: key.secret, salt: kdf.salt.bytes, opsLimit: kdf.opsLimit, memLimit: kdf.memLimit)
            else {
                throw EncryptionError.metadataCorrupt(reason: "passphrase keyslot has unusable Argon2id parameters")
            }
            return derived
        }
    }
}

/// Bytes stored in JSON as base64 text.
struct Base64Bytes: Codable, Equatable, Sendable {
    /// The bytes.
    var bytes: [UInt8]

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// The base64 text.
    var base64: String { Data(bytes).base64EncodedString() }

    init(from decoder: Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let data = Data(base64Encoded: text) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not base64"))
        }
        bytes = Array(data)
    }

    func encode(to encoder: Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(base64)
    }
}

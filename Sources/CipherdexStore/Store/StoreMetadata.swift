import Foundation

/// The store's metadata file (`metadata.json`): everything needed to open the store and nothing
/// of the user's data. Written atomically; authenticated by a MAC made with a key derived from
/// the data key, and protected against accidental damage by a checksum.
struct StoreMetadata: Codable, Equatable, Sendable {
    /// The format version this build writes and the newest it reads.
    static let currentFormatVersion = 1
    /// File name inside the store directory.
    static let fileName = "metadata.json"
    /// The largest metadata file an open reads (32 keyslots take about 16 KiB).
    static let maximumFileSize = 1 << 20
    /// The most keyslots a store may hold.
    static let maximumKeyslots = 32
    /// The most Argon2id work, passes times bytes summed over the passphrase keyslots, that an open
    /// spends: four slots at the largest cost one accepts (16 passes over 1 GiB, about 20 s each
    /// here). Costs are read before anything can authenticate them, so without it an edited
    /// metadata file could ask for 32 such slots (about 10 minutes) before `keyInvalid`. New
    /// passphrase slots are refused past it (`checkTotalKDFWork`); an open stops deriving before a
    /// slot that would pass it (`Store.unwrapDataKey`).
    static let maximumTotalKDFWork: UInt64 = 4 * 16 * (1 << 30)

    /// The Argon2id work (passes times bytes) the passphrase slots of `keyslots` ask for.
    static func totalKDFWork(_ keyslots: [Keyslot]) -> UInt64 {
        keyslots.reduce(0) { total, slot in
            guard let kdf = slot.kdf else { return total }
            return total &+ kdf.opsLimit &* UInt64(max(0, kdf.memLimit))
        }
    }

    /// Throws `KeyError.unsupportedCost` when `key` is a passphrase and `keyslots` and its new
    /// slot sealed at `cost` would ask for more work than `maximumTotalKDFWork` (checked before
    /// the new slot's derivation). A raw or recovery key derives nothing: it is never refused so,
    /// even on a store whose slots already ask for more (an older build's library allowed it).
    static func checkTotalKDFWork(_ keyslots: [Keyslot], adding key: EncryptionKey, cost: PassphraseCost) throws {
        guard key.kind == .passphrase else { return }
        let total = totalKDFWork(keyslots) &+ cost.opsLimit &* UInt64(max(0, cost.memLimit))
        guard total <= maximumTotalKDFWork else {
            throw KeyError.unsupportedCost(
                "the passphrase keyslots together would ask for \(total >> 30) GiB-passes of Argon2id, more than an "
                    + "open accepts (\(maximumTotalKDFWork >> 30)); give the new key a lower cost or remove a slot")
        }
    }

    /// Format/scheme version; checked before anything else is read.
    var formatVersion: Int
    /// Random identifier of the store (hex), bound into keyslots and the MAC.
    var storeID: String
    /// Whether the database and attachments are encrypted.
    var encrypted: Bool
    /// Incremented on every metadata update.
    var generation: Int
    /// Which generation of the database and attachments is current (`StoreLayout`); absent
    /// (generation 0: `store.db`, `attachments/`) until a re-encryption or conversion.
    var dataGeneration: Int?
    /// SQLCipher settings, applied on every open (nil for an unencrypted store).
    var cipher: CipherSettings?
    /// Wrapped copies of the data key (empty for an unencrypted store).
    var keyslots: [Keyslot]
    /// Keyed BLAKE2b-256 over the canonical encoding without `mac` and `checksum`.
    var mac: Base64Bytes?
    /// Unkeyed BLAKE2b-256 over the canonical encoding without `checksum`.
    var checksum: Base64Bytes?

    /// The canonical bytes authenticated by the MAC and checksum: sorted keys, no whitespace.
    func canonicalBytes(includingMAC: Bool) throws -> [UInt8] {
        var copy = self
        copy.checksum = nil
        if !includingMAC { copy.mac = nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(copy))
    }

    /// The MAC key: a subkey of the data key, so only a holder of the data key can forge metadata.
    static func macKey(dataKey: SecureBytes) -> SecureBytes {
        Sodium.deriveSubkey(from: dataKey, id: 1, context: "cdxmeta1")
    }

    /// Fills in `mac` (when a data key is given) and `checksum`, and returns the file's bytes.
    mutating func seal(dataKey: SecureBytes?) throws -> [UInt8] {
        mac = nil
        if let dataKey {
            mac = Base64Bytes(Sodium.mac(try canonicalBytes(includingMAC: false), key: Self.macKey(dataKey: dataKey)))
        }
        checksum = Base64Bytes(Sodium.checksum(try canonicalBytes(includingMAC: true)))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return Array(try encoder.encode(self)) + [0x0A]
    }

    /// The metadata file at `path` as it is now, parsed and checked but not authenticated (no
    /// key, no lock): nil when it cannot be read or does not parse. For choosing an error or
    /// telling which generation a rename left current; an open checks everything again.
    static func onDisk(at path: String) -> StoreMetadata? {
        guard let bytes = try? FileSystem.readRegularFile(path, limit: maximumFileSize) else { return nil }
        return try? parse(bytes)
    }

    /// `onDisk(at:)`, but a file the system could not read throws its typed error: only a file
    /// that is missing (`ENOENT`, `ENOTDIR`), not a regular file, too large, or does not parse is
    /// nil. Any other failure (out of file descriptors or memory, a failing device, no
    /// permission, a stale network handle) throws, whatever its errno (an allow-list of "cannot
    /// tell" errnos let `ESTALE` or `ETIMEDOUT` read as "no metadata": review 27); a file
    /// rewritten while read throws `StoreError.changedMeanwhile`. For decisions that remove
    /// files by what the metadata says.
    static func onDiskUnlessUnreadable(at path: String) throws -> StoreMetadata? {
        let bytes: [UInt8]
        do {
            bytes = try FileSystem.readRegularFile(path, limit: maximumFileSize)
        } catch let error as SystemError {
            if error.errno == ENOENT || error.errno == ENOTDIR { return nil }
            throw StoreError.classifying(error)
        } catch let error as RegularFileError {
            switch error {
            case .notRegularFile, .tooLarge, .sizeUnknown: return nil
            case .changedWhileReading:
                // Rewritten in place while read: typed, as a caller's user is told (review 28).
                throw StoreError.changedMeanwhile(path: path, operation: "read")
            }
        }
        return try? parse(bytes)
    }

    /// Which field of the metadata did not decode, and how (never its value).
    static func fieldProblem(_ error: Error) -> String {
        guard let error = error as? DecodingError else { return "metadata fields are missing or malformed" }
        func name(_ path: [CodingKey]) -> String {
            let joined = path.map { key in key.intValue.map { "[\($0)]" } ?? "." + key.stringValue }.joined()
            return joined.hasPrefix(".") ? String(joined.dropFirst()) : joined
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "metadata lacks the field \(name(context.codingPath + [key]))"
        case .valueNotFound(_, let context), .typeMismatch(_, let context):
            return "metadata field \(name(context.codingPath)) has a value of the wrong type"
        case .dataCorrupted(let context):
            return "metadata field \(name(context.codingPath)) is malformed"
        @unknown default:
            return "metadata fields are missing or malformed"
        }
    }

    /// Parses and checks a metadata file: version first (`unsupportedScheme`), then structure
    /// and checksum (`metadataCorrupt`). The MAC needs the data key: see `verifyMAC`.
    static func parse(_ bytes: [UInt8]) throws -> StoreMetadata {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            throw EncryptionError.metadataCorrupt(
                reason: "metadata is not a JSON object (not JSON, or nested too deeply to read)")
        }
        guard let version = object["formatVersion"] as? Int else {
            throw EncryptionError.metadataCorrupt(reason: "metadata has no integer formatVersion")
        }
        guard version <= currentFormatVersion else {
            throw EncryptionError.unsupportedScheme(found: version, supported: currentFormatVersion)
        }
        guard version >= 1 else {
            throw EncryptionError.metadataCorrupt(reason: "formatVersion \(version) is not valid")
        }
        // Then strict JSON (after the version, so a newer format stays `unsupportedScheme`): a
        // member named twice would be read as its first value here and as its last by other
        // readers (Python's `json`, `tools/cipherdex-recover`), so it is refused.
        do {
            guard case .object = try JSONValue(parsing: bytes) else {
                throw EncryptionError.metadataCorrupt(reason: "metadata is not a JSON object")
            }
        } catch let error as DocumentError {
            if case .invalidJSON(let reason) = error, reason.hasPrefix("duplicate member name") {
                throw EncryptionError.metadataCorrupt(reason: "metadata names a member twice (\(reason))")
            }
            throw EncryptionError.metadataCorrupt(reason: "metadata is not valid JSON")
        }
        let metadata: StoreMetadata
        do {
            metadata = try JSONDecoder().decode(StoreMetadata.self, from: Data(bytes))
        } catch {
            throw EncryptionError.metadataCorrupt(reason: Self.fieldProblem(error))
        }
        guard let checksum = metadata.checksum,
            Sodium.constantTimeEquals(checksum.bytes, Sodium.checksum(try metadata.canonicalBytes(includingMAC: true)))
        else {
            throw EncryptionError.metadataCorrupt(reason: "metadata checksum does not match (the file is damaged)")
        }
        try metadata.checkRanges()
        if metadata.encrypted {
            guard let cipher = metadata.cipher, !metadata.keyslots.isEmpty, metadata.mac != nil else {
                throw EncryptionError.metadataCorrupt(
                    reason: "encrypted store metadata lacks cipher settings, keyslots or MAC")
            }
            if let malformation = cipher.malformation ?? metadata.keyslots.lazy.compactMap(\.malformation).first {
                throw EncryptionError.metadataCorrupt(reason: malformation)
            }
            guard cipher.isSupported, metadata.keyslots.allSatisfy(\.isSupported) else {
                throw EncryptionError.unsupportedScheme(found: version, supported: currentFormatVersion)
            }
        } else if !metadata.keyslots.isEmpty || metadata.cipher != nil {
            throw EncryptionError.metadataCorrupt(reason: "unencrypted store metadata holds keyslots")
        }
        return metadata
    }

    /// Range-checks every value an open uses before the MAC can be checked: anyone can edit the
    /// file and recompute its unkeyed checksum, so nothing here may make an open run unbounded
    /// work (Argon2id cost, slot count) or allocate without bound.
    private func checkRanges() throws {
        func corrupt(_ reason: String) -> EncryptionError { .metadataCorrupt(reason: reason) }
        guard storeID.utf8.count == 32,
            storeID.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x66).contains($0) })
        else { throw corrupt("storeID is not 32 lowercase hex digits") }
        guard generation >= 1 else { throw corrupt("generation \(generation) is not positive") }
        if let dataGeneration {
            guard (0...Self.maximumDataGeneration).contains(dataGeneration) else {
                throw corrupt("dataGeneration \(dataGeneration) is outside 0...\(Self.maximumDataGeneration)")
            }
        }
        guard keyslots.count <= Self.maximumKeyslots else {
            throw corrupt("\(keyslots.count) keyslots; at most \(Self.maximumKeyslots) are allowed")
        }
        guard Set(keyslots.map(\.id)).count == keyslots.count else { throw corrupt("two keyslots share an id") }
        if let cipher {
            guard (1...Self.maximumKDFIterations).contains(cipher.kdfIterations) else {
                throw corrupt("kdf_iter \(cipher.kdfIterations) is outside 1...\(Self.maximumKDFIterations)")
            }
        }
        for slot in keyslots {
            guard (0...Int(Int32.max)).contains(slot.id) else { throw corrupt("keyslot id \(slot.id) is out of range") }
            if let label = slot.label {
                guard (try? Keyslot.checkLabel(label)) != nil else {
                    throw corrupt("keyslot \(slot.id) has an invalid label")
                }
            }
            guard slot.wrappedKey.bytes.count == Sodium.aeadTagBytes + 32 else {
                throw corrupt("keyslot \(slot.id) holds \(slot.wrappedKey.bytes.count) wrapped bytes, not 48")
            }
            if let kdf = slot.kdf {
                guard PassphraseCost.acceptedOpsLimits.contains(kdf.opsLimit),
                    PassphraseCost.acceptedMemLimits.contains(kdf.memLimit)
                else {
                    throw corrupt(
                        "keyslot \(slot.id) asks for Argon2id cost \(kdf.opsLimit) passes over \(kdf.memLimit) bytes, "
                            + "outside what an open accepts (\(PassphraseCost.acceptedOpsLimits) passes, "
                            + "\(PassphraseCost.acceptedMemLimits) bytes)")
                }
            }
        }
        // The slots' total work is bounded where it is spent, slot by slot as one open derives
        // (`Store.unwrapDataKey`), not here: a store whose slots together ask for more (an older
        // build's library allowed it) opens with a raw or recovery key, and with a passphrase
        // whose slot comes early enough (upgrade audit 1: it was `metadataCorrupt` with any key).
    }

    /// The highest data generation (`StoreLayout.generation(of:)` reads at most nine digits).
    static let maximumDataGeneration = 999_999_999

    /// The generation of the database and attachments the metadata names.
    var currentDataGeneration: Int { dataGeneration ?? 0 }

    /// The most PBKDF2 iterations recorded cipher settings may ask for.
    static let maximumKDFIterations = 1_000_000

    /// Checks the MAC with the data key; a mismatch means the metadata was altered.
    func verifyMAC(dataKey: SecureBytes) throws {
        guard let mac,
            Sodium.constantTimeEquals(
                mac.bytes, Sodium.mac(try canonicalBytes(includingMAC: false), key: Self.macKey(dataKey: dataKey)))
        else {
            throw EncryptionError.metadataCorrupt(reason: "metadata authentication failed (the file was altered)")
        }
    }
}

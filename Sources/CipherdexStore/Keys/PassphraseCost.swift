/// Argon2id cost parameters for passphrase keys. They are recorded in each passphrase keyslot, so
/// a store keeps opening after the defaults change, and raising them is a key rotation.
public struct PassphraseCost: Codable, Equatable, Sendable {
    /// Passes over memory (`opslimit`).
    public var opsLimit: UInt64
    /// Memory in bytes (`memlimit`).
    public var memLimit: Int

    /// Creates cost parameters.
    public init(opsLimit: UInt64, memLimit: Int) {
        self.opsLimit = opsLimit
        self.memLimit = memLimit
    }

    /// The default: 3 passes over 128 MiB, about 0.2 s on the reference machine
    /// (see BENCHMARKS.md).
    public static let `default` = PassphraseCost(opsLimit: 3, memLimit: 128 << 20)

    /// The Argon2id passes an open accepts from a keyslot (the metadata's cost is read before
    /// it can be authenticated, so it is capped: at most 1 GiB and 16 passes, about 20 s here).
    public static let acceptedOpsLimits: ClosedRange<UInt64> = Sodium.minimumOpsLimit...16
    /// The Argon2id memory, in bytes, an open accepts from a keyslot.
    public static let acceptedMemLimits: ClosedRange<Int> = Sodium.minimumMemLimit...(1 << 30)

    /// libsodium's minimum; for tests only, never for real data.
    public static let minimumForTesting = PassphraseCost(
        opsLimit: Sodium.minimumOpsLimit, memLimit: Sodium.minimumMemLimit)
}

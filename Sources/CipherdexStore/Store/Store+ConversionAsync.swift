extension Store {
    /// A conversion progress handler that async code can hand to Cipherdex's queue: return false
    /// to cancel (the old generation stays current).
    public typealias SendableConversionProgressHandler = @Sendable (StoreConversionProgress) -> Bool

    /// The async form of `reencrypt(_:newKey:progress:)`: runs on Cipherdex's own queue, never on
    /// Swift's cooperative pool.
    ///
    /// Cancellation: the conversion stops at its next check (before the database copy, between
    /// attachments and their pieces, before the switch) with `CancellationError`; the new
    /// generation's files are removed and the store is unchanged. The database copy itself and
    /// Argon2id for a passphrase cannot be interrupted. Once the switch has started the
    /// conversion completes. Disfavoured as `reencrypt` is.
    @_disfavoredOverload
    @discardableResult
    public static func reencryptAsync(
        _ configuration: StoreConfiguration, newKey: KeyProvider? = nil,
        progress: SendableConversionProgressHandler? = nil
    ) async throws -> [StoreInfo.KeyslotInfo] {
        try await BlockingWork.run { cancellation in
            try reencrypt(configuration, newKey: newKey, progress: progress, cancellation: cancellation)
        }
    }

    /// The async form of `encrypt(_:newKey:progress:)`, cancelled as `reencryptAsync` is.
    /// Disfavoured as `encrypt` is.
    @_disfavoredOverload
    public static func encryptAsync(
        _ configuration: StoreConfiguration, newKey: @escaping KeyProvider,
        progress: SendableConversionProgressHandler? = nil
    ) async throws {
        try await BlockingWork.run { cancellation in
            try encrypt(configuration, newKey: newKey, progress: progress, cancellation: cancellation)
        }
    }

    /// The async form of `decrypt(_:progress:)`, cancelled as `reencryptAsync` is. Disfavoured
    /// as `decrypt` is.
    @_disfavoredOverload
    public static func decryptAsync(
        _ configuration: StoreConfiguration, progress: SendableConversionProgressHandler? = nil
    ) async throws {
        try await BlockingWork.run { cancellation in
            try decrypt(configuration, progress: progress, cancellation: cancellation)
        }
    }
}

extension Store {
    /// `reencryptAsync(_:newKey:progress:)` of a store opened with `features` (see
    /// `reencrypt(_:features:newKey:progress:)`).
    @discardableResult
    package static func reencryptAsync(
        _ configuration: StoreConfiguration, features: [StoreFeature], newKey: KeyProvider? = nil,
        progress: SendableConversionProgressHandler? = nil
    ) async throws -> [StoreInfo.KeyslotInfo] {
        var configuration = configuration
        configuration.features = features
        return try await reencryptAsync(configuration, newKey: newKey, progress: progress)
    }

    /// `encryptAsync(_:newKey:progress:)` of a store opened with `features`.
    package static func encryptAsync(
        _ configuration: StoreConfiguration, features: [StoreFeature], newKey: @escaping KeyProvider,
        progress: SendableConversionProgressHandler? = nil
    ) async throws {
        var configuration = configuration
        configuration.features = features
        try await encryptAsync(configuration, newKey: newKey, progress: progress)
    }

    /// `decryptAsync(_:progress:)` of a store opened with `features`.
    package static func decryptAsync(
        _ configuration: StoreConfiguration, features: [StoreFeature],
        progress: SendableConversionProgressHandler? = nil
    ) async throws {
        var configuration = configuration
        configuration.features = features
        try await decryptAsync(configuration, progress: progress)
    }
}

extension Store {
    /// Opens the store like `open(_:)` with `features` (full-text search) added to the store's
    /// own: their migrations run in the open's transaction and every connection is configured
    /// for them. `import Cipherdex` gives an `open(_:)` that passes search.
    package static func open(_ configuration: StoreConfiguration, features: [StoreFeature]) throws -> Store {
        var configuration = configuration
        configuration.features = features
        return try open(configuration)
    }

    /// The async form of `open(_:features:)`.
    package static func openAsync(_ configuration: StoreConfiguration, features: [StoreFeature]) async throws -> Store {
        var configuration = configuration
        configuration.features = features
        return try await openAsync(configuration)
    }
}

extension Store {
    /// `reencrypt(_:newKey:progress:)` of a store opened with `features`: each feature's
    /// `contentKeyChanged` runs on the new generation. `import Cipherdex`'s `reencrypt` passes
    /// search (whose content hashes are keyed with the deduplication key).
    @discardableResult
    package static func reencrypt(
        _ configuration: StoreConfiguration, features: [StoreFeature], newKey: KeyProvider? = nil,
        progress: ConversionProgressHandler? = nil
    ) throws -> [StoreInfo.KeyslotInfo] {
        var configuration = configuration
        configuration.features = features
        return try reencrypt(configuration, newKey: newKey, progress: progress)
    }

    /// `encrypt(_:newKey:progress:)` of a store opened with `features` (see `reencrypt`).
    package static func encrypt(
        _ configuration: StoreConfiguration, features: [StoreFeature], newKey: @escaping KeyProvider,
        progress: ConversionProgressHandler? = nil
    ) throws {
        var configuration = configuration
        configuration.features = features
        try encrypt(configuration, newKey: newKey, progress: progress)
    }

    /// `decrypt(_:progress:)` of a store opened with `features` (see `reencrypt`).
    package static func decrypt(
        _ configuration: StoreConfiguration, features: [StoreFeature], progress: ConversionProgressHandler? = nil
    ) throws {
        var configuration = configuration
        configuration.features = features
        try decrypt(configuration, progress: progress)
    }
}

extension Store {
    /// Whether the calling thread is running one of this store's transactions (a feature must
    /// not wait there for work that needs the writer).
    package var isInTransactionOnCurrentThread: Bool {
        changeObservers.transactionOnCurrentThread() != nil
    }

    /// Whether the calling thread holds one of this store's connections: inside `read` (a
    /// reader slot) or a transaction (the writer). Work that needs a connection must not be
    /// waited for there: with every reader slot held by waiting threads it could never start.
    package var holdsConnectionOnCurrentThread: Bool {
        isInTransactionOnCurrentThread || pool.holdsReaderOrWriter
    }
}

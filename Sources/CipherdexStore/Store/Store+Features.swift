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
    /// Whether the calling thread is running one of this store's transactions (a feature must
    /// not wait there for work that needs the writer).
    package var isInTransactionOnCurrentThread: Bool {
        changeObservers.transactionOnCurrentThread() != nil
    }
}

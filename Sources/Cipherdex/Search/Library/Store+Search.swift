extension Store {
    /// Opens the store at `configuration.path` with full-text search, creating it when the path
    /// does not exist or is an empty directory (encrypted when a key provider is configured).
    ///
    /// This is `CipherdexStore`'s `Store.open(_:)` with the search index's tables and tokenizers
    /// added: a store created without search gets them here, in the open's transaction, after
    /// the key and the database are verified. A failed open leaves every file unchanged.
    public static func open(_ configuration: StoreConfiguration) throws -> Store {
        try open(configuration, features: [SearchFeature.feature])
    }

    /// The async form of `open(_:)` with full-text search (named apart so that `try Store.open(…)`
    /// keeps compiling inside async functions): the key derivation and checks run on Cipherdex's
    /// own queue, and a cancelled task returns at once while the open is abandoned (see
    /// `CipherdexStore`'s `openAsync`).
    public static func openAsync(_ configuration: StoreConfiguration) async throws -> Store {
        try await openAsync(configuration, features: [SearchFeature.feature])
    }

    /// Re-encrypts the store under a new data key (`CipherdexStore`'s `reencrypt`, which see),
    /// with full-text search: the index's content hashes, keyed with the deduplication key, are
    /// keyed again in the new generation, so unchanged documents are not indexed again.
    @discardableResult
    public static func reencrypt(
        _ configuration: StoreConfiguration, newKey: KeyProvider? = nil, progress: ConversionProgressHandler? = nil
    ) throws -> [StoreInfo.KeyslotInfo] {
        try reencrypt(configuration, features: [SearchFeature.feature], newKey: newKey, progress: progress)
    }

    /// Encrypts the unencrypted store in place (`CipherdexStore`'s `encrypt`, which see), with
    /// full-text search (its content hashes keyed again, as in `reencrypt`).
    public static func encrypt(
        _ configuration: StoreConfiguration, newKey: @escaping KeyProvider, progress: ConversionProgressHandler? = nil
    ) throws {
        try encrypt(configuration, features: [SearchFeature.feature], newKey: newKey, progress: progress)
    }

    /// Decrypts the encrypted store in place (`CipherdexStore`'s `decrypt`, which see), with
    /// full-text search (its content hashes keyed again, as in `reencrypt`).
    public static func decrypt(_ configuration: StoreConfiguration, progress: ConversionProgressHandler? = nil) throws {
        try decrypt(configuration, features: [SearchFeature.feature], progress: progress)
    }

    /// The async form of `reencrypt(_:newKey:progress:)` with full-text search (see
    /// `CipherdexStore`'s `reencryptAsync` for what cancellation does).
    @discardableResult
    public static func reencryptAsync(
        _ configuration: StoreConfiguration, newKey: KeyProvider? = nil,
        progress: SendableConversionProgressHandler? = nil
    ) async throws -> [StoreInfo.KeyslotInfo] {
        try await reencryptAsync(configuration, features: [SearchFeature.feature], newKey: newKey, progress: progress)
    }

    /// The async form of `encrypt(_:newKey:progress:)` with full-text search.
    public static func encryptAsync(
        _ configuration: StoreConfiguration, newKey: @escaping KeyProvider,
        progress: SendableConversionProgressHandler? = nil
    ) async throws {
        try await encryptAsync(configuration, features: [SearchFeature.feature], newKey: newKey, progress: progress)
    }

    /// The async form of `decrypt(_:progress:)` with full-text search.
    public static func decryptAsync(
        _ configuration: StoreConfiguration, progress: SendableConversionProgressHandler? = nil
    ) async throws {
        try await decryptAsync(configuration, features: [SearchFeature.feature], progress: progress)
    }

    /// Full-text search over this store's documents (created on first use). Every store opened
    /// where `Cipherdex` is imported has search (its `open(_:)` is the one called); package code
    /// that opens a store with `open(_:features: [])` must not use this.
    public var library: SearchLibrary {
        featureState(SearchFeature.identifier) { SearchLibrary(store: $0) }
    }
}

extension SearchLibrary: StoreFeatureState {
    /// Stops indexing and the extraction helpers when the store closes.
    package func finishQueuedWork() { waitForQueuedDocuments() }

    package func finishQueuedWorkAsync() async { await waitForQueuedDocumentsAsync() }

    package func storeWillClose() { shutdown() }
}

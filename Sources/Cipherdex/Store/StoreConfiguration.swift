/// How to open (or create) a store.
public struct StoreConfiguration: Sendable {
    /// The store's directory. Created with the store when it does not exist.
    public var path: String
    /// Supplies the key; nil opens or creates an unencrypted store (encryption is opt-in).
    public var keyProvider: KeyProvider?
    /// Argon2id cost for new passphrase keyslots (existing slots keep their recorded cost).
    public var passphraseCost: PassphraseCost
    /// Most concurrent reader connections.
    public var maximumReaders: Int
    /// Whether opening a path with no store creates one (default) or fails with `notAStore`.
    public var createIfMissing: Bool

    /// A configuration for the store at `path`, encrypted with `keyProvider`'s key when given.
    public init(
        path: String, keyProvider: KeyProvider? = nil, passphraseCost: PassphraseCost = .default,
        maximumReaders: Int = 4, createIfMissing: Bool = true
    ) {
        self.path = path
        self.keyProvider = keyProvider
        self.passphraseCost = passphraseCost
        self.maximumReaders = maximumReaders
        self.createIfMissing = createIfMissing
    }
}

/// How to open (or create) a store.
public struct StoreConfiguration: Sendable {
    /// The store's directory. Created with the store when it does not exist.
    public var path: String
    /// Supplies the key; nil opens or creates an unencrypted store (encryption is opt-in).
    public var keyProvider: KeyProvider?
    /// Argon2id cost for new passphrase keyslots (existing slots keep their recorded cost).
    /// Within `PassphraseCost.acceptedOpsLimits` and `acceptedMemLimits` (outside them is
    /// `KeyError.unsupportedCost` at open, before the key provider is asked).
    public var passphraseCost: PassphraseCost
    /// Most concurrent reader connections: 1 or more (less is `StoreError.invalidConfiguration`
    /// at open).
    public var maximumReaders: Int
    /// Whether opening a path with no store creates one (default) or fails with `notAStore`.
    public var createIfMissing: Bool
    /// Page cache per connection in KiB. Pages in the cache are kept decrypted (in process
    /// memory only), so a cache that holds the working set makes encrypted reads as fast as
    /// plaintext ones. Allocated as pages are used. 0 or more (below 64, 64 KiB is used; a
    /// negative value is `StoreError.invalidConfiguration` at open).
    public var cacheSizeKiB: Int
    /// Opens the store without writing anything (no lock file, log or clean-up is created or
    /// changed): reads, searches, `verify`, `backup` and `export` work, and every write throws
    /// `StoreError.permissionDenied` naming the store. For a store on read-only media (a backup
    /// on a write-protected disk, a snapshot); an existing store on a file system mounted
    /// read-only is opened this way without asking. Never creates a store. A store whose last
    /// writable open did not end cleanly (a crash left its write-ahead log holding writes, a
    /// creation or deletion half done, migrations of a newer build pending) needs a writable
    /// open first (`permissionDenied`, saying so).
    public var readOnly: Bool
    /// Features above the store whose tables it keeps (full-text search): set by
    /// `Store.open(_:features:)`, which `import Cipherdex`'s `Store.open` calls with search.
    package var features: [StoreFeature] = []
    /// Reads run on the writer's connection, one at a time with writes (GRDB's `DatabaseQueue`
    /// rather than its `DatabasePool`), and no reader connection is opened: for a process that
    /// opens the store for one read and exits (the CLI's `search`), which saves a second
    /// connection's open, about 0.9 ms (BENCHMARKS.md, "One connection for a search process").
    /// Not for a store whose library indexes: its workers read while a batch is written.
    package var readsOnWriter = false
    /// Only a new store will do (the CLI's `create`): a store found at `path`, even one another
    /// process made after the caller looked, is `StoreAlreadyExists`, never opened.
    package var requiresNewStore = false
    /// A read-only open takes a store whose migrations are pending as it is (a restore's copy of
    /// an older build's backup: its pages are copied unchanged, and the copy migrates at its first
    /// writable open), instead of refusing it. Nothing but page copies may read such a store.
    var readsPendingMigrationsAsIs = false
    /// Keeps the data key an open unwrapped for the next open of the same metadata with this
    /// configuration (restore's writable fallback opens twice: its key is derived once).
    var unwrappedKeyMemo: UnwrappedKeyMemo?

    /// A configuration for the store at `path`, encrypted with `keyProvider`'s key when given;
    /// `readOnly` opens it without writing anything (see `readOnly`).
    public init(
        path: String, keyProvider: KeyProvider? = nil, passphraseCost: PassphraseCost = .default,
        maximumReaders: Int = 4, createIfMissing: Bool = true, cacheSizeKiB: Int = 32 * 1024, readOnly: Bool = false
    ) {
        self.cacheSizeKiB = cacheSizeKiB
        self.readOnly = readOnly
        self.path = path
        self.keyProvider = keyProvider
        self.passphraseCost = passphraseCost
        self.maximumReaders = maximumReaders
        self.createIfMissing = createIfMissing
    }
}

/// State a feature keeps per open store (the search library), created on first use by
/// `Store.featureState(_:make:)` and told when the store closes.
package protocol StoreFeatureState: AnyObject, Sendable {
    /// Called once by `Store.close()`, before the store's connections close: stop background
    /// work and wait for it.
    func storeWillClose()
}

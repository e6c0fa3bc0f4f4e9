/// State a feature keeps per open store (the search library), created on first use by
/// `Store.featureState(_:make:)` and told when the store closes.
package protocol StoreFeatureState: AnyObject, Sendable {
    /// Called by `Store.close()` while the store is still open (not by `closeAndDelete()`): finish
    /// the work callers were told is done or queued (documents whose `add` returned), so that
    /// closing loses none of it. May be called more than once.
    func finishQueuedWork()
    /// The async form of `finishQueuedWork()` (`Store.closeAsync()`): the task suspends, no
    /// thread waits. May be called more than once; cancellation does not end it.
    func finishQueuedWorkAsync() async
    /// Called once by `Store.close()`, before the store's connections close: stop background
    /// work and wait for it.
    func storeWillClose()
}

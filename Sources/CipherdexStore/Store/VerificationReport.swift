/// The outcome of `Store.verify()`.
public struct VerificationReport: Codable, Equatable, Sendable {
    /// Database pages read (and, for an encrypted store, decrypted and authenticated).
    public var pagesChecked: Int
    /// Attachments whose every chunk was authenticated.
    public var attachmentsChecked: Int
    /// Each problem found, one line each; empty when the store is sound.
    public var problems: [String]

    /// Whether nothing was wrong.
    public var isHealthy: Bool { problems.isEmpty }
}

import Foundation

extension SearchIndexWriter {
    /// The other Unicode normalizations of `uid` (composed, NFC, and decomposed, NFD: `café`
    /// either way) that differ from it in bytes; none for ASCII. They are the same text, and
    /// Swift strings, `statuses()` and search results' `documents` take them as one UID, so
    /// adding under `uid` replaces the documents indexed under them as it replaces its own: in
    /// the transaction that writes it (removed before, at the `add`, a document was lost when
    /// the new one never came: a kill, a cancel, a failed read). Only whole-string NFC and NFD
    /// forms are looked for.
    static func canonicalTwins(of uid: String) -> [String] {
        guard !uid.utf8.allSatisfy({ $0 < 0x80 }) else { return [] }
        var forms: [String] = []
        for form in [uid.precomposedStringWithCanonicalMapping, uid.decomposedStringWithCanonicalMapping]
        where !form.utf8.elementsEqual(uid.utf8) && !forms.contains(where: { $0.utf8.elementsEqual(form.utf8) }) {
            forms.append(form)
        }
        return forms
    }

    /// The UIDs of the documents indexed under `uid`'s canonical twins, which the write of `uid`
    /// removes in its transaction once its own row is in (removed before it, a stored copy or OCR
    /// text the new document shares, deduplicated, was released: review 27 finding 1).
    /// When `uid` itself is indexed, nothing is removed: a pair an older build indexed as two
    /// documents keeps the other (upgrade audit 2: adding under one removed both, the other's
    /// stored copy with it, in silence).
    static func canonicalTwinsToRemove(of uid: String, db: Connection) throws -> [String] {
        let twins = canonicalTwins(of: uid)
        guard !twins.isEmpty,
            try db.scalar("SELECT 1 FROM search_documents WHERE uid = ?", [.text(uid)]) == nil
        else { return [] }
        return try twins.filter { try db.scalar("SELECT 1 FROM search_documents WHERE uid = ?", [.text($0)]) != nil }
    }

    /// The pages of the documents that writing `job` removes as its canonical twins
    /// (`canonicalTwinsToRemove`), counted before the write removes them: the space they held is
    /// given back after it, as after `remove(uid:)`.
    static func pagesOfCanonicalTwins(replacedBy job: IndexJob, db: Connection) throws -> Int {
        guard job.replacesCanonicalTwins else { return 0 }
        var pages = 0
        for twin in try canonicalTwinsToRemove(of: job.uid, db: db) {
            pages += Int(
                try db.scalar("SELECT count(*) FROM search_pages WHERE uid = ?", [.text(twin)])?.integerValue ?? 0)
        }
        return pages
    }
}

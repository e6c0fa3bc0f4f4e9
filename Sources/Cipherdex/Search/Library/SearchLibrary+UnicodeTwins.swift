import Foundation

extension SearchLibrary {
    /// Removes the documents indexed under `uid` in another Unicode normalization (composed, NFC,
    /// or decomposed, NFD: `café` either way), before `uid` is added: they are the same text,
    /// and Swift strings, `statuses()` and search results' `documents` take them as one UID, so
    /// adding replaces them as adding the same bytes does (both stayed in the index, one of them
    /// hidden). Only whole-string NFC and NFD forms are looked for; ASCII UIDs cost nothing.
    func removeCanonicalTwins(of uid: String) throws {
        guard let store, !uid.utf8.allSatisfy({ $0 < 0x80 }) else { return }
        var forms: [String] = []
        for form in [uid.precomposedStringWithCanonicalMapping, uid.decomposedStringWithCanonicalMapping]
        where !form.utf8.elementsEqual(uid.utf8) && !forms.contains(where: { $0.utf8.elementsEqual(form.utf8) }) {
            forms.append(form)
        }
        guard !forms.isEmpty else { return }
        let twins = try store.read { db in
            try forms.filter { try db.scalar("SELECT 1 FROM search_documents WHERE uid = ?", [.text($0)]) != nil }
        }
        for twin in twins { _ = try remove(uid: twin, reclaiming: true) }
    }
}

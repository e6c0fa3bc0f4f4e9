import Foundation

/// Every file and folder under a directory, with each file's bytes, to prove that an open
/// changed nothing.
struct StoreSnapshot: Equatable {
    /// Relative path → contents (nil for a folder).
    let entries: [String: Data?]

    /// Takes the snapshot of `directory` (empty when it does not exist).
    init(of directory: String) {
        var entries: [String: Data?] = [:]
        let manager = FileManager.default
        if let walker = manager.enumerator(atPath: directory) {
            for case let relative as String in walker {
                let path = directory + "/" + relative
                var isDirectory: ObjCBool = false
                _ = manager.fileExists(atPath: path, isDirectory: &isDirectory)
                entries[relative] = isDirectory.boolValue ? .some(nil) : .some(manager.contents(atPath: path) ?? Data())
            }
        }
        self.entries = entries
    }

    /// What differs from `other`, one phrase; nil when identical.
    func difference(from other: StoreSnapshot) -> String? {
        var changes: [String] = []
        for name in Set(entries.keys).union(other.entries.keys).sorted() {
            switch (other.entries[name], entries[name]) {
            case (nil, _): changes.append("\(name) created")
            case (_, nil): changes.append("\(name) removed")
            case (let before?, let after?) where before != after: changes.append("\(name) changed")
            default: break
            }
        }
        return changes.isEmpty ? nil : changes.joined(separator: ", ")
    }

    /// The files holding any of `needles` (plaintext that must never reach a store file).
    func files(containing needles: [Data]) -> [String] {
        entries.compactMap { name, contents in
            guard let contents = contents ?? nil else { return nil }
            return needles.contains { contents.range(of: $0) != nil } ? name : nil
        }.sorted()
    }
}

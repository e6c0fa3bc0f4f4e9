import Foundation

/// Files in the attachments folder that no row names, met by a conversion (`reencrypt`,
/// `encrypt`, `decrypt`). The store never makes them; they come from outside (an older
/// `store.db` put back, a file copied in). They are not provably unneeded, so they are never
/// removed; nor may they reach the new generation as they are, where they would stay readable
/// without the key (`encrypt`) or with the old one (`reencrypt`).
extension Store {
    /// The unrecorded files of the attachments folder, each read whole and authenticated as an
    /// attachment of this store under its name (so its content can be sealed again with the new
    /// keys), checked before the conversion writes anything. A file that cannot be proved the
    /// store's own throws `StoreConversionError.unrecordedAttachmentFile` naming it: a name that
    /// is not an attachment id, a file that is not a regular one, any file of an unencrypted
    /// store (nothing authenticates it), a file that does not decrypt with this store's key.
    func unrecordedAttachmentFiles(known: Set<String>) throws -> [(name: String, length: UInt64)] {
        guard FileSystem.exists(layout.attachments) else { return [] }
        let entries = try Store.wrapSystem {
            try FileSystem.entryNames(of: FileDescriptor(path: layout.attachments, flags: O_RDONLY | O_DIRECTORY))
        }
        var found: [(name: String, length: UInt64)] = []
        for bytes in entries.sorted(by: { $0.lexicographicallyPrecedes($1) }) {
            // A name that is not valid UTF-8 is shown escaped (`x\xFE`), as typed to move it.
            guard let name = String(validating: bytes, as: UTF8.self) else {
                throw StoreConversionError.unrecordedAttachmentFile(
                    path: layout.attachments + "/" + DirectoryEntries.escaped(bytes),
                    reason: "its name is not an attachment id")
            }
            guard !known.contains(name) else { continue }
            let path = layout.attachments + "/" + name
            func refuse(_ reason: String) -> StoreConversionError {
                .unrecordedAttachmentFile(path: path, reason: reason)
            }
            guard AttachmentStorage.isValidID(name) else {
                throw refuse("its name is not an attachment id")
            }
            let kind = FileKind.of(path)
            guard kind.size != nil else { throw refuse("it is \(kind.description), not a regular file") }
            guard let masterKey = attachmentStorage.masterKey else {
                throw refuse("the store is not encrypted, so nothing proves the file is its own")
            }
            do {
                let reader = try AttachmentReader(id: name, path: path, masterKey: masterKey)
                try reader.forEachChunk { _ in }
                found.append((name, reader.length))
            } catch let error as AttachmentError {
                if case .io = error { throw AttachmentStorage.typedWriteFailure(error, path: path) }
                throw refuse("it does not decrypt as an attachment of this store (\(error.localizedDescription))")
            }
        }
        return found
    }
}

import CipherdexStore
import Foundation

// `cipherdex-store-probe DIRECTORY KEYFILE`: a program built from the CipherdexStore product
// alone (no search, no poppler). The tests check its link line (ldd) and run it on stores made
// with search: it opens the store, reads and writes documents and attachments, verifies it and
// tries a collection of unreferenced attachments, printing one line per step.

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: cipherdex-store-probe DIRECTORY KEYFILE\n".utf8))
    exit(64)
}
let keyFile = arguments[2]
do {
    let store = try Store.open(
        StoreConfiguration(path: arguments[1], keyProvider: { try EncryptionKey.raw(contentsOfFile: keyFile) }))
    defer { store.close() }
    let notes =
        try store.collectionNames().contains("notes")
        ? try store.collection("notes") : try store.createCollection("notes")
    print("documents: \(try notes.count())")
    try notes.insert(id: "probe-\(try notes.count())", value: .object(["written": .string("by the store-only probe")]))
    print("documents after insert: \(try notes.count())")
    let content = Data("an attachment written by the store-only probe".utf8)
    let token = try store.addAttachment(content, contentType: "text/plain")
    print("attachment read back: \(try store.attachmentData(token.id) == content)")
    print("attachments: \(try store.attachmentTokens().count)")
    let report = try store.verify()
    print(report.problems.isEmpty ? "verify: ok" : "verify: \(report.problems.joined(separator: "; "))")
    do {
        print("collect: removed \(try store.collectUnreferencedAttachments().count)")
    } catch let error as StoreError {
        print("collect: \(error.name)")
    }
    print("ok")
} catch {
    FileHandle.standardError.write(Data("cipherdex-store-probe: \(error.localizedDescription)\n".utf8))
    exit(1)
}

// A consumer of Cipherdex: opens (creates) an encrypted store in the folder given as the first
// argument, adds a PDF it writes at run time, searches it, and adds an attachment inside a
// transaction. Nothing in it prepares PDF extraction: the executable is its own helper. Prints
// "consumer ok" and exits 0 when every check holds, 1 otherwise.

import Cipherdex
import CipherdexPDFWriter
import Foundation

/// Fails the run with `message`.
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("consumer: \(message)\n".utf8))
    exit(1)
}

/// A report stored next to its attachment.
struct Report: Codable {
    var title: String
    var file: AttachmentToken
}

guard CommandLine.arguments.count == 2 else { fail("usage: ConsumerApp STORE-FOLDER") }
let folder = CommandLine.arguments[1]
let key = EncryptionKey.generateRaw()
let configuration = StoreConfiguration(path: folder + "/store", keyProvider: { key })

do {
    let store = try Store.open(configuration)
    guard store.isEncrypted else { fail("the store is not encrypted") }

    let pdf = folder + "/analytical-engine.pdf"
    let pages = ["The analytical engine weaves algebraic patterns", "Notes by Ada Lovelace"]
    guard FileManager.default.createFile(atPath: pdf, contents: Data(makePDF(pages: pages, title: "Notes"))) else {
        fail("cannot write \(pdf)")
    }
    try store.library.add(fileAt: pdf)
    try store.library.waitUntilIndexed()
    let status = try store.library.status(of: "analytical-engine.pdf")
    guard case .finished(let pageCount) = status, pageCount == 2 else { fail("indexed as \(status)") }
    let results = try store.library.search("lovelace")
    guard results.documents["analytical-engine.pdf"] == [1] else { fail("search found \(results.documents)") }

    let reportData = Data(makePDF(pages: ["report"], title: "MRI"))
    _ = try store.createCollection("reports")
    try store.transaction { tx in
        let token = try tx.addAttachment(reportData, contentType: "application/pdf")
        try tx.collection("reports").insert(Report(title: "MRI", file: token), id: "r1")
    }
    let report = try store.collection("reports").get(Report.self, id: "r1")
    guard let report, try store.attachment(report.file.id).readAll() == reportData else {
        fail("the attachment did not come back")
    }
    store.close()
} catch {
    fail("\(error)")
}
print("consumer ok")

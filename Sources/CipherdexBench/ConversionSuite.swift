import Cipherdex
import Foundation

/// Issue 11's suite: re-encryption, decryption and encryption of a store of about 1 GiB
/// (documents, attachments and a search index) beside a plain copy of the store's files, each
/// a child process on the same disk in the same run, each output made durable.
enum ConversionSuite {
    static func run(quick: Bool) throws -> String {
        let directory = Bench.scratchDirectory("conversion")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = directory + "/store"
        let cipherdex = Bench.sibling("cipherdex")
        _ = try ChildProcess.run([cipherdex, "keygen", "--out", directory + "/key"])
        _ = try ChildProcess.run([cipherdex, "keygen", "--out", directory + "/key2"])
        let composition = try populate(store, directory: directory, quick: quick)
        let storeBytes = try bytes(under: store)

        func shell(_ command: String) throws -> ChildProcess.Measurement {
            let measurement = try ChildProcess.run(["/bin/sh", "-c", "cd '\(directory)' && " + command])
            guard measurement.status == 0 else { throw BenchError.failed(command) }
            return measurement
        }
        let copy = try shell("cp -r store copy && sync -f copy && rm -rf copy")
        let reencrypt = try shell("'\(cipherdex)' reencrypt store --key-file key --new-key-file key2")
        let decrypt = try shell("'\(cipherdex)' decrypt store --key-file key2 --yes")
        let encrypt = try shell("'\(cipherdex)' encrypt store --new-key-file key")
        let copyAgain = try shell("cp -r store copy && sync -f copy && rm -rf copy")
        let copySeconds = min(copy.seconds, copyAgain.seconds)

        var table = ResultTable(
            title: "Re-encryption and conversion: a store of \(storeBytes >> 20) MiB (\(composition))",
            columns: ["operation", "seconds", "MiB/s", "ratio to the copy", "peak RSS"])
        func row(_ name: String, _ measurement: ChildProcess.Measurement) {
            table.add([
                name, String(format: "%.2f", measurement.seconds),
                String(format: "%.0f", Double(storeBytes) / 1_048_576 / measurement.seconds),
                Bench.ratio(measurement.seconds / copySeconds), "\(measurement.peakRSS >> 20) MiB",
            ])
        }
        row("copy (`cp -r` + `sync`, faster of 2)", copy.seconds <= copyAgain.seconds ? copy : copyAgain)
        row("`cipherdex reencrypt`", reencrypt)
        row("`cipherdex decrypt`", decrypt)
        row("`cipherdex encrypt`", encrypt)
        return table.markdown + "\nTarget: each at most 3x the copy.\n"
    }

    /// Fills the store: documents, random attachments and indexed text; returns what it holds.
    static func populate(_ store: String, directory: String, quick: Bool) throws -> String {
        let key = directory + "/key"
        let configuration = StoreConfiguration(
            path: store, keyProvider: { try EncryptionKey.raw(contentsOfFile: key) })
        let handle = try Store.open(configuration)
        defer { handle.close() }
        let documentCount = quick ? 2_000 : 40_000
        let notes = try handle.createCollection("notes", indexedFields: ["n"])
        let filler = String(repeating: "lorem ipsum dolor sit amet ", count: 60)
        for start in stride(from: 0, to: documentCount, by: 1_000) {
            try handle.transaction { tx in
                let collection = try tx.collection("notes")
                for index in start..<min(start + 1_000, documentCount) {
                    try collection.insert(
                        JSONValue.object(["n": .number(JSONNumber(index)), "text": .string(filler)]), id: "d\(index)")
                }
            }
        }
        _ = notes
        let attachmentCount = quick ? 2 : 9
        let attachmentSize = quick ? 32 << 20 : 100 << 20
        for index in 0..<attachmentCount {
            let path = directory + "/attachment-\(index).bin"
            try AttachmentSuite.writeRandomFile(path, size: attachmentSize, seed: UInt64(index + 1))
            _ = try handle.addAttachment(fromFile: path)
            try FileManager.default.removeItem(atPath: path)
        }
        let textCount = quick ? 20 : 400
        let words = ["patient", "dose", "clinic", "scan", "report", "tissue", "follow-up", "referral", "history"]
        for index in 0..<textCount {
            let path = directory + "/text-\(index).txt"
            var text = ""
            for line in 0..<800 { text += "\(words[(index + line) % words.count]) line \(line) of note \(index) \(filler.prefix(40))\n" }
            try text.write(toFile: path, atomically: true, encoding: .utf8)
            try handle.library.add(fileAt: path, uid: "note-\(index)")
        }
        try handle.library.waitUntilIndexed()
        return "\(documentCount) documents of ~1.6 KiB, \(attachmentCount) random attachments of "
            + "\(attachmentSize >> 20) MiB, \(textCount) indexed text files of ~64 KiB"
    }

    static func bytes(under path: String) throws -> UInt64 {
        var total: UInt64 = 0
        let enumerator = FileManager.default.enumerator(atPath: path)
        while let name = enumerator?.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: path + "/" + name)
            if attributes[.type] as? FileAttributeType == .typeRegular { total += (attributes[.size] as? UInt64) ?? 0 }
        }
        return total
    }
}

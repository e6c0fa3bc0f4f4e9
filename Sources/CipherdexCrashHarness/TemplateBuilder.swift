import Cipherdex
import Foundation

/// Builds the store each trial of an operation starts from (copied per trial): a few baseline
/// documents every operation must leave intact, plus what the operation works on.
struct TemplateBuilder {
    /// The shared inputs.
    let fixtures: Fixtures

    /// Baseline documents in collection `base`.
    static let baselineCount = 3
    /// Attachments in the `detach` template.
    static let detachCount = 20
    /// Attachments in the `collect` template; those with an index divisible by 3 are referenced.
    static let collectCount = 12
    /// Documents already indexed in the `tokenizerChange` template.
    static let indexedCount = 4
    /// Small attachments in the conversion templates (and one large one).
    static let conversionAttachmentCount = 6
    /// Documents in the `docRemove` template.
    static let removableCount = 60
    /// Small attachments in the `backup` and `restore` templates (and one large one).
    static let backupAttachmentCount = 4
    /// The document only the `restore` template's backup holds.
    static let restoreMarker = "restored"

    /// The baseline document `index`.
    static func baselineDocument(_ index: Int) -> Data { Fixtures.smallDocument(1000 + index) }

    /// Whether `collect` template attachment `index` is referenced by a document.
    static func isReferenced(_ index: Int) -> Bool { index % 3 == 0 }

    /// Builds the template of `operation` in `layout` (nothing for `create`).
    func build(_ operation: CrashOperation, in layout: TrialLayout) throws {
        try FileManager.default.createDirectory(atPath: layout.directory, withIntermediateDirectories: true)
        guard operation.needsTemplate else { return }
        let store = try Store.open(
            Fixtures.configuration(layout.store, keyFile: operation == .encrypt ? nil : fixtures.keyA))
        defer { store.close() }
        let base = try store.createCollection("base")
        for index in 0..<Self.baselineCount {
            try base.insert(id: "b\(index)", json: Self.baselineDocument(index))
        }
        let docs = try store.createCollection("docs")
        var ids: [String] = []
        switch operation {
        case .docRemove:
            for index in 0..<Self.removableCount {
                try docs.insert(id: "r\(index)", json: Fixtures.removableDocument(index))
            }
        case .detach:
            for index in 0..<Self.detachCount {
                ids.append(try store.addAttachment(fromFile: fixtures.small(index)).id)
            }
        case .delete:
            for index in 0..<3 { ids.append(try store.addAttachment(fromFile: fixtures.small(index)).id) }
        case .collect:
            for index in 0..<Self.collectCount {
                let id = try store.addAttachment(fromFile: fixtures.small(index)).id
                ids.append(id)
                if Self.isReferenced(index) {
                    try docs.insert(id: "ref\(index)", json: Data(#"{"file":{"cipherdexAttachment":"\#(id)"}}"#.utf8))
                }
            }
        case .tokenizerChange:
            for index in 0..<Self.indexedCount { try store.library.add(fileAt: fixtures.library(index)) }
            try store.library.waitUntilIndexed()
        case .reencrypt, .encrypt, .decrypt:
            // Documents (the baseline), attachments and an index: everything a conversion copies.
            for index in 0..<Self.conversionAttachmentCount {
                ids.append(try store.addAttachment(fromFile: fixtures.small(index)).id)
            }
            ids.append(try store.addAttachment(fromFile: fixtures.large(0)).id)
            for index in 0..<Self.indexedCount { try store.library.add(fileAt: fixtures.library(index)) }
            try store.library.waitUntilIndexed()
        case .backup, .restore:
            for index in 0..<Self.backupAttachmentCount {
                ids.append(try store.addAttachment(fromFile: fixtures.small(index)).id)
            }
            ids.append(try store.addAttachment(fromFile: fixtures.large(0)).id)
            for index in 0..<Self.indexedCount { try store.library.add(fileAt: fixtures.library(index)) }
            try store.library.waitUntilIndexed()
            if operation == .restore {
                // The backup holds one document more than the store it is restored over.
                try store.backup(to: layout.backup)
                let backup = try Store.open(Fixtures.configuration(layout.backup, keyFile: fixtures.keyA))
                defer { backup.close() }
                try backup.collection("docs").insert(
                    id: Self.restoreMarker, json: Fixtures.smallDocument(Fixtures.smallCount))
            }
        default:
            break
        }
        try Data(ids.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: layout.ids))
    }
}

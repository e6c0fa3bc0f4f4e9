import Cipherdex
import Foundation

/// What an operation's acknowledged writes must have left, checked on the reopened store:
/// every acknowledged write present with its exact content, the one in flight entirely there or
/// entirely absent, nothing else (no write that was never begun, no half of one).
struct OperationChecks {
    /// The operation.
    let operation: CrashOperation
    /// The trial's folder.
    let trial: TrialLayout
    /// The shared inputs.
    let fixtures: Fixtures
    /// What the child acknowledged.
    let log: AckLog

    /// Checks the operation's expectations and the baseline documents.
    func check(_ store: Store, into problems: inout [String]) throws {
        switch operation {
        case .create:
            if try !store.collectionNames().isEmpty { problems.append("a created store has collections") }
            return
        case .delete:
            return
        default:
            try checkBaseline(store, into: &problems)
        }
        switch operation {
        case .docSmall: try checkDocuments(store, prefix: "s", content: Fixtures.smallDocument, into: &problems)
        case .docLarge: try checkDocuments(store, prefix: "L", content: Fixtures.largeDocument, into: &problems)
        case .docRemove: try checkRemovals(store, into: &problems)
        case .attachSmall: try checkAddedAttachments(store, source: fixtures.small, into: &problems)
        case .attachLarge: try checkAddedAttachments(store, source: fixtures.large, into: &problems)
        case .detach: try checkDetached(store, into: &problems)
        case .libraryAdd, .folderIndex: try checkLibrary(store, into: &problems)
        case .tokenizerChange: try checkTokenizer(store, into: &problems)
        case .collect: try checkCollected(store, into: &problems)
        case .reencrypt, .encrypt, .decrypt: try checkConverted(store, into: &problems)
        case .backup, .restore:
            try BackupChecks(operation: operation, trial: trial, fixtures: fixtures, log: log).check(
                store, into: &problems)
        case .rekey, .create, .delete: break
        }
    }

    /// The template's baseline documents are intact.
    func checkBaseline(_ store: Store, into problems: inout [String]) throws {
        let base = try store.collection("base")
        for index in 0..<TemplateBuilder.baselineCount {
            let document = try base.get(id: "b\(index)")
            if document?.value != (try JSONValue(parsing: TemplateBuilder.baselineDocument(index))) {
                problems.append("baseline document b\(index) is \(document == nil ? "missing" : "altered")")
            }
        }
        if operation == .delete {
            for id in try trial.templateIDs() { try expectAttachment(store, id, source: nil, into: &problems) }
        }
    }

    private func checkDocuments(
        _ store: Store, prefix: String, content: (Int) -> Data, into problems: inout [String]
    ) throws {
        let docs = try store.collection("docs")
        for step in 0..<operation.steps {
            let document = try docs.get(id: "\(prefix)\(step)")
            if let document, try document.value != JSONValue(parsing: content(step)) {
                problems.append("document \(prefix)\(step) has different content")
            }
            expectPresence(document != nil, step: step, what: "document \(prefix)\(step)", into: &problems)
        }
        let count = try docs.count()
        let expected = (0..<operation.steps).filter { log.mayBeVisible($0) }.count
        if count > expected || count < log.acknowledged { problems.append("docs holds \(count) documents") }
    }

    private func checkRemovals(_ store: Store, into problems: inout [String]) throws {
        let docs = try store.collection("docs")
        for step in 0..<TemplateBuilder.removableCount {
            let document = try docs.get(id: "r\(step)")
            if let document, try document.value != JSONValue(parsing: Fixtures.removableDocument(step)) {
                problems.append("document r\(step) has different content")
            }
            // A removal is visible as the document's absence.
            expectPresence(document == nil, step: step, what: "removal of r\(step)", into: &problems)
        }
    }

    private func checkAddedAttachments(
        _ store: Store, source: (Int) -> String, into problems: inout [String]
    ) throws {
        let tokens = try store.attachmentTokens()
        var unexplained = Set(tokens.map(\.id))
        for step in 0..<log.acknowledged {
            guard let id = log.values[step] else { continue }
            unexplained.remove(id)
            try expectAttachment(store, id, source: source(step), into: &problems)
        }
        if let step = log.inFlight, unexplained.count == 1, let id = unexplained.first {
            unexplained.remove(id)
            try expectAttachment(store, id, source: source(step), into: &problems)
        }
        if !unexplained.isEmpty {
            problems.append("\(unexplained.count) attachments no acknowledged or in-flight write explains")
        }
    }

    private func checkDetached(_ store: Store, into problems: inout [String]) throws {
        for (step, id) in try trial.templateIDs().enumerated() {
            let present = try store.attachmentToken(id) != nil
            if present { try expectAttachment(store, id, source: fixtures.small(step), into: &problems) }
            expectPresence(!present, step: step, what: "removal of attachment \(step)", into: &problems)
        }
    }

    private func checkLibrary(_ store: Store, into problems: inout [String]) throws {
        var present = 0
        for step in 0..<operation.steps {
            let uid = Fixtures.libraryName(step)
            let stored = try store.library.status(of: uid)
            let status = stored == .unknown ? nil : stored
            let found = try store.library.search(Fixtures.libraryWord(step)).documents
            let pages = Fixtures.libraryPages(step).count
            if let status {
                present += 1
                if status != .finished(pageCount: pages) { problems.append("\(uid) is \(status)") }
                if found != [uid: Array(0..<pages)] { problems.append("\(uid): its word finds \(found)") }
            } else if !found.isEmpty {
                problems.append("\(uid) is not in the index but its word finds \(found)")
            }
            expectPresence(status != nil, step: step, what: "\(uid) in the index", into: &problems)
        }
        let copies = try store.attachmentTokens().count
        let expectedCopies = operation == .libraryAdd ? present : 0
        if copies != expectedCopies {
            problems.append("\(copies) attachments for \(present) indexed documents (expected \(expectedCopies))")
        }
    }

    private func checkTokenizer(_ store: Store, into problems: inout [String]) throws {
        var allowed: Set<SearchTokenizerKind> = [
            log.acknowledged == 0 ? .standard : ChildWorkload.tokenizer(afterStep: log.acknowledged - 1)
        ]
        if let step = log.inFlight { allowed.insert(ChildWorkload.tokenizer(afterStep: step)) }
        let tokenizer = try store.library.tokenizer()
        if !allowed.contains(tokenizer) {
            problems.append("tokenizer is \(tokenizer) after \(log.acknowledged) acknowledged changes")
        }
        for index in 0..<TemplateBuilder.indexedCount {
            let uid = Fixtures.libraryName(index)
            let found = try store.library.search(Fixtures.libraryWord(index)).documents
            if found != [uid: Array(0..<Fixtures.libraryPages(index).count)] {
                problems.append("\(uid): its word finds \(found) with the \(tokenizer) tokenizer")
            }
        }
        let stemmed = try store.library.search("run", options: Self.exactWords).documents.count
        if stemmed != (tokenizer == .englishStemming ? TemplateBuilder.indexedCount : 0) {
            problems.append("the exact word 'run' finds \(stemmed) documents with the \(tokenizer) tokenizer")
        }
    }

    private static let exactWords: SearchOptions = {
        var options = SearchOptions()
        options.exactWordsOnly = true
        return options
    }()

    private func checkCollected(_ store: Store, into problems: inout [String]) throws {
        var removed = 0
        for (index, id) in try trial.templateIDs().enumerated() {
            let present = try store.attachmentToken(id) != nil
            if present { try expectAttachment(store, id, source: fixtures.small(index), into: &problems) }
            if TemplateBuilder.isReferenced(index) {
                if !present { problems.append("referenced attachment \(index) was collected") }
            } else if !present {
                removed += 1
            }
        }
        let unreferenced = (0..<TemplateBuilder.collectCount).filter { !TemplateBuilder.isReferenced($0) }.count
        if removed != 0 && removed != unreferenced {
            problems.append("collection half done: \(removed) of \(unreferenced) unreferenced attachments removed")
        }
        if log.acknowledged == 1 && removed != unreferenced {
            problems.append("acknowledged collection removed \(removed)")
        }
        if log.acknowledged == 0 && log.inFlight == nil && removed != 0 {
            problems.append("collection never begun removed \(removed)")
        }
    }

    /// Attachment `id` exists with exactly the bytes of `source` (any bytes when nil).
    private func expectAttachment(_ store: Store, _ id: String, source: String?, into problems: inout [String]) throws {
        do {
            let data = try store.attachmentData(id)
            if let source, data != FileManager.default.contents(atPath: source) {
                problems.append("attachment \(id) (\(source)) has different bytes")
            }
        } catch {
            problems.append("attachment \(id): \(TrialChecker.describe(error))")
        }
    }

    /// A conversion keeps everything: the template's attachments with their exact bytes, its
    /// indexed documents findable, and one generation of files only.
    private func checkConverted(_ store: Store, into problems: inout [String]) throws {
        let ids = try trial.templateIDs()
        for (index, id) in ids.enumerated() {
            let source = index < TemplateBuilder.conversionAttachmentCount ? fixtures.small(index) : fixtures.large(0)
            try expectAttachment(store, id, source: source, into: &problems)
        }
        for step in 0..<TemplateBuilder.indexedCount {
            let uid = Fixtures.libraryName(step)
            let found = try store.library.search(Fixtures.libraryWord(step)).documents
            if found[uid] == nil { problems.append("\(uid) is no longer found by its word after the conversion") }
        }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: trial.store)) ?? []
        let generations = Set(names.compactMap(Self.dataGeneration))
        if generations.count != 1 {
            problems.append("files of generations \(generations.sorted()) after the open: \(names.sorted())")
        }
    }

    /// The generation of a database or attachments folder name (`store.db`: 0, `store.3.db`: 3).
    static func dataGeneration(_ name: String) -> Int? {
        if name == "store.db" || name == "attachments" { return 0 }
        for (prefix, suffix) in [("store.", ".db"), ("attachments.", "")]
        where name.hasPrefix(prefix) && name.hasSuffix(suffix) {
            return Int(name.dropFirst(prefix.count).dropLast(suffix.count))
        }
        return nil
    }

    /// `visible` (the effect of `step` is there) agrees with what was acknowledged.
    private func expectPresence(_ visible: Bool, step: Int, what: String, into problems: inout [String]) {
        if log.mustBeVisible(step) && !visible { problems.append("acknowledged \(what) (step \(step)) is lost") }
        if !log.mayBeVisible(step) && visible {
            problems.append("\(what) (step \(step)) is visible but was never begun")
        }
    }
}

import Cipherdex
import Foundation

/// What a killed `backup` or `restore` must have left: the source untouched (every acknowledged
/// write there), and the destination absent, the previous good copy or the complete new one —
/// a store that refuses a wrong key and no key, opens with key A, verifies, and holds exactly
/// the state of one backup.
struct BackupChecks {
    /// The operation (`backup` or `restore`).
    let operation: CrashOperation
    /// The trial's folder.
    let trial: TrialLayout
    /// The shared inputs.
    let fixtures: Fixtures
    /// What the child acknowledged.
    let log: AckLog

    /// Runs the checks; `store` is the trial's store, opened with key A.
    func check(_ store: Store, into problems: inout [String]) throws {
        let ids = try trial.templateIDs()
        if operation == .restore {
            try checkRestored(store, ids: ids, into: &problems)
            return
        }
        // The source: each step's insert and removal there if acknowledged, maybe if in flight.
        for step in 0..<operation.steps {
            let document = try store.collection("docs").get(id: "k\(step)")
            expectPresence(document != nil, step: step, what: "document k\(step)", into: &problems)
            let present = try store.attachmentToken(ids[step]) != nil
            expectPresence(!present, step: step, what: "removal of attachment \(step)", into: &problems)
        }
        try checkDestination(ids: ids, into: &problems)
        // The next backup starts from whatever the kill left, and leaves no building folder.
        do {
            try store.backup(to: trial.backup)
            let names = (try? FileManager.default.contentsOfDirectory(atPath: trial.directory)) ?? []
            let siblings = names.filter { $0.contains(".backup-") }
            if !siblings.isEmpty { problems.append("the next backup leaves \(siblings)") }
            let backup = try Store.open(Fixtures.configuration(trial.backup, keyFile: fixtures.keyA, create: false))
            defer { backup.close() }
            problems += try backup.verify().problems.map { "next backup: verify: \($0)" }
        } catch {
            problems.append("the next backup fails: \(TrialChecker.describe(error))")
        }
    }

    /// The backup folder after a kill: absent only before the first backup finished; else a
    /// complete backup of step `acknowledged - 1` or of the step in flight.
    private func checkDestination(ids: [String], into problems: inout [String]) throws {
        guard FileManager.default.fileExists(atPath: trial.backup) else {
            if log.acknowledged > 0 { problems.append("an acknowledged backup is gone") }
            return
        }
        var allowed: Set<Int> = []
        if log.acknowledged > 0 { allowed.insert(log.acknowledged - 1) }
        if let step = log.inFlight { allowed.insert(step) }
        let checker = TrialChecker(operation: operation, trial: trial, fixtures: fixtures, log: log)
        try checker.refusals(of: trial.backup, into: &problems)
        let backup: Store
        do {
            backup = try Store.open(Fixtures.configuration(trial.backup, keyFile: fixtures.keyA, create: false))
        } catch {
            problems.append("key A does not open the backup: \(TrialChecker.describe(error))")
            return
        }
        defer { backup.close() }
        let present = try (0..<operation.steps).filter { try backup.collection("docs").get(id: "k\($0)") != nil }
        guard let last = present.last, present == Array(0...last), allowed.contains(last) else {
            problems.append("the backup holds documents \(present), not the state of backup \(allowed.sorted())")
            return
        }
        try checkContent(backup, ids: ids, removedThrough: last, what: "backup", into: &problems)
        if try backup.collection("docs").count() != last + 1 {
            problems.append("the backup holds \(try backup.collection("docs").count()) documents, not \(last + 1)")
        }
    }

    /// The restored store (or the old one it replaces) and the backup it was restored from.
    private func checkRestored(_ store: Store, ids: [String], into problems: inout [String]) throws {
        let restored = try store.collection("docs").get(id: TemplateBuilder.restoreMarker) != nil
        if log.finished && !restored { problems.append("an acknowledged restore left the old store") }
        try checkContent(store, ids: ids, removedThrough: nil, what: "store", into: &problems)
        let backup = try Store.open(Fixtures.configuration(trial.backup, keyFile: fixtures.keyA, create: false))
        defer { backup.close() }
        if try backup.collection("docs").get(id: TemplateBuilder.restoreMarker) == nil {
            problems.append("the backup restored from lost its document")
        }
        problems += try backup.verify().problems.map { "backup: verify: \($0)" }
    }

    /// Baseline documents, the template's attachments (those of steps through `removedThrough`
    /// removed) with their exact bytes, the index, `verify`, and one generation of files.
    private func checkContent(
        _ store: Store, ids: [String], removedThrough: Int?, what: String, into problems: inout [String]
    ) throws {
        try OperationChecks(operation: operation, trial: trial, fixtures: fixtures, log: log)
            .checkBaseline(store, into: &problems)
        for (index, id) in ids.enumerated() {
            let removed = removedThrough.map { index <= $0 } ?? false
            let token = try store.attachmentToken(id)
            if removed != (token == nil) {
                problems.append("\(what): attachment \(index) is \(token == nil ? "missing" : "still there")")
            }
            guard token != nil else { continue }
            let source = index < TemplateBuilder.backupAttachmentCount ? fixtures.small(index) : fixtures.large(0)
            do {
                if try store.attachmentData(id) != FileManager.default.contents(atPath: source) {
                    problems.append("\(what): attachment \(index) has different bytes")
                }
            } catch {
                problems.append("\(what): attachment \(index): \(TrialChecker.describe(error))")
            }
        }
        for step in 0..<TemplateBuilder.indexedCount {
            let uid = Fixtures.libraryName(step)
            if try store.library.search(Fixtures.libraryWord(step)).documents[uid] == nil {
                problems.append("\(what): \(uid) is not found by its word")
            }
        }
        problems += try store.verify().problems.map { "\(what): verify: \($0)" }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: store.path)) ?? []
        let generations = Set(names.compactMap(OperationChecks.dataGeneration))
        if generations.count != 1 {
            problems.append("\(what): files of generations \(generations.sorted()) after the open: \(names.sorted())")
        }
    }

    /// `visible` (the effect of `step` is there) agrees with what was acknowledged.
    private func expectPresence(_ visible: Bool, step: Int, what: String, into problems: inout [String]) {
        if log.mustBeVisible(step) && !visible { problems.append("acknowledged \(what) (step \(step)) is lost") }
        if !log.mayBeVisible(step) && visible {
            problems.append("\(what) (step \(step)) is visible but was never begun")
        }
    }
}

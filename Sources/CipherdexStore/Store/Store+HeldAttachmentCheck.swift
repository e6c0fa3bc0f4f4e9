extension Store {
    /// What `verify` reports of the attachments the features hold (the search index's stored
    /// copies of its documents) that the store does not have: a document whose stored copy is
    /// gone cannot be read back, re-indexed or exported, and its loss said nothing (review 27:
    /// `verify` said ok over such an index entry). One snapshot for both sides.
    func heldAttachmentProblems(cancellation: WorkCancellation?) throws -> [String] {
        try Store.mappingDatabaseErrors {
            try read { db in
                var problems: [String] = []
                for feature in configuration.allFeatures {
                    for id in Set(try feature.heldAttachments(db)).sorted() {
                        try cancellation?.check()
                        if try db.rows("SELECT 1 FROM attachments WHERE id = ?", [.text(id)]).isEmpty {
                            problems.append(
                                "\(feature.identifier) holds attachment \(id) as a stored copy, "
                                    + "but the store has no such attachment")
                        }
                    }
                }
                return problems
            }
        }
    }
}

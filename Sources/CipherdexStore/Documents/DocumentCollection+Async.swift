import Foundation

/// The async forms of a collection's operations. Each is named after its synchronous form with
/// `Async` appended (so synchronous code keeps compiling unchanged inside async functions) and
/// runs that form on the store's own queues — writes on the store's serial writer queue, reads
/// on Cipherdex's reader queue — never blocking a thread of Swift's cooperative pool. A task
/// cancelled before its operation started gets `CancellationError` at once and nothing is done;
/// an operation that has started runs to its end (a write commits or rolls back as a whole) and
/// its outcome is returned. Use a store-level collection (`Store.collection(_:)`): one bound to
/// a transaction works only on that transaction's thread.
extension DocumentCollection {
    /// The async form of `insert(_:id:)`.
    public func insertAsync(_ value: some Encodable & Sendable, id: String) async throws {
        try await writeAsync { try $0.insert(value, id: id) }
    }

    /// The async form of `insert(id:value:)`.
    public func insertAsync(id: String, value: JSONValue) async throws {
        try await writeAsync { try $0.insert(id: id, value: value) }
    }

    /// The async form of `upsert(_:id:)`.
    @discardableResult
    public func upsertAsync(_ value: some Encodable & Sendable, id: String) async throws -> DocumentChange.Kind {
        try await writeAsync { try $0.upsert(value, id: id) }
    }

    /// The async form of `upsert(id:value:)`.
    @discardableResult
    public func upsertAsync(id: String, value: JSONValue) async throws -> DocumentChange.Kind {
        try await writeAsync { try $0.upsert(id: id, value: value) }
    }

    /// The async form of `remove(id:)`.
    @discardableResult
    public func removeAsync(id: String) async throws -> Bool {
        try await writeAsync { try $0.remove(id: id) }
    }

    /// The async form of `get(id:)`.
    public func getAsync(id: String) async throws -> Document? {
        try await readAsync { try $0.get(id: id) }
    }

    /// The async form of `get(_:id:)`.
    public func getAsync<T: Decodable & Sendable>(_ type: T.Type, id: String) async throws -> T? {
        try await readAsync { try $0.get(type, id: id) }
    }

    /// The async form of `json(id:)`.
    public func jsonAsync(id: String) async throws -> Data? {
        try await readAsync { try $0.json(id: id) }
    }

    /// The async form of `find(where:orderBy:limit:)`.
    public func findAsync(where predicates: [FieldPredicate] = [], orderBy: [SortKey] = [], limit: Int? = nil)
        async throws -> [Document]
    {
        try await readAsync { try $0.find(where: predicates, orderBy: orderBy, limit: limit) }
    }

    /// The async form of `find(_:where:orderBy:limit:)`.
    public func findAsync<T: Decodable & Sendable>(
        _ type: T.Type, where predicates: [FieldPredicate] = [], orderBy: [SortKey] = [], limit: Int? = nil
    ) async throws -> [T] {
        try await readAsync { try $0.find(type, where: predicates, orderBy: orderBy, limit: limit) }
    }

    /// The async form of `findJSON(where:orderBy:limit:)`.
    public func findJSONAsync(where predicates: [FieldPredicate] = [], orderBy: [SortKey] = [], limit: Int? = nil)
        async throws -> [DocumentJSON]
    {
        try await readAsync { try $0.findJSON(where: predicates, orderBy: orderBy, limit: limit) }
    }

    /// The async form of `list(limit:offset:)`.
    public func listAsync(limit: Int? = nil, offset: Int = 0) async throws -> [Document] {
        try await readAsync { try $0.list(limit: limit, offset: offset) }
    }

    /// The async form of `count()`.
    public func countAsync() async throws -> Int {
        try await readAsync { try $0.count() }
    }

    /// The async form of `createIndex(on:)`: the index is built on the store's writer queue.
    public func createIndexAsync(on field: String) async throws {
        try await writeAsync { try $0.createIndex(on: field) }
    }

    /// The async form of `dropIndex(on:)`.
    public func dropIndexAsync(on field: String) async throws {
        try await writeAsync { try $0.dropIndex(on: field) }
    }

    private func writeAsync<T: Sendable>(_ body: @escaping @Sendable (DocumentCollection) throws -> T)
        async throws -> T
    {
        try await BlockingWork.run(on: store.writerQueue) { _ in try body(self) }
    }

    private func readAsync<T: Sendable>(_ body: @escaping @Sendable (DocumentCollection) throws -> T)
        async throws -> T
    {
        try await BlockingWork.run { _ in try body(self) }
    }
}

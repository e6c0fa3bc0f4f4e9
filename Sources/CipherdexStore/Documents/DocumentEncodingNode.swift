/// A value `DocumentEncoder` is building: empty until something is encoded into it, then a
/// finished value, or an array or object whose elements may still be being encoded.
///
/// A node knows how many arrays and objects enclose it (`level`); one that would make an array or
/// object nested deeper than the session's limit refuses to (`makeArray`, `makeObject`), and
/// records that in the session, so the tree never grows deeper than the limit and
/// `build()` never recurses further.
final class DocumentEncodingNode {
    /// What one encoding shares: the nesting limit and whether anything went past it.
    final class Session {
        let limit: Int
        /// Whether an array or object past the limit was asked for.
        var refusedNesting = false

        init(limit: Int) { self.limit = limit }
    }

    /// Thrown by a container past the limit for everything encoded into it.
    struct TooDeep: Error {}

    /// An element or member: a finished value, or a node still being encoded.
    enum Child {
        case value(JSONValue)
        case node(DocumentEncodingNode)
    }

    private enum Content {
        case empty
        case value(JSONValue)
        case array([Child])
        case object([String: Child])
    }

    let session: Session
    /// How many arrays and objects enclose this value.
    let level: Int
    private var content = Content.empty

    init(level: Int, session: Session) {
        self.level = level
        self.session = session
    }

    /// A node in no tree, past the limit: what a container past the limit hands out, so that
    /// everything below it is refused too.
    static func detached(in session: Session) -> DocumentEncodingNode {
        DocumentEncodingNode(level: session.limit + 1, session: session)
    }

    /// Makes the node the value (replacing whatever it held).
    func set(_ value: JSONValue) { content = .value(value) }

    /// Makes the node an array, keeping its elements when it is one already; false (and the
    /// session marked) when an array here would nest deeper than the limit.
    func makeArray() -> Bool {
        guard level < session.limit else {
            session.refusedNesting = true
            return false
        }
        if case .array = content { return true }
        content = .array([])
        return true
    }

    /// Makes the node an object, keeping its members when it is one already (as `JSONEncoder`
    /// does for a second keyed container); false as `makeArray()`.
    func makeObject() -> Bool {
        guard level < session.limit else {
            session.refusedNesting = true
            return false
        }
        if case .object = content { return true }
        content = .object([:])
        return true
    }

    /// The number of elements of an array (0 for anything else).
    var count: Int {
        if case .array(let elements) = content { return elements.count }
        return 0
    }

    /// Appends an element to an array.
    func append(_ child: Child) {
        guard case .array(var elements) = content else { return }
        content = .empty
        elements.append(child)
        content = .array(elements)
    }

    /// Sets an object's member (replacing one with the same key).
    func set(_ child: Child, forKey key: String) {
        guard case .object(var members) = content else { return }
        content = .empty
        members[key] = child
        content = .object(members)
    }

    /// A new, empty node appended to an array.
    func appendNode() -> DocumentEncodingNode {
        let node = DocumentEncodingNode(level: level + 1, session: session)
        append(.node(node))
        return node
    }

    /// A new, empty node as an object's member.
    func memberNode(forKey key: String) -> DocumentEncodingNode {
        let node = DocumentEncodingNode(level: level + 1, session: session)
        set(.node(node), forKey: key)
        return node
    }

    /// The finished value; nil when nothing was encoded. An element or member into which
    /// nothing was encoded is an empty object, as `JSONEncoder` writes it.
    func build() -> JSONValue? {
        switch content {
        case .empty: return nil
        case .value(let value): return value
        case .array(let elements): return .array(elements.map(Self.build))
        case .object(let members): return .object(members.mapValues(Self.build))
        }
    }

    private static func build(_ child: Child) -> JSONValue {
        switch child {
        case .value(let value): return value
        case .node(let node): return node.build() ?? .object([:])
        }
    }
}

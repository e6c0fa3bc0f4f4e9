import Cipherdex
import Foundation

/// `cipherdex doc put|get|rm|find`: documents in named collections.
struct DocCommand: Command {
    static let name = "doc"
    static let summary = "put, get, remove and find JSON documents"
    static let help = """
        USAGE: cipherdex doc put STORE COLLECTION ID [FILE|-] [KEY]
               cipherdex doc get STORE COLLECTION ID [KEY]
               cipherdex doc rm STORE COLLECTION ID [KEY]
               cipherdex doc find STORE COLLECTION [--where FIELD=VALUE]… [--limit N] [--json] [KEY]

        put      stores the JSON object read from FILE (or stdin with - or no FILE), replacing any
                 document with that ID; FILE must be a regular file, and the text at most 256 MiB
                 (documentTooLarge)
        get      prints the document's JSON as stored: canonical (no white space, members sorted by
                 key), every string exactly as put and every number's exact value in canonical
                 form: 1E+2 as 100, 0.0000001234 as 1.234e-7, and an integer that plain digits
                 would pad with zeros past 21 digits in exponent form (1e21; FORMAT.md section 5)
        rm       removes the document
        find     prints the documents matching every --where: FIELD is a dotted path
                 (address.city); the operator is one of = < <= > >= (no != or ==); VALUE is read as
                 JSON when it parses (9, true, "x") and as a string otherwise (one that begins with
                 =, < or > only as a JSON string: name='"=1"'). One id per line, or with --json
                 a JSON array of {"id": …, "document": …}.

        KEY (one of; omit for an unencrypted store):
        \(KeyOptions.help())
        """

    private let action: Action
    private let path: String
    private let key: KeyOptions

    private enum Action {
        case put(collection: String, id: String, file: String?)
        case get(collection: String, id: String)
        case remove(collection: String, id: String)
        case find(collection: String, predicates: [FieldPredicate], limit: Int?, json: Bool)
    }

    init(parsing arguments: inout Arguments) throws {
        let json = arguments.flag("--json")
        let wheres = try arguments.options("--where")
        let limit = try arguments.option("--limit")
        key = try KeyOptions(parsing: &arguments)
        let verb = try arguments.positional("a doc action (put, get, rm, find)")
        path = try arguments.path("STORE")
        let collection = try arguments.positional("COLLECTION")
        switch verb {
        case "put":
            let id = try arguments.positional("ID")
            let file = arguments.optionalPositional()
            if file?.isEmpty == true { throw CLIError.usage("FILE is an empty path") }
            action = .put(collection: collection, id: id, file: file)
        case "get":
            action = .get(collection: collection, id: try arguments.positional("ID"))
        case "rm":
            action = .remove(collection: collection, id: try arguments.positional("ID"))
        case "find":
            var parsedLimit: Int?
            if let limit {
                guard let value = Int(limit), value > 0 else {
                    throw CLIError.usage("--limit needs a positive integer")
                }
                parsedLimit = value
            }
            action = .find(
                collection: collection, predicates: try wheres.map(WhereClause.parse), limit: parsedLimit, json: json)
        default:
            throw CLIError.usage("unknown doc action '\(verb)' (put, get, rm, find)")
        }
        if case .find = action {
        } else if !wheres.isEmpty || limit != nil || json {
            throw CLIError.usage("--where, --limit and --json belong to doc find")
        }
    }

    func run() throws {
        // The document is read before the store is opened: the store's lock is not held while
        // standard input is typed or a large file is read.
        var input: Data?
        if case .put(_, _, let file) = action { input = try DocumentInput.read(file) }
        let store = try StoreArguments.open(path: path, key: key)
        defer { store.close() }
        switch action {
        case .put(let collection, let id, _):
            let data = input ?? Data()
            let kind = try store.collection(collection).upsert(id: id, json: data)
            Output.committed("the document \(collection)/\(id) is stored")
            try Output.print(
                kind == .insert
                    ? "inserted \(collection)/\(Output.shown(id))" : "updated \(collection)/\(Output.shown(id))")
        case .get(let collection, let id):
            // The stored text is the canonical JSON `get(id:)`'s value would print, checked but
            // not parsed: no tree many times the document's size.
            guard let text = try store.collection(collection).json(id: id) else {
                throw CLIError.failed(code: "documentNotFound", message: "no document \(id) in \(collection)")
            }
            try text.withUnsafeBytes { try Output.write($0) }
            try Output.print("")
        case .remove(let collection, let id):
            guard try store.collection(collection).remove(id: id) else {
                throw CLIError.failed(code: "documentNotFound", message: "no document \(id) in \(collection)")
            }
            Output.committed("the document \(collection)/\(id) is removed")
            try Output.print("removed \(collection)/\(Output.shown(id))")
        case .find(let collection, let predicates, let limit, let json):
            let documents = try store.collection(collection).findJSON(where: predicates, limit: limit)
            if json {
                try Self.writeCanonicalArray(documents) { piece in try piece.withUnsafeBytes { try Output.write($0) } }
            } else {
                for document in documents { try Output.print(Output.shown(document.id)) }
            }
        }
    }
}

extension DocCommand {
    /// Writes, in pieces through `write`, the canonical JSON of the array of
    /// `{"id": …, "document": …}` objects for `documents` and a line feed, as
    /// `JSONValue.canonicalString` of that array prints it (members in key order: `document`
    /// before `id`), from the stored texts, which are canonical already. Small pieces are
    /// gathered up to 1 MiB; a larger text is written as it is, never copied.
    static func writeCanonicalArray(_ documents: [DocumentJSON], _ write: (Data) throws -> Void) throws {
        let gathered = 1 << 20
        var buffer = Data()
        buffer.append(UInt8(ascii: "["))
        for (offset, document) in documents.enumerated() {
            if offset > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.append(contentsOf: #"{"document":"#.utf8)
            if document.json.count < gathered {
                buffer.append(document.json)
            } else {
                try write(buffer)
                buffer.removeAll(keepingCapacity: true)
                try write(document.json)
            }
            buffer.append(contentsOf: #","id":"#.utf8)
            buffer.append(contentsOf: JSONValue.string(document.id).canonicalBytes)
            buffer.append(UInt8(ascii: "}"))
            if buffer.count >= gathered {
                try write(buffer)
                buffer.removeAll(keepingCapacity: true)
            }
        }
        buffer.append(contentsOf: "]\n".utf8)
        try write(buffer)
    }
}

/// One `--where FIELD<op>VALUE` clause.
enum WhereClause {
    /// Parses `address.city=Paris`, `age>=18`, `flag=true`, `name="9"`.
    static func parse(_ text: String) throws -> FieldPredicate {
        let operators: [(String, FieldPredicate.Comparison)] = [
            ("<=", .lessThanOrEqual), (">=", .greaterThanOrEqual), ("=", .equal), ("<", .lessThan), (">", .greaterThan),
        ]
        guard let operatorStart = text.firstIndex(where: { "=<>".contains($0) }) else {
            throw CLIError.usage("--where needs FIELD=VALUE (or <, <=, >, >=): \(text)")
        }
        let field = String(text[..<operatorStart])
        let rest = text[operatorStart...]
        guard !field.isEmpty, let (symbol, comparison) = operators.first(where: { rest.hasPrefix($0.0) }) else {
            throw CLIError.usage("--where needs FIELD=VALUE (or <, <=, >, >=): \(text)")
        }
        let valueText = String(rest.dropFirst(symbol.count))
        // `a!=1`, `a==1`, `a=>1` are no operators: refused rather than read as the field `a!` or
        // the string "=1".
        if field.hasSuffix("!") || valueText.first.map({ "=<>".contains($0) }) == true {
            throw CLIError.usage(
                "--where \(text): the operators are =, <, <=, > and >= (no != or ==); a value that begins with "
                    + "=, < or > is written as a JSON string (name='\"=1\"'), and a field whose name ends in ! "
                    + "cannot be queried here")
        }
        let value = (try? JSONValue(parsing: Data(valueText.utf8))) ?? .string(valueText)
        return FieldPredicate(field, comparison, value)
    }
}

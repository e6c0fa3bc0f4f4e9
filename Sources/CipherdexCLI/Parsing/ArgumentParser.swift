import Cipherdex

/// A small hand-rolled argument parser in the shape of swift-argument-parser: each command
/// declares what it takes, pulls it out of `Arguments`, and `finish()` rejects anything left.
struct Arguments {
    private var tokens: [String]
    private var consumed: [Bool]

    /// The arguments after the command name.
    init(_ tokens: [String]) {
        self.tokens = tokens
        self.consumed = Array(repeating: false, count: tokens.count)
    }

    /// Whether `--help` or `-h` is among the arguments not taken yet, before `--`: after it, or
    /// as an option's value (`--label -h`), it is an argument like any other.
    var wantsHelp: Bool {
        tokens.indices.contains { index in
            !consumed[index] && !isAfterDoubleDash(index) && (tokens[index] == "--help" || tokens[index] == "-h")
        }
    }

    /// Removes a boolean flag; true when present.
    mutating func flag(_ name: String) -> Bool {
        var found = false
        for index in tokens.indices where !consumed[index] && tokens[index] == name && !isAfterDoubleDash(index) {
            consumed[index] = true
            found = true
        }
        return found
    }

    /// Removes `--name VALUE` or `--name=VALUE`; nil when absent. Repeating it is an error.
    mutating func option(_ name: String) throws -> String? {
        let all = try options(name)
        guard all.count <= 1 else { throw CLIError.usage("\(name) given more than once") }
        return all.first
    }

    /// Removes every `--name VALUE` occurrence, in order.
    mutating func options(_ name: String) throws -> [String] {
        var values: [String] = []
        var index = 0
        while index < tokens.count {
            defer { index += 1 }
            guard !consumed[index], !isAfterDoubleDash(index) else { continue }
            let token = tokens[index]
            if token == name {
                guard index + 1 < tokens.count, !consumed[index + 1] else {
                    throw CLIError.usage("\(name) needs a value")
                }
                consumed[index] = true
                consumed[index + 1] = true
                values.append(tokens[index + 1])
                index += 1
            } else if token.hasPrefix(name + "=") {
                consumed[index] = true
                values.append(String(token.dropFirst(name.count + 1)))
            }
        }
        return values
    }

    /// Removes the next positional argument; throws a usage error naming `label` when missing.
    mutating func positional(_ label: String) throws -> String {
        guard let value = optionalPositional() else {
            // An argument that begins with - is an option unless it comes after --: say so when
            // one is left that may have been meant as this one (`search s -alpha`).
            let dashed = tokens.indices.first { index in
                !consumed[index] && !isAfterDoubleDash(index) && tokens[index].hasPrefix("-")
                    && !tokens[index].hasPrefix("--") && tokens[index].count > 1
            }
            if let dashed {
                throw CLIError.usage(
                    "missing \(label) (\(tokens[dashed]) is read as an option; an argument that begins with - "
                        + "goes after --: -- \(tokens[dashed]))")
            }
            throw CLIError.usage("missing \(label)")
        }
        return value
    }

    /// Removes the next positional argument, a path: an empty one is refused before anything
    /// runs (each command met it differently: "no such directory", "overlaps the store"…), for
    /// STORE as the library refuses it (`invalidPath`, exit 1), otherwise a usage error.
    mutating func path(_ label: String) throws -> String {
        let value = try positional(label)
        guard !value.isEmpty else {
            if label == "STORE" { throw StoreError.invalidPath(path: value, reason: "the path is empty") }
            throw CLIError.usage("\(label) is an empty path")
        }
        return value
    }

    /// Removes the next positional argument, if any.
    mutating func optionalPositional() -> String? {
        for index in tokens.indices where !consumed[index] {
            let token = tokens[index]
            if token == "--" && !isAfterDoubleDash(index) {
                consumed[index] = true
                continue
            }
            if isAfterDoubleDash(index) || !token.hasPrefix("-") || token == "-" {
                consumed[index] = true
                return token
            }
        }
        return nil
    }

    /// Removes every remaining positional argument.
    mutating func remainingPositionals() -> [String] {
        var values: [String] = []
        while let value = optionalPositional() { values.append(value) }
        return values
    }

    /// Fails on anything not consumed: unknown options or extra arguments.
    func finish() throws {
        for index in tokens.indices where !consumed[index] {
            let token = tokens[index]
            // The `--` marker itself is no argument: what follows it is named instead.
            if token == "--" && !isAfterDoubleDash(index) { continue }
            if token.hasPrefix("-") && !isAfterDoubleDash(index) {
                throw CLIError.usage("unknown option \(token)")
            }
            throw CLIError.usage("unexpected argument \(token)")
        }
    }

    private func isAfterDoubleDash(_ index: Int) -> Bool {
        guard let marker = tokens.firstIndex(of: "--") else { return false }
        return index > marker
    }
}

import Cipherdex
import Foundation

/// Dispatches to the subcommands and turns errors into one stderr line and an exit status.
enum CipherdexCommandLine {
    /// Every subcommand, in the order `--help` lists them.
    static var commands: [any Command.Type] {
        [
            KeygenCommand.self, CreateCommand.self, InfoCommand.self, VerifyCommand.self, KeyCommand.self,
            RekeyCommand.self,
            ReencryptCommand.self, EncryptCommand.self, DecryptCommand.self,
            DeleteCommand.self, ExportCommand.self, BackupCommand.self, RestoreCommand.self, DocCommand.self,
            AttachCommand.self, CatCommand.self,
            DetachCommand.self,
            AddCommand.self, IndexCommand.self, SearchCommand.self, StatusCommand.self, RemoveCommand.self,
        ]
    }

    static var help: String {
        var text = """
            cipherdex — an encrypted, searchable document store

            USAGE: cipherdex COMMAND [OPTIONS]

            COMMANDS:

            """
        for command in commands {
            text += "  " + command.name.padding(toLength: 10, withPad: " ", startingAt: 0) + command.summary + "\n"
        }
        text += """

            Run `cipherdex COMMAND --help` for a command's options, `cipherdex --version` for versions.
            Arguments after -- are never options: an id, file or query that begins with - goes
            after it, every option before it (cipherdex doc put s notes --key-file k -- -5 note.json).
            Exit status: 0 ok, 10 keyRequired, 11 keyUnexpected, 12 keyInvalid, 13 unsupportedScheme,
            14 metadataCorrupt, 15 storeCorrupted, 16 storeLocked, 17 permissionDenied, 18 diskFull
            (or fileTooLarge: past the file-size limit), 19 ioError, 20 mountPoint, 21 outputFailed
            (the change is made, its report could not be written), 22 resourcesExhausted (too many
            open files, ulimit -n, or too little memory: not damage; retry), 64 usage, 1 anything else.
            """
        return text
    }

    /// `cipherdex --version`: the versions, and where PDF extraction's helper is (or what to
    /// build when it is missing).
    static var version: String {
        let helper =
            IsolatedPDFExtractor.locateHelper().map {
                $0 == IsolatedPDFExtractor.selfHelperPath
                    ? "extraction helper: built in (this executable, re-run in helper mode)"
                    : "extraction helper: \($0)"
            } ?? "extraction helper: not found. " + IsolatedPDFExtractor.missingHelperAdvice
        return "cipherdex \(CipherdexVersion.current) (SQLCipher on SQLite \(CipherdexVersion.sqlite), "
            + "libsodium \(CipherdexVersion.sodium))\n\(helper)"
    }

    /// Runs the command line; returns the exit status.
    static func run(_ argv: [String]) -> Int32 {
        if argv.first == "--version" || argv.first == "version" {
            do { try Output.print(version) } catch { return report(error) }
            return ExitStatus.success
        }
        if argv.first == "help", argv.count > 1 {
            // `cipherdex help COMMAND` is `cipherdex COMMAND --help`.
            guard let command = commands.first(where: { $0.name == argv[1] }) else {
                return report(CLIError.usage("unknown command '\(argv[1])'; see `cipherdex --help`"))
            }
            do { try Output.print(command.help) } catch { return report(error) }
            return ExitStatus.success
        }
        guard let name = argv.first, name != "--help", name != "-h", name != "help" else {
            // Asked for, the help is the output; with no command at all it is the usage error's
            // message, on standard error.
            if argv.isEmpty {
                Output.printError(help)
                return ExitStatus.usage
            }
            do { try Output.print(help) } catch { return report(error) }
            return ExitStatus.success
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            return report(CLIError.usage("unknown command '\(name)'; see `cipherdex --help`"))
        }
        // Help is asked by `--help` or `-h` left once the command has taken its options' values
        // (or where parsing stopped with a usage error): never one after `--`, nor a value.
        var arguments = Arguments(Array(argv.dropFirst()))
        func printHelp() -> Int32 {
            do { try Output.print(command.help) } catch { return report(error) }
            return ExitStatus.success
        }
        do {
            let instance: any Command
            do {
                instance = try command.init(parsing: &arguments)
            } catch {
                // Asked for help, the arguments' own faults (a usage error, an empty STORE) wait.
                if arguments.wantsHelp { return printHelp() }
                throw error
            }
            if arguments.wantsHelp { return printHelp() }
            try arguments.finish()
            try instance.run()
            return ExitStatus.success
        } catch {
            return report(error)
        }
    }

    /// `error`, or the store's typed case of a system call's or SQLite's failure that reached
    /// here untyped (its errno and code decide: permission, full disk, EIO, damage), never a bare
    /// "error" whose message repeats the word ("error: error: SQLite error 10").
    static func typed(_ error: Error) -> Error {
        if let failure = error as? SystemError { return StoreError.classifying(failure) }
        if let failure = error as? DatabaseError { return StoreError.classifying(failure) }
        return error
    }

    /// Prints `cipherdex: error: <code>: <message>` and returns the status.
    static func report(_ error: Error) -> Int32 {
        let error = typed(error)
        let (code, status) = ExitStatus.describe(error)
        var message = (error as? LocalizedError)?.errorDescription ?? String(describing: error)
        if case .storeLocked(let path)? = error as? StoreError {
            // The library's wording names what only a program holding the store sees (an open or
            // close of its own still finishing): a command has one open, so it was another's.
            message =
                "the store at \(path) is open in another process (a program using it, or another cipherdex "
                + "command still running): close it there or wait for that command, then retry"
        }
        // One line, and no control character from a path or an argument (an escape sequence in a
        // file name would otherwise be played by the terminal).
        Output.printError("cipherdex: error: \(code): \(SearchCLI.singleLine(message))")
        return status
    }
}

import Cipherdex
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Reads a passphrase from the controlling terminal with echo turned off.
enum TerminalPassphrase {
    /// Prompts on /dev/tty and reads one line without echo.
    static func read(prompt: String) throws -> EncryptionKey {
        // The line's bytes as they are (never decoded into a `String`, which would repair bytes
        // that are not UTF-8 and could not be zeroed).
        try readLine(prompt: prompt) { line in try line.withUnsafeBytes { try EncryptionKey.passphrase(bytes: $0) } }
    }

    /// Prompts on /dev/tty and reads a recovery key without echo.
    static func readRecoveryKey(prompt: String) throws -> RecoveryKey {
        try readLine(prompt: prompt) { try RecoveryKey(parsing: String(decoding: $0, as: UTF8.self)) }
    }

    /// Reads one line without echo and hands its bytes to `body`; they are zeroed afterwards.
    private static func readLine<T>(prompt: String, _ body: ([UInt8]) throws -> T) throws -> T {
        let tty = open("/dev/tty", O_RDWR | O_CLOEXEC)
        guard tty >= 0 else {
            throw CLIError.usage("asking at the terminal needs one; use a -file or -env KEY option")
        }
        defer { close(tty) }
        var original = termios()
        guard tcgetattr(tty, &original) == 0 else {
            throw CLIError.usage("asking at the terminal needs one; use a -file or -env KEY option")
        }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        _ = prompt.withCString { write(tty, $0, strlen($0)) }
        tcsetattr(tty, TCSAFLUSH, &silent)
        defer {
            tcsetattr(tty, TCSAFLUSH, &original)
            _ = write(tty, "\n", 1)
        }
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while Glibc.read(tty, &byte, 1) == 1 && byte != 0x0A {
            bytes.append(byte)
        }
        defer { _ = bytes.withUnsafeMutableBytes { $0.initializeMemory(as: UInt8.self, repeating: 0) } }
        return try body(bytes)
    }
}

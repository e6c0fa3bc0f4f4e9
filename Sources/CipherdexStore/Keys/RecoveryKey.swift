import Foundation

/// A random 256-bit key meant to be printed once and kept offline, in a form a person can type
/// back: 13 groups of five Crockford base32 characters, four of key and one check character.
///
/// A mistyped group is named by its check character (`KeyError.recoveryKeyGroupMistyped`);
/// case, spaces and dashes do not matter, and the letters people confuse with digits are read as
/// those digits (`O` as `0`, `I` and `L` as `1`). A recovery key is a raw key: it opens the store
/// through a keyslot labelled `recovery` (`Store.addRecoveryKey()`).
public struct RecoveryKey: Sendable {
    /// Groups in the printed form.
    public static let groupCount = 13
    /// Key characters per group (the fifth is the check character).
    static let keyCharactersPerGroup = 4
    /// The Crockford base32 alphabet: digits and letters without I, L, O and U.
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    /// The key, as a raw encryption key.
    public let key: EncryptionKey

    /// A new random recovery key from the operating system's CSPRNG.
    public static func generate() -> RecoveryKey {
        RecoveryKey(key: EncryptionKey.generateRaw())
    }

    /// Reads a typed or pasted recovery key. Throws `KeyError.recoveryKeyMalformed` when the
    /// text cannot be a recovery key and `KeyError.recoveryKeyGroupMistyped` naming the first
    /// group whose check character does not match.
    public init(parsing text: String) throws {
        try self.init(parsingUTF8: text.utf8)
    }

    /// Reads a recovery key from a file (at most 4 KiB, a regular file or a link to one),
    /// straight into secure memory; `KeyError.unreadable` when it cannot be read.
    public init(contentsOfFile path: String) throws {
        let bytes = try EncryptionKey.readSecureFile(path, limit: 4096)
        self = try bytes.withUnsafeBytes { try RecoveryKey(parsingUTF8: $0) }
    }

    init<Text: Sequence>(parsingUTF8 text: Text) throws where Text.Element == UInt8 {
        let groupLength = Self.keyCharactersPerGroup + 1
        let symbolCount = Self.groupCount * groupLength
        // The typed symbols are key material: they live in zeroing memory, like the key.
        var typed = 0
        var foreign = false
        let symbols = SecureBytes(count: symbolCount) { buffer in
            for byte in text {
                if byte == 0x20 || byte == 0x2D || byte == 0x09 || byte == 0x0A || byte == 0x0D { continue }
                guard let value = Self.value(of: byte) else {
                    foreign = true
                    return
                }
                if typed < symbolCount { buffer[typed] = value }
                typed += 1
            }
        }
        guard !foreign else {
            throw KeyError.recoveryKeyMalformed("it holds a character that is not in the recovery-key alphabet")
        }
        guard typed == symbolCount else {
            throw KeyError.recoveryKeyMalformed(
                "it has \(typed) characters, not \(symbolCount) (\(Self.groupCount) groups of \(groupLength))")
        }
        let mistyped = symbols.withUnsafeBytes { typed in
            (0..<Self.groupCount).first { group in
                let start = group * groupLength
                let keyPart = UnsafeRawBufferPointer(rebasing: typed[start..<start + Self.keyCharactersPerGroup])
                return Self.checkSymbol(group: group, keyPart) != typed[start + Self.keyCharactersPerGroup]
            }
        }
        if let mistyped { throw KeyError.recoveryKeyGroupMistyped(group: mistyped + 1) }
        var leftover: UInt32 = 0
        let secret = SecureBytes(count: EncryptionKey.rawKeyLength) { output in
            symbols.withUnsafeBytes { typed in
                var accumulator: UInt32 = 0
                var bits = 0
                var index = 0
                for group in 0..<Self.groupCount {
                    for position in 0..<Self.keyCharactersPerGroup {
                        accumulator = (accumulator << 5) | UInt32(typed[group * groupLength + position])
                        bits += 5
                        if bits >= 8 {
                            bits -= 8
                            if index < output.count {
                                output[index] = UInt8(truncatingIfNeeded: accumulator >> UInt32(bits))
                            }
                            index += 1
                        }
                        accumulator &= (1 << UInt32(bits)) - 1
                    }
                }
                leftover = accumulator
                accumulator = 0
            }
        }
        // 52 symbols carry 260 bits: the last four are zero in every key this type prints.
        guard leftover == 0 else { throw KeyError.recoveryKeyGroupMistyped(group: Self.groupCount) }
        key = try EncryptionKey.fromSecure(kind: .raw, secret)
    }

    private init(key: EncryptionKey) {
        self.key = key
    }

    /// The printed form, `XXXXC-XXXXC-…` (13 groups). Show it once; it is the key itself.
    public var formatted: String {
        let keySymbolCount = Self.groupCount * Self.keyCharactersPerGroup
        let symbols = SecureBytes(count: keySymbolCount) { output in
            key.secret.withUnsafeBytes { bytes in
                var accumulator: UInt32 = 0
                var bits = 0
                var index = 0
                for byte in bytes {
                    accumulator = (accumulator << 8) | UInt32(byte)
                    bits += 8
                    while bits >= 5 {
                        bits -= 5
                        output[index] = UInt8((accumulator >> UInt32(bits)) & 31)
                        index += 1
                    }
                    accumulator &= (1 << UInt32(bits)) - 1
                }
                output[index] = UInt8((accumulator << UInt32(5 - bits)) & 31)
                accumulator = 0
            }
        }
        var text = ""
        symbols.withUnsafeBytes { symbols in
            for group in 0..<Self.groupCount {
                let start = group * Self.keyCharactersPerGroup
                let keyPart = UnsafeRawBufferPointer(rebasing: symbols[start..<start + Self.keyCharactersPerGroup])
                if group > 0 { text.append("-") }
                for symbol in keyPart {
                    text.unicodeScalars.append(Unicode.Scalar(Self.alphabet[Int(symbol)]))
                }
                text.unicodeScalars.append(Unicode.Scalar(Self.alphabet[Int(Self.checkSymbol(group: group, keyPart))]))
            }
        }
        return text
    }

    /// The check symbol of a group: a weighted sum modulo 32 of the group's position and its
    /// four symbols with odd weights, so any one mistyped character changes it (odd weights are
    /// invertible modulo 32), as do most swaps of neighbours and of whole groups.
    static func checkSymbol(group: Int, _ symbols: UnsafeRawBufferPointer) -> UInt8 {
        var sum = (group + 1) * 7
        for (position, symbol) in symbols.enumerated() {
            sum += (2 * position + 1) * Int(symbol)
        }
        return UInt8(sum % 32)
    }

    /// The value of a typed character, nil when it is not part of the alphabet.
    static func value(of byte: UInt8) -> UInt8? {
        var upper = byte
        if (0x61...0x7A).contains(upper) { upper -= 0x20 }
        switch upper {
        case UInt8(ascii: "O"): return 0
        case UInt8(ascii: "I"), UInt8(ascii: "L"): return 1
        default: return alphabet.firstIndex(of: upper).map { UInt8($0) }
        }
    }
}

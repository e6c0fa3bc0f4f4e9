internal import CSodium

extension SecureBytes {
    /// Decodes hexadecimal digits held in secure memory into secure memory. Returns nil when
    /// the text is not exactly `2 * byteCount` hex digits (surrounding whitespace is trimmed).
    static func decodingHex(_ text: SecureBytes, byteCount: Int) -> SecureBytes? {
        text.withUnsafeBytes { raw -> SecureBytes? in
            var start = 0
            var end = raw.count
            func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
            while start < end && isSpace(raw[start]) { start += 1 }
            while end > start && isSpace(raw[end - 1]) { end -= 1 }
            guard end - start == byteCount * 2 else { return nil }
            var ok = true
            let decoded = SecureBytes(count: byteCount) { destination in
                var written = 0
                let base = raw.baseAddress!.assumingMemoryBound(to: CChar.self) + start
                ok =
                    sodium_hex2bin(
                        destination.baseAddress!.assumingMemoryBound(to: UInt8.self), byteCount, base,
                        end - start, nil, &written, nil) == 0 && written == byteCount
            }
            return ok ? decoded : nil
        }
    }

    /// The bytes as lowercase hex digits followed by a newline, in secure memory.
    func hexLine() -> SecureBytes {
        SecureBytes(count: count * 2 + 1) { destination in
            let scratch = SecureBytes(count: count * 2 + 1) { hex in
                withUnsafeBytes { source in
                    _ = sodium_bin2hex(
                        hex.baseAddress!.assumingMemoryBound(to: CChar.self), count * 2 + 1,
                        source.baseAddress!.assumingMemoryBound(to: UInt8.self), count)
                }
            }
            scratch.withUnsafeBytes { destination.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: count * 2) }
            destination[count * 2] = 0x0A
        }
    }
}

/// Encodes a gray image of one level as a baseline JPEG (JFIF-less, one component), for test PDFs
/// whose images poppler decodes with libjpeg (`/DCTDecode`): every 8 × 8 block is its DC value
/// alone, so the encoder is a few tables and two Huffman codes a block.
public enum UniformJPEG {
    /// A `width` × `height` JPEG of gray `level` (0 black, 255 white), decoded back exactly.
    public static func gray(width: Int, height: Int, level: UInt8) -> [UInt8] {
        precondition(width > 0 && height > 0 && width <= 65535 && height <= 65535)
        var out: [UInt8] = [0xFF, 0xD8]
        // DQT: table 0, every step 1 (a DC coefficient is 8 × (level − 128), decoded exactly).
        out += [0xFF, 0xDB, 0x00, 0x43, 0x00] + [UInt8](repeating: 1, count: 64)
        // SOF0: 8 bits, the size, one component (id 1, 1 × 1 sampling, table 0).
        out += [0xFF, 0xC0, 0x00, 0x0B, 0x08] + bigEndian16(height) + bigEndian16(width) + [0x01, 0x01, 0x11, 0x00]
        // DHT DC 0: the standard luminance DC table (categories 0–11).
        let dcCounts: [UInt8] = [0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0]
        out += [0xFF, 0xC4, 0x00, 0x1F, 0x00] + dcCounts + (0...11).map { UInt8($0) }
        // DHT AC 0: one code, "0", for end-of-block.
        out += [0xFF, 0xC4, 0x00, 0x14, 0x10, 0x01] + [UInt8](repeating: 0, count: 15) + [0x00]
        // SOS: component 1 with tables 0/0, spectral selection 0–63.
        out += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]
        var bits = BitWriter()
        let blocks = ((width + 7) / 8) * ((height + 7) / 8)
        for block in 0..<blocks {
            let difference = block == 0 ? 8 * (Int(level) - 128) : 0
            bits.writeDC(difference)
            bits.write(0, count: 1)  // end of block
        }
        out += bits.finish()
        out += [0xFF, 0xD9]
        return out
    }

    /// `value` as two bytes, most significant first.
    private static func bigEndian16(_ value: Int) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }

    /// The entropy-coded segment: bits most significant first, a 0xFF byte followed by 0x00.
    private struct BitWriter {
        var bytes: [UInt8] = []
        var current: UInt32 = 0
        var used = 0

        /// Appends the low `count` bits of `value`.
        mutating func write(_ value: Int, count: Int) {
            for shift in stride(from: count - 1, through: 0, by: -1) {
                current = current << 1 | UInt32((value >> shift) & 1)
                used += 1
                if used == 8 { flushByte() }
            }
        }

        /// A DC difference: its category's code in the standard table, then its bits.
        mutating func writeDC(_ difference: Int) {
            let magnitude = abs(difference)
            let category = magnitude == 0 ? 0 : Int.bitWidth - magnitude.leadingZeroBitCount
            // Codes of the standard luminance DC table, by category: (code, length).
            let codes: [(Int, Int)] = [
                (0b00, 2), (0b010, 3), (0b011, 3), (0b100, 3), (0b101, 3), (0b110, 3), (0b1110, 4), (0b11110, 5),
                (0b111110, 6), (0b1111110, 7), (0b11111110, 8), (0b111111110, 9),
            ]
            write(codes[category].0, count: codes[category].1)
            if category > 0 {
                // A negative difference is written as its ones' complement in `category` bits.
                write(difference >= 0 ? difference : difference - 1, count: category)
            }
        }

        /// Pads the last byte with 1 bits and returns the segment.
        mutating func finish() -> [UInt8] {
            while used != 0 { write(1, count: 1) }
            return bytes
        }

        private mutating func flushByte() {
            let byte = UInt8(current & 0xFF)
            bytes.append(byte)
            if byte == 0xFF { bytes.append(0x00) }
            current = 0
            used = 0
        }
    }
}

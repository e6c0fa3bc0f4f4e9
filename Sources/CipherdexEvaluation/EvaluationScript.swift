/// The writing system of a truth word or run, as the evaluation reports it.
///
/// Scripts whose words are not separated by spaces (Han, kana, Hangul, Thai, Lao, Khmer,
/// Myanmar) are *substring scripts*: their truth "words" are substrings of a run of the script,
/// and a query matches a page whose run (with whitespace inside it removed) contains it.
public enum EvaluationScript: String, Sendable, CaseIterable, Codable, Comparable {
    case latin = "Latin"
    case greek = "Greek"
    case cyrillic = "Cyrillic"
    case armenian = "Armenian"
    case georgian = "Georgian"
    case hebrew = "Hebrew"
    case arabic = "Arabic"
    case indic = "Indic"
    case ethiopic = "Ethiopic"
    case han = "Han"
    case kana = "Kana"
    case hangul = "Hangul"
    case thai = "Thai"
    case lao = "Lao"
    case khmer = "Khmer"
    case myanmar = "Myanmar"
    case other = "other"

    /// Whether truth words of this script are substrings of runs rather than spaced words.
    public var isSubstringScript: Bool {
        switch self {
        case .han, .kana, .hangul, .thai, .lao, .khmer, .myanmar: return true
        default: return false
        }
    }

    /// Whether the script has upper and lower case.
    public var isCased: Bool {
        switch self {
        case .latin, .greek, .cyrillic, .armenian: return true
        default: return false
        }
    }

    /// Orders scripts as declared.
    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }

    /// The script of `scalar` by Unicode block (marks and digits get `.other`, and a word takes
    /// the script of its first letter).
    public static func of(_ scalar: Unicode.Scalar) -> EvaluationScript {
        switch scalar.value {
        case 0x41...0x5A, 0x61...0x7A, 0xC0...0x24F, 0x1E00...0x1EFF, 0x2C60...0x2C7F, 0xA720...0xA7FF, 0xFB00...0xFB06,
            0xFF21...0xFF3A, 0xFF41...0xFF5A:
            return .latin
        case 0x370...0x3FF, 0x1F00...0x1FFF: return .greek
        case 0x400...0x52F, 0x2DE0...0x2DFF, 0xA640...0xA69F: return .cyrillic
        case 0x530...0x58F, 0xFB13...0xFB17: return .armenian
        case 0x10A0...0x10FF, 0x2D00...0x2D2F: return .georgian
        case 0x590...0x5FF, 0xFB1D...0xFB4F: return .hebrew
        case 0x600...0x6FF, 0x750...0x77F, 0x8A0...0x8FF, 0xFB50...0xFDFF, 0xFE70...0xFEFF: return .arabic
        case 0x900...0xDFF: return .indic
        case 0xE00...0xE7F: return .thai
        case 0xE80...0xEFF: return .lao
        case 0x1000...0x109F, 0xA9E0...0xA9FF, 0xAA60...0xAA7F: return .myanmar
        case 0x1200...0x139F, 0x2D80...0x2DDF: return .ethiopic
        case 0x1780...0x17FF, 0x19E0...0x19FF: return .khmer
        case 0x1100...0x11FF, 0x3131...0x318E, 0xA960...0xA97F, 0xAC00...0xD7A3, 0xD7B0...0xD7FF, 0xFFA0...0xFFDC:
            return .hangul
        case 0x3041...0x309F, 0x30A0...0x30FF, 0x31F0...0x31FF, 0xFF66...0xFF9F, 0x1B000...0x1B16F: return .kana
        case 0x2F00...0x2FD5, 0x3005...0x3007, 0x303B, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF,
            0x20000...0x323AF:
            return .han
        default: return .other
        }
    }
}

// A verbatim copy of the tokenizer before the fast path (commit dd3d0af), kept as the
// reference the equivalence tests compare the production tokenizer with. Do not optimise.

@testable import Cipherdex
@testable import CipherdexStore

/// The Porter (1980) English stemmer, a direct port of Martin Porter's reference ANSI C
/// implementation (including its two documented departures: `bli` → `ble` and `logi` → `log`).
/// Works on lower-case ASCII letters; words of one or two letters are returned unchanged.
struct ReferencePorterStemmer {
    /// The word being stemmed; `b[0...k]` is the current stem.
    private var b: [UInt8]
    /// The end of the current stem.
    private var k: Int
    /// The end of the stem before a matched suffix (set by `ends`).
    private var j = 0

    /// The stem of `word` (lower-case ASCII letters).
    static func stem(_ word: [UInt8]) -> [UInt8] {
        guard word.count > 2 else { return word }
        var stemmer = ReferencePorterStemmer(b: word, k: word.count - 1)
        stemmer.step1ab()
        if stemmer.k > 0 {
            stemmer.step1c()
            stemmer.step2()
            stemmer.step3()
            stemmer.step4()
            stemmer.step5()
        }
        return Array(stemmer.b[0...stemmer.k])
    }

    /// The stem of `word`, as a string (convenience for tests).
    static func stem(_ word: String) -> String {
        String(decoding: stem(Array(word.utf8)), as: UTF8.self)
    }

    /// Creates a stemmer over `b` ending at `k`.
    private init(b: [UInt8], k: Int) {
        self.b = b
        self.k = k
    }

    /// Whether `b[i]` is a consonant.
    private func cons(_ i: Int) -> Bool {
        switch b[i] {
        case UInt8(ascii: "a"), UInt8(ascii: "e"), UInt8(ascii: "i"), UInt8(ascii: "o"), UInt8(ascii: "u"): return false
        case UInt8(ascii: "y"): return i == 0 ? true : !cons(i - 1)
        default: return true
        }
    }

    /// The number of consonant sequences between 0 and j (the "measure").
    private func m() -> Int {
        var n = 0
        var i = 0
        while true {
            if i > j { return n }
            if !cons(i) { break }
            i += 1
        }
        i += 1
        while true {
            while true {
                if i > j { return n }
                if cons(i) { break }
                i += 1
            }
            i += 1
            n += 1
            while true {
                if i > j { return n }
                if !cons(i) { break }
                i += 1
            }
            i += 1
        }
    }

    /// Whether `b[0...j]` contains a vowel.
    private func vowelInStem() -> Bool {
        j >= 0 && (0...j).contains { !cons($0) }
    }

    /// Whether `b[i-1...i]` is a double consonant.
    private func doubleConsonant(_ i: Int) -> Bool {
        i >= 1 && b[i] == b[i - 1] && cons(i)
    }

    /// Whether `b[i-2...i]` is consonant-vowel-consonant and the last is not w, x or y.
    private func cvc(_ i: Int) -> Bool {
        guard i >= 2, cons(i), !cons(i - 1), cons(i - 2) else { return false }
        let ch = b[i]
        return ch != UInt8(ascii: "w") && ch != UInt8(ascii: "x") && ch != UInt8(ascii: "y")
    }

    /// Whether the stem ends with `suffix`; if so, sets `j` before it.
    private mutating func ends(_ suffix: StaticString) -> Bool {
        let length = suffix.utf8CodeUnitCount
        guard length <= k + 1 else { return false }
        let start = k - length + 1
        let matches = suffix.withUTF8Buffer { suffixBytes in
            (0..<length).allSatisfy { b[start + $0] == suffixBytes[$0] }
        }
        guard matches else { return false }
        j = k - length
        return true
    }

    /// Replaces `b[j+1...k]` with `replacement`.
    private mutating func setTo(_ replacement: StaticString) {
        let bytes = replacement.withUTF8Buffer { Array($0) }
        b.replaceSubrange((j + 1)..<(k + 1), with: bytes)
        k = j + bytes.count
    }

    /// `setTo` when the measure is positive.
    private mutating func r(_ replacement: StaticString) {
        if m() > 0 { setTo(replacement) }
    }

    /// Plurals and -ed/-ing.
    private mutating func step1ab() {
        if b[k] == UInt8(ascii: "s") {
            if ends("sses") { k -= 2 }
            else if ends("ies") { setTo("i") }
            else if b[k - 1] != UInt8(ascii: "s") { k -= 1 }
        }
        if ends("eed") {
            if m() > 0 { k -= 1 }
        } else if (ends("ed") || ends("ing")) && vowelInStem() {
            k = j
            if ends("at") { setTo("ate") }
            else if ends("bl") { setTo("ble") }
            else if ends("iz") { setTo("ize") }
            else if doubleConsonant(k) {
                k -= 1
                let ch = b[k]
                if ch == UInt8(ascii: "l") || ch == UInt8(ascii: "s") || ch == UInt8(ascii: "z") { k += 1 }
            } else if m() == 1 && cvc(k) {
                setTo("e")
            }
        }
    }

    /// Terminal y → i when there is another vowel in the stem.
    private mutating func step1c() {
        if ends("y") && vowelInStem() { b[k] = UInt8(ascii: "i") }
    }

    /// Double suffixes to single ones.
    private mutating func step2() {
        switch b[k - 1] {
        case UInt8(ascii: "a"):
            if ends("ational") { r("ate") } else if ends("tional") { r("tion") }
        case UInt8(ascii: "c"):
            if ends("enci") { r("ence") } else if ends("anci") { r("ance") }
        case UInt8(ascii: "e"):
            if ends("izer") { r("ize") }
        case UInt8(ascii: "l"):
            if ends("bli") { r("ble") } else if ends("alli") { r("al") } else if ends("entli") { r("ent") }
            else if ends("eli") { r("e") } else if ends("ousli") { r("ous") }
        case UInt8(ascii: "o"):
            if ends("ization") { r("ize") } else if ends("ation") { r("ate") } else if ends("ator") { r("ate") }
        case UInt8(ascii: "s"):
            if ends("alism") { r("al") } else if ends("iveness") { r("ive") } else if ends("fulness") { r("ful") }
            else if ends("ousness") { r("ous") }
        case UInt8(ascii: "t"):
            if ends("aliti") { r("al") } else if ends("iviti") { r("ive") } else if ends("biliti") { r("ble") }
        case UInt8(ascii: "g"):
            if ends("logi") { r("log") }
        default:
            break
        }
    }

    /// -ic-, -full, -ness etc.
    private mutating func step3() {
        switch b[k] {
        case UInt8(ascii: "e"):
            if ends("icate") { r("ic") } else if ends("ative") { r("") } else if ends("alize") { r("al") }
        case UInt8(ascii: "i"):
            if ends("iciti") { r("ic") }
        case UInt8(ascii: "l"):
            if ends("ical") { r("ic") } else if ends("ful") { r("") }
        case UInt8(ascii: "s"):
            if ends("ness") { r("") }
        default:
            break
        }
    }

    /// -ant, -ence etc. in context <c>vcvc<v>.
    private mutating func step4() {
        let matched: Bool
        switch b[k - 1] {
        case UInt8(ascii: "a"): matched = ends("al")
        case UInt8(ascii: "c"): matched = ends("ance") || ends("ence")
        case UInt8(ascii: "e"): matched = ends("er")
        case UInt8(ascii: "i"): matched = ends("ic")
        case UInt8(ascii: "l"): matched = ends("able") || ends("ible")
        case UInt8(ascii: "n"): matched = ends("ant") || ends("ement") || ends("ment") || ends("ent")
        case UInt8(ascii: "o"):
            matched = (ends("ion") && j >= 0 && (b[j] == UInt8(ascii: "s") || b[j] == UInt8(ascii: "t"))) || ends("ou")
        case UInt8(ascii: "s"): matched = ends("ism")
        case UInt8(ascii: "t"): matched = ends("ate") || ends("iti")
        case UInt8(ascii: "u"): matched = ends("ous")
        case UInt8(ascii: "v"): matched = ends("ive")
        case UInt8(ascii: "z"): matched = ends("ize")
        default: matched = false
        }
        if matched && m() > 1 { k = j }
    }

    /// Final -e and -ll.
    private mutating func step5() {
        j = k
        if b[k] == UInt8(ascii: "e") {
            let a = m()
            if a > 1 || (a == 1 && !cvc(k - 1)) { k -= 1 }
        }
        if b[k] == UInt8(ascii: "l") && doubleConsonant(k) && m() > 1 { k -= 1 }
    }
}

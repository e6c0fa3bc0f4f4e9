/// What the child reported before it died: how many writes were acknowledged (they are
/// acknowledged in order, so steps `0..<acknowledged`), the one begun but not acknowledged, and
/// what each acknowledgement carried (attachment ids).
struct AckLog: Sendable {
    /// Steps acknowledged.
    var acknowledged = 0
    /// The step begun and not acknowledged, if any: its effect may be there entirely or not at all.
    var inFlight: Int?
    /// Step → the value its `ack` line carried.
    var values: [Int: String] = [:]
    /// Whether the child reported `done`.
    var finished = false

    /// Reads the child's lines.
    init(lines: [String]) {
        var begun: Int?
        for line in lines {
            let words = line.split(separator: " ").map(String.init)
            switch words.first {
            case "begin": begun = words.count > 1 ? Int(words[1]) : nil
            case "ack":
                guard words.count > 1, let step = Int(words[1]) else { continue }
                acknowledged = step + 1
                if words.count > 2 { values[step] = words[2] }
                begun = nil
            case "done": finished = true
            default: break
            }
        }
        inFlight = begun
    }

    /// Whether step `step` may be visible (acknowledged or in flight).
    func mayBeVisible(_ step: Int) -> Bool { step < acknowledged || step == inFlight }
    /// Whether step `step` must be visible.
    func mustBeVisible(_ step: Int) -> Bool { step < acknowledged }
}

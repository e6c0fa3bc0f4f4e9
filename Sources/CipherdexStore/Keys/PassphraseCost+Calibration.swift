import Foundation
import Synchronization

extension PassphraseCost {
    /// Argon2id cost that takes about `seconds` on this machine with `memory` bytes (default
    /// 64 MiB, as KeePassXC), measured once per process for each pair and remembered: the passes
    /// are the target time over the measured time of one pass, capped to what an open accepts
    /// (`acceptedOpsLimits`). When one pass over `memory` already takes longer than the target,
    /// the memory is halved until it does not, never below 1 MiB (`minimumCalibratedMemory`): a
    /// target shorter than one pass over 1 MiB gets that one pass.
    ///
    /// The result is recorded in each keyslot made with it, so the store keeps opening on a
    /// slower machine; an open refuses costs beyond `acceptedOpsLimits`/`acceptedMemLimits`.
    public static func calibrated(targetSeconds seconds: Double, memory: Int = 64 << 20) throws -> PassphraseCost {
        guard seconds.isFinite, seconds > 0, seconds <= 60 else {
            throw KeyError.unsupportedCost("a calibration target must be more than 0 and at most 60 seconds")
        }
        guard acceptedMemLimits.contains(memory) else {
            throw KeyError.unsupportedCost("\(memory) bytes is outside \(acceptedMemLimits)")
        }
        let key = CalibrationKey(milliseconds: Int((seconds * 1000).rounded()), memory: memory)
        if let known = calibrations.withLock({ $0[key] }) { return known }
        var memLimit = memory
        var onePass = timeOnePass(memLimit: memLimit)
        while onePass > seconds, memLimit / 2 >= max(minimumCalibratedMemory, acceptedMemLimits.lowerBound) {
            memLimit /= 2
            onePass = timeOnePass(memLimit: memLimit)
        }
        let passes = UInt64(max(1, (seconds / max(onePass, 1e-6)).rounded(.down)))
        let cost = PassphraseCost(
            opsLimit: min(max(passes, acceptedOpsLimits.lowerBound), acceptedOpsLimits.upperBound), memLimit: memLimit)
        calibrations.withLock { $0[key] = cost }
        return cost
    }

    /// The least memory a calibration gives a slot: 1 MiB (below it Argon2id is no longer
    /// memory-hard in any useful sense; libsodium accepts 8 KiB).
    public static let minimumCalibratedMemory = 1 << 20

    private struct CalibrationKey: Hashable {
        var milliseconds: Int
        var memory: Int
    }

    private static let calibrations = Mutex<[CalibrationKey: PassphraseCost]>([:])

    /// Seconds of the faster of two one-pass Argon2id runs over `memLimit` bytes.
    private static func timeOnePass(memLimit: Int) -> Double {
        let passphrase = SecureBytes.random(count: 16)
        let salt = Sodium.randomBytes(Sodium.passwordSaltBytes)
        var best = Double.infinity
        for _ in 0..<2 {
            let start = ContinuousClock.now
            _ = try? Sodium.argon2id(passphrase: passphrase, salt: salt, opsLimit: 1, memLimit: memLimit)
            let elapsed = ContinuousClock.now - start
            best = min(best, Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        return best
    }
}

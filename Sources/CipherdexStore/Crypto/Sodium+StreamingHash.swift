internal import CSodium
import Foundation

extension Sodium {
    /// Incremental BLAKE2b-256 (`crypto_generichash_init/update/final`), keyed or not. Its state
    /// holds the key when keyed, so it lives in memory that is zeroed when the hash goes away.
    package final class StreamingHash {
        private let state: UnsafeMutableRawPointer
        private let stateBytes: Int
        private var finished = false

        /// Starts a hash, keyed with `key` (up to 64 bytes) when given.
        package init(key: SecureBytes?) {
            ensureInitialized()
            stateBytes = crypto_generichash_statebytes()
            var raw: UnsafeMutableRawPointer?
            precondition(posix_memalign(&raw, 64, stateBytes) == 0, "out of memory")
            state = raw!
            let typed = OpaquePointer(state)
            if let key {
                key.withUnsafeBytes { keyBytes in
                    _ = crypto_generichash_init(
                        typed, keyBytes.baseAddress!.assumingMemoryBound(to: UInt8.self), keyBytes.count, 32)
                }
            } else {
                _ = crypto_generichash_init(typed, nil, 0, 32)
            }
        }

        deinit {
            sodium_memzero(state, stateBytes)
            free(state)
        }

        /// Adds bytes.
        package func update(_ bytes: UnsafeRawBufferPointer) {
            guard let base = bytes.baseAddress, bytes.count > 0 else { return }
            _ = crypto_generichash_update(
                OpaquePointer(state), base.assumingMemoryBound(to: UInt8.self),
                UInt64(bytes.count))
        }

        /// The 32-byte digest; the hash cannot be used afterwards.
        package func finish() -> [UInt8] {
            precondition(!finished, "hash already finished")
            finished = true
            var output = [UInt8](repeating: 0, count: 32)
            _ = crypto_generichash_final(OpaquePointer(state), &output, 32)
            return output
        }
    }
}

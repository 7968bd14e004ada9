import Primitives
import Synchronization

/// Parsed ECDSA public keys by scheme and bytes, for verifying messages: a member checks the same
/// few senders' keys over and over, and decoding a P-256 point into an OpenSSL key costs about 40 % of
/// a verification. Parsing is a pure function of the bytes, so a cached key is exactly what parsing
/// would give; keys that fail to parse are not kept. EdDSA keys are only size-checked when parsed,
/// so they bypass the cache. Bounded: emptied when full.
final class SignaturePublicKeyCache: Sendable {
    static let shared = SignaturePublicKeyCache(capacity: 4096)

    private struct Entry: Hashable {
        let scheme: SignatureScheme
        let bytes: [UInt8]
    }

    private let capacity: Int
    private let keys = Mutex<[Entry: SignaturePublicKey]>([:])

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    func key(scheme: SignatureScheme, bytes: [UInt8]) throws(CryptoError) -> SignaturePublicKey {
        guard scheme.ecdsa != nil else { return try SignaturePublicKey(scheme: scheme, bytes: bytes) }
        let entry = Entry(scheme: scheme, bytes: bytes)
        if let cached = keys.withLock({ $0[entry] }) { return cached }
        let parsed = try SignaturePublicKey(scheme: scheme, bytes: bytes)
        keys.withLock { keys in
            if keys.count >= capacity { keys.removeAll(keepingCapacity: true) }
            keys[entry] = parsed
        }
        return parsed
    }

    var count: Int { keys.withLock { $0.count } }
}

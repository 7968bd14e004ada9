import CSodium

/// Secret key material that is wiped with `sodium_memzero` when the last copy goes away. Swift arrays
/// handed out by `bytes` are copies the caller owns; this only guarantees the stored copy is cleared.
final class SecretBytes: @unchecked Sendable {
    private var storage: [UInt8]

    init(_ bytes: [UInt8]) { storage = bytes }

    var bytes: [UInt8] { storage }
    var count: Int { storage.count }

    deinit {
        storage.withUnsafeMutableBytes { if let base = $0.baseAddress { sodium_memzero(base, $0.count) } }
    }
}

import COpenSSL

/// A SHA-2 hash computed piece by piece (OpenSSL EVP_DigestUpdate), for data too large to hold
/// at once, such as an upload streamed to disk. One owner at a time: not Sendable.
public final class IncrementalHash {
    public let algorithm: HashAlgorithm
    private let context: OpaquePointer
    private var finished = false

    public init(_ algorithm: HashAlgorithm) {
        self.algorithm = algorithm
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new") }
        // With a fetched SHA-2, init only fails on allocation failure.
        precondition(EVP_DigestInit_ex2(context, algorithm.evpMD, nil) == 1, "EVP_DigestInit_ex2 failed")
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds `bytes` to the hashed input. Must not be called after `finalize()`.
    public func update(_ bytes: [UInt8]) {
        precondition(!finished, "IncrementalHash used after finalize")
        guard !bytes.isEmpty else { return }
        let ok = bytes.withUnsafeBufferPointer { EVP_DigestUpdate(context, $0.baseAddress, $0.count) }
        precondition(ok == 1, "EVP_DigestUpdate failed")
    }

    /// The digest of everything passed to `update`; the hash cannot be used afterwards.
    public func finalize() -> [UInt8] {
        precondition(!finished, "IncrementalHash finalized twice")
        finished = true
        var out = [UInt8](repeating: 0, count: algorithm.outputSize)
        var length: UInt32 = 0
        let ok = out.withUnsafeMutableBufferPointer { EVP_DigestFinal_ex(context, $0.baseAddress, &length) }
        precondition(ok == 1 && Int(length) == algorithm.outputSize, "EVP_DigestFinal_ex failed")
        return out
    }
}

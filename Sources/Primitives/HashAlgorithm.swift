import COpenSSL

/// The SHA-2 hashes MLS cipher suites use (OpenSSL EVP; libsodium 1.0.18 has no SHA-384).
public enum HashAlgorithm: Sendable, CaseIterable {
    case sha256, sha384, sha512

    public var outputSize: Int {
        switch self {
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    /// The hash's block size, which HMAC needs.
    public var blockSize: Int {
        switch self {
        case .sha256: 64
        case .sha384, .sha512: 128
        }
    }

    public func hash(_ data: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: outputSize)
        var length: UInt32 = 0
        let ok = data.withUnsafeBufferPointer { input in
            out.withUnsafeMutableBufferPointer { output in
                EVP_Digest(input.baseAddress, input.count, output.baseAddress, &length, evpMD, nil)
            }
        }
        // EVP_Digest with a fetched SHA-2 only fails on allocation failure.
        precondition(ok == 1 && Int(length) == outputSize, "EVP_Digest failed")
        return out
    }

    /// The fetched `EVP_MD`, shared read-only across threads.
    var evpMD: OpaquePointer { Self.digests[self]!.pointer }

    private static let digests: [HashAlgorithm: SharedHandle] = {
        var table: [HashAlgorithm: SharedHandle] = [:]
        for (algorithm, name) in [(HashAlgorithm.sha256, "SHA2-256"), (.sha384, "SHA2-384"), (.sha512, "SHA2-512")] {
            guard let md = EVP_MD_fetch(nil, name, nil) else { preconditionFailure("EVP_MD_fetch \(name)") }
            table[algorithm] = SharedHandle(md)
        }
        return table
    }()
}

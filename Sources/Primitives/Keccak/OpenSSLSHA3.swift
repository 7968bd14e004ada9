import COpenSSL

/// SHA3 and SHAKE through OpenSSL 3.0's EVP, kept to cross-check the native Keccak in tests and to
/// measure it in `mls-bench`. OpenSSL 3.0's `EVP_DigestFinalXOF` squeezes once per context, so an
/// XOF's whole output must be asked for up front.
public enum OpenSSLSHA3 {
    public enum Function: String, Sendable, CaseIterable {
        case sha3_256 = "SHA3-256", sha3_512 = "SHA3-512", shake128 = "SHAKE128", shake256 = "SHAKE256"

        var isXOF: Bool { self == .shake128 || self == .shake256 }
    }

    /// The digest of `data`: `count` bytes for a SHAKE, the fixed size for SHA3 (`count` ignored).
    public static func hash(_ function: Function, _ data: [UInt8], count: Int = 0) -> [UInt8] {
        let md = digests[function]!.pointer
        guard let context = EVP_MD_CTX_new() else { preconditionFailure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        let size = function.isXOF ? count : Int(EVP_MD_get_size(md))
        var out = [UInt8](repeating: 0, count: size)
        var ok = EVP_DigestInit_ex2(context, md, nil) == 1
            && data.withUnsafeBytes { EVP_DigestUpdate(context, $0.baseAddress, $0.count) } == 1
        ok = ok && out.withUnsafeMutableBufferPointer { buffer in
            if function.isXOF { return EVP_DigestFinalXOF(context, buffer.baseAddress, buffer.count) == 1 }
            var length: UInt32 = 0
            return EVP_DigestFinal_ex(context, buffer.baseAddress, &length) == 1
        }
        precondition(ok, "EVP digest \(function.rawValue) failed")
        return out
    }

    private static let digests: [Function: SharedHandle] = {
        var table: [Function: SharedHandle] = [:]
        for function in Function.allCases {
            guard let md = EVP_MD_fetch(nil, function.rawValue, nil) else { preconditionFailure("EVP_MD_fetch \(function.rawValue)") }
            table[function] = SharedHandle(md)
        }
        return table
    }()
}

import COpenSSL

/// HMAC (RFC 2104) over SHA-2 with OpenSSL's EVP_MAC.
public enum HMAC {
    public static func authenticationCode(
        for message: [UInt8], key: [UInt8], hash: HashAlgorithm
    ) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MAC_CTX_dup(templates[hash]!.pointer) else { throw OpenSSL.failure("EVP_MAC_CTX_dup") }
        defer { EVP_MAC_CTX_free(context) }
        // HMAC zero-pads the key to the block size, so an empty key and a single zero byte are the
        // same key; OpenSSL treats a NULL/empty key as "keep the previous key".
        let effectiveKey = key.isEmpty ? [0] : key
        var out = [UInt8](repeating: 0, count: hash.outputSize)
        var length = 0
        let ok = effectiveKey.withUnsafeBufferPointer { keyBuffer in
            message.withNonNullBuffer { data, count in
                out.withUnsafeMutableBufferPointer { output in
                    EVP_MAC_init(context, keyBuffer.baseAddress, keyBuffer.count, nil) == 1
                        && EVP_MAC_update(context, data, count) == 1
                        && EVP_MAC_final(context, output.baseAddress, &length, output.count) == 1
                }
            }
        }
        guard ok, length == hash.outputSize else { throw OpenSSL.failure("EVP_MAC") }
        return out
    }

    /// Constant-time check of a MAC.
    public static func isValid(
        _ code: [UInt8], for message: [UInt8], key: [UInt8], hash: HashAlgorithm
    ) -> Bool {
        guard let expected = try? authenticationCode(for: message, key: key, hash: hash) else { return false }
        return ConstantTime.equals(expected, code)
    }

    /// One HMAC context per hash with its digest already set; each call works on a copy.
    private static let templates: [HashAlgorithm: SharedHandle] = {
        guard let mac = EVP_MAC_fetch(nil, "HMAC", nil) else { preconditionFailure("EVP_MAC_fetch HMAC") }
        defer { EVP_MAC_free(mac) }
        var table: [HashAlgorithm: SharedHandle] = [:]
        for hash in HashAlgorithm.allCases {
            guard let context = EVP_MAC_CTX_new(mac), let name = EVP_MD_get0_name(hash.evpMD) else {
                preconditionFailure("EVP_MAC_CTX_new")
            }
            var params = [
                OSSL_PARAM_construct_utf8_string(copenssl_MAC_PARAM_DIGEST(), UnsafeMutablePointer(mutating: name), 0),
                OSSL_PARAM_construct_end(),
            ]
            guard EVP_MAC_CTX_set_params(context, &params) == 1 else { preconditionFailure("EVP_MAC_CTX_set_params") }
            table[hash] = SharedHandle(context)
        }
        return table
    }()
}

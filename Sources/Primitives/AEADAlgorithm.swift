import COpenSSL
import CSodium

/// The AEADs of the MLS cipher suites. Ciphertexts carry the 16-byte tag at the end.
public enum AEADAlgorithm: Sendable, CaseIterable {
    case aes128GCM, aes256GCM, chacha20Poly1305

    public var keySize: Int {
        switch self {
        case .aes128GCM: 16
        case .aes256GCM, .chacha20Poly1305: 32
        }
    }

    public var nonceSize: Int { 12 }
    public var tagSize: Int { 16 }

    public func seal(
        key: [UInt8], nonce: [UInt8], plaintext: [UInt8], authenticating aad: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        try checkSizes(key: key, nonce: nonce, input: plaintext.count)
        switch self {
        case .aes128GCM, .aes256GCM:
            return try AESGCM.seal(cipher: cipher, key: key, nonce: nonce, plaintext: plaintext, aad: aad)
        case .chacha20Poly1305:
            return ChaChaPoly.seal(key: key, nonce: nonce, plaintext: plaintext, aad: aad)
        }
    }

    /// Throws `.decryptionFailed` for any authentication failure, including a too-short ciphertext.
    public func open(
        key: [UInt8], nonce: [UInt8], ciphertext: [UInt8], authenticating aad: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        try checkSizes(key: key, nonce: nonce, input: ciphertext.count)
        guard ciphertext.count >= tagSize else { throw .decryptionFailed }
        switch self {
        case .aes128GCM, .aes256GCM:
            return try AESGCM.open(cipher: cipher, key: key, nonce: nonce, ciphertext: ciphertext, aad: aad)
        case .chacha20Poly1305:
            return try ChaChaPoly.open(key: key, nonce: nonce, ciphertext: ciphertext, aad: aad)
        }
    }

    private func checkSizes(key: [UInt8], nonce: [UInt8], input: Int) throws(CryptoError) {
        guard key.count == keySize else { throw .invalidKey }
        guard nonce.count == nonceSize else { throw .invalidParameter("nonce must be \(nonceSize) bytes") }
        // OpenSSL lengths are C ints.
        guard input < Int(Int32.max) - 64 else { throw .invalidParameter("message too long") }
    }

    private var cipher: OpaquePointer { Self.ciphers[self]!.pointer }

    private static let ciphers: [AEADAlgorithm: SharedHandle] = {
        var table: [AEADAlgorithm: SharedHandle] = [:]
        for (algorithm, name) in [(AEADAlgorithm.aes128GCM, "AES-128-GCM"), (.aes256GCM, "AES-256-GCM")] {
            guard let cipher = EVP_CIPHER_fetch(nil, name, nil) else { preconditionFailure("EVP_CIPHER_fetch \(name)") }
            table[algorithm] = SharedHandle(cipher)
        }
        return table
    }()
}

/// AES-GCM through OpenSSL EVP (libsodium 1.0.18 has no AES-128-GCM).
enum AESGCM {
    static func seal(
        cipher: OpaquePointer, key: [UInt8], nonce: [UInt8], plaintext: [UInt8], aad: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSL.failure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        var ok = key.withUnsafeBufferPointer { k in
            nonce.withUnsafeBufferPointer { n in EVP_EncryptInit_ex2(context, cipher, k.baseAddress, n.baseAddress, nil) == 1 }
        }
        var length: Int32 = 0
        if ok, !aad.isEmpty {
            ok = aad.withUnsafeBufferPointer { EVP_EncryptUpdate(context, nil, &length, $0.baseAddress, Int32($0.count)) == 1 }
        }
        ok = ok && out.withUnsafeMutableBufferPointer { output in
            plaintext.withNonNullBuffer { input, count in
                var written: Int32 = 0
                var final: Int32 = 0
                guard EVP_EncryptUpdate(context, output.baseAddress, &written, input, Int32(count)) == 1,
                      EVP_EncryptFinal_ex(context, output.baseAddress! + Int(written), &final) == 1,
                      Int(written + final) == count else { return false }
                return EVP_CIPHER_CTX_ctrl(context, copenssl_EVP_CTRL_GCM_GET_TAG(), 16, output.baseAddress! + count) == 1
            }
        }
        guard ok else { throw OpenSSL.failure("EVP_Encrypt (GCM)") }
        return out
    }

    static func open(
        cipher: OpaquePointer, key: [UInt8], nonce: [UInt8], ciphertext: [UInt8], aad: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_CIPHER_CTX_new() else { throw OpenSSL.failure("EVP_CIPHER_CTX_new") }
        defer { EVP_CIPHER_CTX_free(context) }
        let bodyCount = ciphertext.count - 16
        var tag = Array(ciphertext[bodyCount...])
        var out = [UInt8](repeating: 0, count: bodyCount)
        var ok = key.withUnsafeBufferPointer { k in
            nonce.withUnsafeBufferPointer { n in EVP_DecryptInit_ex2(context, cipher, k.baseAddress, n.baseAddress, nil) == 1 }
        }
        var length: Int32 = 0
        if ok, !aad.isEmpty {
            ok = aad.withUnsafeBufferPointer { EVP_DecryptUpdate(context, nil, &length, $0.baseAddress, Int32($0.count)) == 1 }
        }
        guard ok else { throw OpenSSL.failure("EVP_DecryptInit (GCM)") }
        let authentic = out.withNonNullMutableBuffer { output in
            ciphertext.withNonNullBuffer { input, _ in
                var written: Int32 = 0
                var final: Int32 = 0
                guard EVP_DecryptUpdate(context, output, &written, input, Int32(bodyCount)) == 1,
                      tag.withUnsafeMutableBytes({ EVP_CIPHER_CTX_ctrl(context, copenssl_EVP_CTRL_GCM_SET_TAG(), 16, $0.baseAddress) }) == 1
                else { return false }
                return EVP_DecryptFinal_ex(context, output + Int(written), &final) == 1
            }
        }
        guard authentic else {
            OpenSSL.clearErrors()
            ConstantTime.wipe(&out)
            throw .decryptionFailed
        }
        return out
    }
}

/// ChaCha20-Poly1305 (RFC 8439, 96-bit nonce) through libsodium's IETF construction.
enum ChaChaPoly {
    static func seal(key: [UInt8], nonce: [UInt8], plaintext: [UInt8], aad: [UInt8]) -> [UInt8] {
        Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: plaintext.count + 16)
        var length: UInt64 = 0
        out.withUnsafeMutableBufferPointer { output in
            plaintext.withNonNullBuffer { input, inputCount in
                aad.withNonNullBuffer { ad, adCount in
                    _ = crypto_aead_chacha20poly1305_ietf_encrypt(
                        output.baseAddress!, &length, input, UInt64(inputCount), ad, UInt64(adCount), nil, nonce, key)
                }
            }
        }
        return out
    }

    static func open(key: [UInt8], nonce: [UInt8], ciphertext: [UInt8], aad: [UInt8]) throws(CryptoError) -> [UInt8] {
        Sodium.ensureInitialized()
        var out = [UInt8](repeating: 0, count: ciphertext.count - 16)
        var length: UInt64 = 0
        let result = out.withNonNullMutableBuffer { output in
            ciphertext.withNonNullBuffer { input, inputCount in
                aad.withNonNullBuffer { ad, adCount in
                    crypto_aead_chacha20poly1305_ietf_decrypt(
                        output, &length, nil, input, UInt64(inputCount), ad, UInt64(adCount), nonce, key)
                }
            }
        }
        guard result == 0 else { throw .decryptionFailed }
        return out
    }
}

import COpenSSL

/// ECDSA signature encodings and the low-S rule (BIP 62 / AT Protocol).
public enum ECDSA {
    /// True when `raw` is r||s of the curve's size and s ≤ n/2.
    public static func isLowS(raw: [UInt8], curve: ECCurve) -> Bool {
        guard raw.count == 2 * curve.scalarSize,
              let s = try? BigNumber(Array(raw[curve.scalarSize...])),
              let half = try? halfOrder(curve) else { return false }
        return BN_cmp(s.pointer, half.pointer) <= 0
    }

    static func halfOrder(_ curve: ECCurve) throws(CryptoError) -> BigNumber {
        guard let order = EC_GROUP_get0_order(curve.group), let half = BN_new() else {
            throw OpenSSL.failure("BN_new")
        }
        let value = BigNumber(taking: half)
        guard BN_rshift1(value.pointer, order) == 1 else { throw OpenSSL.failure("BN_rshift1") }
        return value
    }

    /// r||s (each `scalarSize` bytes) → ASN.1 DER `ECDSA-Sig-Value`.
    static func der(fromRaw raw: [UInt8], curve: ECCurve) throws(CryptoError) -> [UInt8] {
        guard raw.count == 2 * curve.scalarSize else { throw .invalidSignature }
        guard let signature = ECDSA_SIG_new() else { throw OpenSSL.failure("ECDSA_SIG_new") }
        defer { ECDSA_SIG_free(signature) }
        let r = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32(curve.scalarSize), nil) }
        let s = raw.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + curve.scalarSize, Int32(curve.scalarSize), nil) }
        guard let r, let s, ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw OpenSSL.failure("ECDSA_SIG_set0")
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { throw OpenSSL.failure("i2d_ECDSA_SIG") }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int32 in
            var cursor = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        guard written == length else { throw OpenSSL.failure("i2d_ECDSA_SIG") }
        return out
    }

    /// DER → r||s; rejects trailing bytes and components wider than the curve.
    static func raw(fromDER der: [UInt8], curve: ECCurve) throws(CryptoError) -> [UInt8] {
        guard !der.isEmpty, der.count < 256 else { throw .invalidSignature }
        let parsed = der.withUnsafeBufferPointer { buffer -> (OpaquePointer?, Int) in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count)
            return (signature, cursor.map { $0 - buffer.baseAddress! } ?? 0)
        }
        guard let signature = parsed.0 else {
            OpenSSL.clearErrors()
            throw .invalidSignature
        }
        defer { ECDSA_SIG_free(signature) }
        guard parsed.1 == der.count,
              let r = ECDSA_SIG_get0_r(signature), let s = ECDSA_SIG_get0_s(signature) else { throw .invalidSignature }
        var out = [UInt8](repeating: 0, count: 2 * curve.scalarSize)
        let ok = out.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, Int32(curve.scalarSize)) == Int32(curve.scalarSize)
                && BN_bn2binpad(s, buffer.baseAddress! + curve.scalarSize, Int32(curve.scalarSize)) == Int32(curve.scalarSize)
        }
        guard ok else { throw .invalidSignature }
        return out
    }

    /// Replaces s by n − s when s > n/2, so the signature is the low-S one of the pair.
    static func normalizeLowS(raw: [UInt8], curve: ECCurve) throws(CryptoError) -> [UInt8] {
        if isLowS(raw: raw, curve: curve) { return raw }
        let s = try BigNumber(Array(raw[curve.scalarSize...]))
        guard let order = EC_GROUP_get0_order(curve.group), let difference = BN_new() else {
            throw OpenSSL.failure("BN_new")
        }
        let negated = BigNumber(taking: difference)
        guard BN_sub(negated.pointer, order, s.pointer) == 1,
              let bytes = negated.bytes(padded: curve.scalarSize) else { throw OpenSSL.failure("BN_sub") }
        return Array(raw[..<curve.scalarSize]) + bytes
    }

    static func verify(key: PKeyHandle, der: [UInt8], message: [UInt8], hash: HashAlgorithm) -> Bool {
        guard let context = EVP_MD_CTX_new() else { return false }
        defer {
            EVP_MD_CTX_free(context)
            OpenSSL.clearErrors()
        }
        guard EVP_DigestVerifyInit(context, nil, hash.evpMD, nil, key.pointer) == 1 else { return false }
        return der.withNonNullBuffer { signature, signatureCount in
            message.withNonNullBuffer { data, count in
                EVP_DigestVerify(context, signature, signatureCount, data, count) == 1
            }
        }
    }

    static func sign(key: PKeyHandle, message: [UInt8], hash: HashAlgorithm) throws(CryptoError) -> [UInt8] {
        guard let context = EVP_MD_CTX_new() else { throw OpenSSL.failure("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestSignInit(context, nil, hash.evpMD, nil, key.pointer) == 1 else {
            throw OpenSSL.failure("EVP_DigestSignInit")
        }
        var out = [UInt8](repeating: 0, count: 160)
        var length = out.count
        let ok = message.withNonNullBuffer { data, count in
            out.withUnsafeMutableBufferPointer { EVP_DigestSign(context, $0.baseAddress, &length, data, count) }
        }
        guard ok == 1 else { throw OpenSSL.failure("EVP_DigestSign") }
        return Array(out.prefix(length))
    }
}

import COpenSSL
@testable import Primitives

/// OpenSSL's BIGNUM and EC_POINT arithmetic: the independent reference the native secp256k1 code is
/// checked against. Inputs and outputs are 32-byte big-endian integers or SEC1 points.
enum Secp256k1Reference {
    static let p = bytes("fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f")
    static let n = bytes("fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141")

    static func modMul(_ a: [UInt8], _ b: [UInt8], _ modulus: [UInt8]) -> [UInt8] {
        binary(a, b, modulus) { BN_mod_mul($0, $1, $2, $3, $4) }
    }

    static func modAdd(_ a: [UInt8], _ b: [UInt8], _ modulus: [UInt8]) -> [UInt8] {
        binary(a, b, modulus) { BN_mod_add($0, $1, $2, $3, $4) }
    }

    static func modSub(_ a: [UInt8], _ b: [UInt8], _ modulus: [UInt8]) -> [UInt8] {
        binary(a, b, modulus) { BN_mod_sub($0, $1, $2, $3, $4) }
    }

    static func modInverse(_ a: [UInt8], _ modulus: [UInt8]) -> [UInt8] {
        let (x, m, result, context) = (bn(a), bn(modulus), bn([0]), BN_CTX_new()!)
        defer { BN_CTX_free(context) }
        precondition(BN_mod_inverse(result.pointer, x.pointer, m.pointer, context) != nil)
        return result.bytes(padded: 32)!
    }

    /// √a mod p, or nil when a is not a square.
    static func modSqrt(_ a: [UInt8]) -> [UInt8]? {
        let (x, m, result, context) = (bn(a), bn(p), bn([0]), BN_CTX_new()!)
        defer {
            BN_CTX_free(context)
            ERR_clear_error()
        }
        guard BN_mod_sqrt(result.pointer, x.pointer, m.pointer, context) != nil else { return nil }
        return result.bytes(padded: 32)!
    }

    /// u1·G + u2·Q as SEC1 uncompressed, or nil for the point at infinity.
    static func linearCombination(u1: [UInt8], u2: [UInt8], q: [UInt8]) -> [UInt8]? {
        let group = ECCurve.secp256k1.group
        let (a, b) = (bn(u1), bn(u2))
        let point = EC_POINT_new(group)!, result = EC_POINT_new(group)!
        defer {
            EC_POINT_free(point)
            EC_POINT_free(result)
        }
        precondition(q.withUnsafeBufferPointer { EC_POINT_oct2point(group, point, $0.baseAddress, $0.count, nil) } == 1)
        precondition(EC_POINT_mul(group, result, a.pointer, point, b.pointer, nil) == 1)
        if EC_POINT_is_at_infinity(group, result) == 1 { return nil }
        return try? ECArithmetic.encode(curve: .secp256k1, point: result, compressed: false)
    }

    /// OpenSSL's ECDSA verdict on a DER signature over a digest given directly (no hashing).
    static func verifyDigest(key: ECDSAPublicKey, der: [UInt8], digest: [UInt8]) -> Bool {
        guard let context = EVP_PKEY_CTX_new(key.key.pointer, nil) else { return false }
        defer {
            EVP_PKEY_CTX_free(context)
            ERR_clear_error()
        }
        guard EVP_PKEY_verify_init(context) == 1 else { return false }
        return EVP_PKEY_verify(context, der, der.count, digest, digest.count) == 1
    }

    static func bytes(_ hexString: String) -> [UInt8] {
        try! hex(hexString)
    }

    private static func bn(_ value: [UInt8]) -> BigNumber { try! BigNumber(value) }

    private static func binary(
        _ a: [UInt8], _ b: [UInt8], _ modulus: [UInt8],
        _ operation: (OpaquePointer, OpaquePointer, OpaquePointer, OpaquePointer, OpaquePointer) -> Int32
    ) -> [UInt8] {
        let (x, y, m, result, context) = (bn(a), bn(b), bn(modulus), bn([0]), BN_CTX_new()!)
        defer { BN_CTX_free(context) }
        precondition(operation(result.pointer, x.pointer, y.pointer, m.pointer, context) == 1)
        return result.bytes(padded: 32)!
    }
}

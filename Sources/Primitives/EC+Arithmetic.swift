import COpenSSL

/// Point and scalar arithmetic on `ECCurve`s over OpenSSL's (non-deprecated) EC_POINT and BIGNUM API.
enum ECArithmetic {
    /// Parses a compressed or uncompressed SEC1 point and returns it uncompressed; rejects the point
    /// at infinity, points off the curve and any other encoding.
    static func uncompressedPoint(curve: ECCurve, sec1 bytes: [UInt8]) throws(CryptoError) -> [UInt8] {
        guard let prefix = bytes.first else { throw .invalidKey }
        switch prefix {
        case 0x04 where bytes.count == curve.uncompressedSize: break
        case 0x02 where bytes.count == curve.compressedSize, 0x03 where bytes.count == curve.compressedSize: break
        default: throw .invalidKey
        }
        guard let point = EC_POINT_new(curve.group) else { throw OpenSSL.failure("EC_POINT_new") }
        defer { EC_POINT_free(point) }
        let parsed = bytes.withUnsafeBufferPointer {
            EC_POINT_oct2point(curve.group, point, $0.baseAddress, $0.count, nil)
        }
        guard parsed == 1, EC_POINT_is_at_infinity(curve.group, point) == 0,
              EC_POINT_is_on_curve(curve.group, point, nil) == 1 else {
            OpenSSL.clearErrors()
            throw .invalidKey
        }
        return try encode(curve: curve, point: point, compressed: false)
    }

    static func compress(curve: ECCurve, uncompressed: [UInt8]) -> [UInt8] {
        // The x coordinate and the parity of y are all a compressed point needs.
        let size = curve.scalarSize
        let yIsOdd = uncompressed[uncompressed.count - 1] & 1 == 1
        return [yIsOdd ? 0x03 : 0x02] + uncompressed[1...size]
    }

    static func encode(curve: ECCurve, point: OpaquePointer, compressed: Bool) throws(CryptoError) -> [UInt8] {
        let form = compressed ? POINT_CONVERSION_COMPRESSED : POINT_CONVERSION_UNCOMPRESSED
        var out = [UInt8](repeating: 0, count: compressed ? curve.compressedSize : curve.uncompressedSize)
        let written = out.withUnsafeMutableBufferPointer {
            EC_POINT_point2oct(curve.group, point, form, $0.baseAddress, $0.count, nil)
        }
        guard written == out.count else { throw OpenSSL.failure("EC_POINT_point2oct") }
        return out
    }

    /// Left-pads a big-endian scalar to the curve size and checks 0 < d < n.
    static func normalizedScalar(curve: ECCurve, _ scalar: [UInt8]) throws(CryptoError) -> [UInt8] {
        var bytes = scalar
        // Strip leading zeros beyond the curve size, then pad.
        while bytes.count > curve.scalarSize, bytes.first == 0 { bytes.removeFirst() }
        guard !bytes.isEmpty, bytes.count <= curve.scalarSize else { throw .invalidKey }
        bytes = [UInt8](repeating: 0, count: curve.scalarSize - bytes.count) + bytes
        guard try isValidScalar(curve: curve, bytes) else { throw .invalidKey }
        return bytes
    }

    /// True when the big-endian `scalar` is in [1, n-1].
    static func isValidScalar(curve: ECCurve, _ scalar: [UInt8]) throws(CryptoError) -> Bool {
        let value = try BigNumber(scalar, secret: true)
        guard let order = EC_GROUP_get0_order(curve.group) else { throw OpenSSL.failure("EC_GROUP_get0_order") }
        return BN_is_zero(value.pointer) == 0 && BN_cmp(value.pointer, order) < 0
    }

    /// The uncompressed public point d·G.
    static func publicPoint(curve: ECCurve, scalar: [UInt8]) throws(CryptoError) -> [UInt8] {
        let value = try BigNumber(scalar, secret: true)
        guard let point = EC_POINT_new(curve.group) else { throw OpenSSL.failure("EC_POINT_new") }
        defer { EC_POINT_free(point) }
        guard EC_POINT_mul(curve.group, point, value.pointer, nil, nil, nil) == 1 else {
            throw OpenSSL.failure("EC_POINT_mul")
        }
        return try encode(curve: curve, point: point, compressed: false)
    }

    /// Builds an OpenSSL EC key from a public point and/or the private scalar.
    static func makeKey(curve: ECCurve, uncompressed: [UInt8]?, scalar: [UInt8]?) throws(CryptoError) -> PKeyHandle {
        let secret: BigNumber? = try scalar.map { (s: [UInt8]) throws(CryptoError) in try BigNumber(s, secret: true) }
        let selection = secret == nil ? copenssl_EVP_PKEY_PUBLIC_KEY() : copenssl_EVP_PKEY_KEYPAIR()
        // The builder keeps pointers until it is turned into parameters: the point is copied into a
        // buffer that outlives that, the group name is OpenSSL's own static string.
        let publicBytes = uncompressed ?? []
        let point = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(publicBytes.count, 1))
        _ = point.initialize(from: publicBytes)
        defer { point.deallocate() }
        guard let groupName = OBJ_nid2sn(curve.nid) else { throw OpenSSL.failure("OBJ_nid2sn") }
        return try OpenSSL.makeKey(type: "EC", selection: selection) { builder in
            guard OSSL_PARAM_BLD_push_utf8_string(builder, copenssl_PKEY_PARAM_GROUP_NAME(), groupName, 0) == 1
            else { return false }
            // A private key alone is enough for ECDH; signing keys carry their public point too.
            if !publicBytes.isEmpty,
               OSSL_PARAM_BLD_push_octet_string(builder, copenssl_PKEY_PARAM_PUB_KEY(), point.baseAddress, publicBytes.count) != 1 {
                return false
            }
            if let secret { return OSSL_PARAM_BLD_push_BN(builder, copenssl_PKEY_PARAM_PRIV_KEY(), secret.pointer) == 1 }
            return true
        }
    }
}

/// An owned BIGNUM; secret values are cleared when freed.
final class BigNumber {
    let pointer: OpaquePointer
    private let secret: Bool

    init(_ bytes: [UInt8], secret: Bool = false) throws(CryptoError) {
        let made = bytes.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, Int32($0.count), nil) }
        guard let made else { throw OpenSSL.failure("BN_bin2bn") }
        pointer = made
        self.secret = secret
    }

    init(taking pointer: OpaquePointer) {
        self.pointer = pointer
        secret = false
    }

    /// Owns a BIGNUM holding a secret (cleared when freed).
    init(takingSecret pointer: OpaquePointer) {
        self.pointer = pointer
        secret = true
    }

    deinit {
        if secret { BN_clear_free(pointer) } else { BN_free(pointer) }
    }

    func bytes(padded size: Int) -> [UInt8]? {
        var out = [UInt8](repeating: 0, count: size)
        let written = out.withUnsafeMutableBufferPointer { BN_bn2binpad(pointer, $0.baseAddress, Int32(size)) }
        return written == Int32(size) ? out : nil
    }
}

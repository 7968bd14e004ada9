import COpenSSL

/// The short-Weierstrass curves used for ECDSA and ECDH.
public enum ECCurve: Sendable, CaseIterable {
    case p256, p384, p521, secp256k1

    /// Bytes in a scalar or a field element (P-521: 66).
    public var scalarSize: Int {
        switch self {
        case .p256, .secp256k1: 32
        case .p384: 48
        case .p521: 66
        }
    }

    /// Bytes in an uncompressed SEC1 point: 0x04 || x || y.
    public var uncompressedSize: Int { 1 + 2 * scalarSize }
    /// Bytes in a compressed SEC1 point: 0x02/0x03 || x.
    public var compressedSize: Int { 1 + scalarSize }

    var nid: Int32 {
        switch self {
        case .p256: NID_X9_62_prime256v1
        case .p384: NID_secp384r1
        case .p521: NID_secp521r1
        case .secp256k1: NID_secp256k1
        }
    }

    /// The curve's `EC_GROUP`, built once; point arithmetic only reads it.
    var group: OpaquePointer { Self.groups[self]!.pointer }

    private static let groups: [ECCurve: SharedHandle] = {
        var table: [ECCurve: SharedHandle] = [:]
        for curve in ECCurve.allCases {
            guard let group = EC_GROUP_new_by_curve_name(curve.nid) else {
                preconditionFailure("EC_GROUP_new_by_curve_name \(curve)")
            }
            table[curve] = SharedHandle(group)
        }
        return table
    }()
}

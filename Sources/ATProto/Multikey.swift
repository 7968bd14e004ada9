import Primitives

/// Multikey public keys (W3C Controlled Identifiers §2.2.2): `z` + base58btc(multicodec varint +
/// compressed SEC1 point), and the did:key form built from them.
public enum Multikey {
    public enum DecodingError: Error, Sendable, Equatable {
        case notBase58btc
        case unknownCodec
        case badKeyLength
        case invalidPoint
    }

    // multicodec table: secp256k1-pub 0xe7, p256-pub 0x1200, p384-pub 0x1201, p521-pub 0x1202,
    // each as an unsigned varint.
    private static func codecPrefix(_ curve: ECCurve) -> [UInt8] {
        switch curve {
        case .secp256k1: [0xE7, 0x01]
        case .p256: [0x80, 0x24]
        case .p384: [0x81, 0x24]
        case .p521: [0x82, 0x24]
        }
    }

    public static func encode(publicKey: ECDSAPublicKey) -> String {
        "z" + Base58.encode(codecPrefix(publicKey.curve) + publicKey.compressed)
    }

    /// `did:key:` + the Multikey (did:key spec §3.1).
    public static func didKey(publicKey: ECDSAPublicKey) -> String {
        "did:key:" + encode(publicKey: publicKey)
    }

    /// Decodes an atproto Multikey: secp256k1 or P-256 only, 33-byte compressed point.
    public static func decode(_ multibase: String) throws(DecodingError) -> AtprotoSigningKey {
        let bytes = try base58btc(multibase)
        for algorithm in AtprotoSigningKey.Algorithm.allCases {
            let prefix = codecPrefix(algorithm.curve)
            guard bytes.starts(with: prefix) else { continue }
            let point = Array(bytes.dropFirst(prefix.count))
            guard point.count == algorithm.curve.compressedSize else { throw .badKeyLength }
            return try signingKey(curve: algorithm.curve, sec1: point)
        }
        throw .unknownCodec
    }

    /// Decodes the legacy `EcdsaSecp256k1VerificationKey2019` / `EcdsaSecp256r1VerificationKey2019`
    /// form: multibase of the raw SEC1 key, no multicodec prefix.
    public static func decodeLegacy(_ multibase: String, curve: ECCurve) throws(DecodingError) -> AtprotoSigningKey {
        let bytes = try base58btc(multibase)
        guard bytes.count == curve.compressedSize || bytes.count == curve.uncompressedSize else { throw .badKeyLength }
        return try signingKey(curve: curve, sec1: bytes)
    }

    private static func base58btc(_ multibase: String) throws(DecodingError) -> [UInt8] {
        guard multibase.hasPrefix("z"), let bytes = Base58.decode(multibase.dropFirst(), maxLength: 256) else {
            throw .notBase58btc
        }
        return bytes
    }

    private static func signingKey(curve: ECCurve, sec1: [UInt8]) throws(DecodingError) -> AtprotoSigningKey {
        guard let publicKey = try? ECDSAPublicKey(curve: curve, sec1: sec1),
              let key = AtprotoSigningKey(publicKey: publicKey)
        else { throw .invalidPoint }
        return key
    }
}

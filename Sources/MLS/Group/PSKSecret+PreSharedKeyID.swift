import Primitives

extension PSKSecret {
    /// psk_secret over PreSharedKeyIDs and the secrets they name, in order (RFC 9420 §8.4).
    public static func compute(suite: CipherSuite, namedPSKs psks: [(id: PreSharedKeyID, psk: [UInt8])]) throws(CryptoError) -> [UInt8] {
        try compute(suite: suite, psks: psks.map { Input(encodedID: $0.id.encoded(), psk: $0.psk) })
    }
}

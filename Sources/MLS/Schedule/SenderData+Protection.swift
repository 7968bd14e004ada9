import Primitives

/// Sender-data protection keys and the reuse guard (RFC 9420 §6.3).
extension SenderData {
    /// sender_data_key and sender_data_nonce from the first Nh bytes of the content ciphertext
    /// (the whole ciphertext when it is shorter) (RFC 9420 §6.3.2).
    public static func keyAndNonce(
        suite: CipherSuite, senderDataSecret: [UInt8], ciphertext: [UInt8]
    ) throws(CryptoError) -> (key: [UInt8], nonce: [UInt8]) {
        let sample = Array(ciphertext.prefix(suite.nh))
        let key = try suite.expandWithLabel(secret: senderDataSecret, label: "key", context: sample, length: suite.nk)
        let nonce = try suite.expandWithLabel(secret: senderDataSecret, label: "nonce", context: sample, length: suite.nn)
        return (key, nonce)
    }

    /// XORs the 4-byte reuse guard into the first four bytes of the ratchet nonce (RFC 9420 §6.3.1).
    public static func applyReuseGuard(_ reuseGuard: [UInt8], to nonce: [UInt8]) throws(ScheduleError) -> [UInt8] {
        guard reuseGuard.count == 4, nonce.count >= 4 else { throw .invalidReuseGuard }
        var out = nonce
        for i in 0..<4 { out[i] ^= reuseGuard[i] }
        return out
    }

    /// A fresh random reuse guard.
    public static func makeReuseGuard() -> [UInt8] { SecureRandom.bytes(4) }
}

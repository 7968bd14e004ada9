import Primitives

/// Message encryption for Web Push (RFC 8291): one `aes128gcm` record (RFC 8188) whose key comes
/// from an ECDH between a fresh P-256 key of ours and the subscription's, mixed with its auth secret.
/// Only the user agent holding the subscription's private key can read it; the push service sees
/// the size and nothing else.
public enum WebPushEncryption {
    /// The record size written in the header (RFC 8188 §2.1): one record carries the whole message.
    static let recordSize: UInt32 = 4096
    /// salt (16) + rs (4) + idlen (1) + keyid (65 bytes: our public key) (RFC 8291 §4).
    static let headerSize = 86
    /// RFC 8291 §4: a push service need not accept more than 4096 bytes of body, which leaves 3993
    /// bytes of plaintext after the header, the padding delimiter and the AEAD tag.
    public static let maxPlaintext = 4096 - headerSize - 1 - 16

    /// The encrypted body for `plaintext`. `senderPrivateKey` and `salt` are fresh random values
    /// unless given (the RFC's example fixes them).
    public static func encrypt(_ plaintext: [UInt8], to keys: (p256dh: [UInt8], auth: [UInt8]),
                               senderPrivateKey: [UInt8]? = nil, salt: [UInt8]? = nil) throws(CryptoError) -> [UInt8] {
        guard plaintext.count <= maxPlaintext else { throw .invalidParameter("a Web Push message holds at most \(maxPlaintext) bytes") }
        guard keys.auth.count == 16, ECDH.isValidUncompressedPublicKey(curve: .p256, keys.p256dh) else { throw .invalidKey }
        let scalar: [UInt8]
        if let senderPrivateKey { scalar = senderPrivateKey } else { scalar = try ECDSAPrivateKey.generate(curve: .p256).scalar }
        let senderPublic = try ECDH.publicKey(curve: .p256, privateKey: scalar)
        let salt = salt ?? SecureRandom.bytes(16)
        guard salt.count == 16 else { throw .invalidParameter("salt must be 16 bytes") }

        // RFC 8291 §3.3, §3.4: the input keying material from the ECDH secret and the auth secret.
        let shared = try ECDH.sharedSecret(curve: .p256, privateKey: scalar, publicKey: keys.p256dh)
        let keyPRK = try HKDF.extract(salt: keys.auth, ikm: shared, hash: .sha256)
        let keyInfo = Array("WebPush: info".utf8) + [0] + keys.p256dh + senderPublic
        let ikm = try HKDF.expand(prk: keyPRK, info: keyInfo, length: 32, hash: .sha256)
        // RFC 8188 §2.2, §2.3: the content-encryption key and nonce (the only record's sequence number is 0).
        let prk = try HKDF.extract(salt: salt, ikm: ikm, hash: .sha256)
        let cek = try HKDF.expand(prk: prk, info: Array("Content-Encoding: aes128gcm".utf8) + [0], length: 16, hash: .sha256)
        let nonce = try HKDF.expand(prk: prk, info: Array("Content-Encoding: nonce".utf8) + [0], length: 12, hash: .sha256)
        // The last (and only) record ends with the delimiter 0x02 and no padding (RFC 8188 §2).
        let record = try AEADAlgorithm.aes128GCM.seal(key: cek, nonce: nonce, plaintext: plaintext + [2], authenticating: [])

        var body = salt
        body.reserveCapacity(headerSize + record.count)
        body += [UInt8(recordSize >> 24), UInt8(recordSize >> 16 & 0xFF), UInt8(recordSize >> 8 & 0xFF), UInt8(recordSize & 0xFF)]
        body.append(UInt8(senderPublic.count))
        body += senderPublic
        body += record
        return body
    }
}

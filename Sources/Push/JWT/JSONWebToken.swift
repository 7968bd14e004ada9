import Basics
import JSON
import Primitives

/// A JWS in compact serialization (RFC 7515 §7.1): `base64url(header) "." base64url(claims) "."
/// base64url(signature)`. The push services' credentials are such tokens: the APNs provider token
/// and the VAPID token (ES256, RFC 7518 §3.4), and the FCM service account's grant (RS256, §3.3).
enum JSONWebToken {
    /// Signs `header` and `claims` (encoded as JSON) with `sign`, which gets the signing input.
    static func compact(header: some Encodable, claims: some Encodable,
                        sign: ([UInt8]) throws(CryptoError) -> [UInt8]) throws -> String {
        let input = Base64URLText.encode(try StrictJSON.encode(header)) + "." + Base64URLText.encode(try StrictJSON.encode(claims))
        return input + "." + Base64URLText.encode(try sign(Array(input.utf8)))
    }

    /// ES256: ECDSA P-256 over SHA-256, the signature as r || s (RFC 7518 §3.4).
    static func es256(_ key: ECDSAPrivateKey) -> ([UInt8]) throws(CryptoError) -> [UInt8] {
        { input throws(CryptoError) in try key.signature(for: input, hash: .sha256).raw }
    }

    /// RS256: RSASSA-PKCS1-v1_5 over SHA-256 (RFC 7518 §3.3).
    static func rs256(_ key: RSAPrivateKey) -> ([UInt8]) throws(CryptoError) -> [UInt8] {
        { input throws(CryptoError) in try key.signatureSHA256(for: input) }
    }
}

/// base64url without padding (RFC 4648 §5), as JOSE and RFC 8291/8292 write it.
enum Base64URLText {
    static func encode(_ bytes: [UInt8]) -> String { Base64.encode(bytes, padding: false, alphabet: .url) }
    static func decode(_ text: String) -> [UInt8]? { Base64.decode(text, alphabet: .url) }
}

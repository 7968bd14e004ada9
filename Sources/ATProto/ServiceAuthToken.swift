import Basics
import Foundation
import Primitives

/// Mints service-auth tokens as a PDS's `com.atproto.server.getServiceAuth` would: for tests and
/// the CLI. ES256K for secp256k1 keys, ES256 for P-256.
public enum ServiceAuthToken {
    public static func mint(issuer: DID, audience: String, lexiconMethod: String?, key: ECDSAPrivateKey,
                            expiresIn: Double = 60, jti: String? = nil, issuedAt: Date = Date()) throws(CryptoError) -> String {
        guard let algorithm = AtprotoSigningKey(publicKey: key.publicKey)?.algorithm else { throw .invalidKey }
        let iat = Int(issuedAt.timeIntervalSince1970.rounded(.down))
        var payload = "{\"iss\":\(jsonString(issuer.rawValue)),\"aud\":\(jsonString(audience)),"
            + "\"exp\":\(iat + Int(expiresIn)),\"iat\":\(iat),"
        if let lexiconMethod { payload += "\"lxm\":\(jsonString(lexiconMethod))," }
        payload += "\"jti\":\(jsonString(jti ?? Base64URL.encode(SecureRandom.bytes(16))))}"
        return try sign(header: "{\"typ\":\"JWT\",\"alg\":\"\(algorithm.rawValue)\"}", payload: payload, key: key)
    }

    /// Signs arbitrary header and payload JSON text; the signature is raw r||s (RFC 7518 §3.4).
    public static func sign(header: String, payload: String, key: ECDSAPrivateKey, lowS: Bool = true) throws(CryptoError) -> String {
        let signingInput = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(payload.utf8))
        let signature = try key.signature(for: Array(signingInput.utf8), hash: .sha256, lowS: lowS)
        return signingInput + "." + Base64URL.encode(signature.raw)
    }

    /// A JSON string literal (RFC 8259 §7).
    static func jsonString(_ value: String) -> String {
        var out = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// A compact JWS (RFC 7515 §7.1) split and decoded, not yet checked. Parsing is a pure function
/// of the token text; every failure here is `BadJwt` (AUTH.md check 1).
public struct ServiceAuthJWT: Sendable {
    /// Longer tokens are refused before any decoding; real service-auth tokens are under 1 KiB.
    public static let maxLength = 8192

    let header: [String: JSONValue]
    let claims: [String: JSONValue]
    /// The ASCII bytes `header.payload` that the signature covers (RFC 7515 §5.2).
    let signingInput: [UInt8]
    let signature: [UInt8]

    public static func parse(_ token: String) throws(AuthError) -> ServiceAuthJWT {
        guard token.utf8.count <= maxLength else { throw .badJwt("token too long") }
        let segments = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard segments.count == 3 else { throw .badJwt("token must have three segments") }
        guard let headerBytes = Base64URL.decode(Substring(segments[0])),
              let payloadBytes = Base64URL.decode(Substring(segments[1])),
              let signature = Base64URL.decode(Substring(segments[2]))
        else { throw .badJwt("segment is not base64url") }
        guard let header = JSONValue.parseObject(headerBytes) else { throw .badJwt("header is not a JSON object") }
        guard let claims = JSONValue.parseObject(payloadBytes) else { throw .badJwt("payload is not a JSON object") }
        let signingInput = Array(token.utf8.prefix(segments[0].count + 1 + segments[1].count))
        return ServiceAuthJWT(header: header, claims: claims, signingInput: signingInput, signature: signature)
    }
}

import Basics

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
        var token = token
        return try token.withUTF8 { bytes in Result { () throws(AuthError) in try parse(bytes) } }.get()
    }

    private static func parse(_ bytes: UnsafeBufferPointer<UInt8>) throws(AuthError) -> ServiceAuthJWT {
        var dots: [Int] = []
        for index in bytes.indices where bytes[index] == UInt8(ascii: ".") {
            guard dots.count < 2 else { throw .badJwt("token must have three segments") }
            dots.append(index)
        }
        guard dots.count == 2 else { throw .badJwt("token must have three segments") }
        func segment(_ range: Range<Int>) -> [UInt8]? {
            Base64.decode(utf8: UnsafeBufferPointer(rebasing: bytes[range]), alphabet: .url)
        }
        guard let headerBytes = segment(0..<dots[0]),
              let payloadBytes = segment(dots[0] + 1..<dots[1]),
              let signature = segment(dots[1] + 1..<bytes.count)
        else { throw .badJwt("segment is not base64url") }
        guard let header = JSONValue.parseObject(headerBytes) else { throw .badJwt("header is not a JSON object") }
        guard let claims = JSONValue.parseObject(payloadBytes) else { throw .badJwt("payload is not a JSON object") }
        let signingInput = Array(bytes[..<dots[1]])
        return ServiceAuthJWT(header: header, claims: claims, signingInput: signingInput, signature: signature)
    }
}

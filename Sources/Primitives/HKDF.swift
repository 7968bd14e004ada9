/// HKDF (RFC 5869) built on `HMAC`.
public enum HKDF {
    /// HKDF-Extract(salt, IKM) = HMAC-Hash(salt, IKM).
    public static func extract(salt: [UInt8], ikm: [UInt8], hash: HashAlgorithm) throws(CryptoError) -> [UInt8] {
        try HMAC.authenticationCode(for: ikm, key: salt, hash: hash)
    }

    /// HKDF-Expand(PRK, info, L); L is at most 255·HashLen (RFC 5869 §2.3).
    public static func expand(
        prk: [UInt8], info: [UInt8], length: Int, hash: HashAlgorithm
    ) throws(CryptoError) -> [UInt8] {
        guard length >= 0, length <= 255 * hash.outputSize else {
            throw .invalidParameter("HKDF-Expand length \(length) exceeds 255·\(hash.outputSize)")
        }
        var output: [UInt8] = []
        output.reserveCapacity(length + hash.outputSize)
        var block: [UInt8] = []
        var counter: UInt8 = 1
        while output.count < length {
            block = try HMAC.authenticationCode(for: block + info + [counter], key: prk, hash: hash)
            output += block
            counter &+= 1
        }
        return Array(output.prefix(length))
    }
}

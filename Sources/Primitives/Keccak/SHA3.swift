/// SHA3-256 and SHA3-512 (FIPS 202 §6.1), native Keccak. ML-KEM calls them H and G (FIPS 203 §4.1).
public enum SHA3 {
    /// SHA3-256 over the concatenation of `parts`.
    public static func sha256(_ parts: [UInt8]...) -> [UInt8] { digest(parts, outputSize: 32) }

    /// SHA3-512 over the concatenation of `parts`.
    public static func sha512(_ parts: [UInt8]...) -> [UInt8] { digest(parts, outputSize: 64) }

    /// SHA3-224, -256, -384 or -512 by output size in bytes (28, 32, 48, 64).
    public static func hash(_ data: [UInt8], outputSize: Int) -> [UInt8] {
        precondition([28, 32, 48, 64].contains(outputSize), "SHA3 output size")
        return digest([data], outputSize: outputSize)
    }

    static func digest(_ parts: [[UInt8]], outputSize: Int) -> [UInt8] {
        var sponge = KeccakSponge(rate: 200 - 2 * outputSize, suffix: 0x06)
        for part in parts { sponge.absorb(part) }
        return sponge.squeeze(count: outputSize)
    }
}

/// The security strength of a SHAKE instance, which fixes its rate.
public protocol SHAKEStrength: Sendable {
    /// Bytes absorbed or squeezed per permutation.
    static var rate: Int { get }
}

public enum SHAKEStrength128: SHAKEStrength { public static let rate = 168 }
public enum SHAKEStrength256: SHAKEStrength { public static let rate = 136 }

/// SHAKE128 and SHAKE256 (FIPS 202 §6.2): absorb, then squeeze any number of times.
public typealias SHAKE128 = SHAKE<SHAKEStrength128>
public typealias SHAKE256 = SHAKE<SHAKEStrength256>

public struct SHAKE<Strength: SHAKEStrength>: Sendable {
    var sponge = KeccakSponge(rate: Strength.rate, suffix: 0x1F)
    public static var rate: Int { Strength.rate }

    public init() {}

    public mutating func absorb(_ bytes: [UInt8]) { sponge.absorb(bytes) }
    public mutating func squeeze(_ count: Int) -> [UInt8] { sponge.squeeze(count: count) }
    public mutating func squeeze(into buffer: UnsafeMutableRawBufferPointer) { sponge.squeeze(into: buffer) }

    /// The XOF over the concatenation of `parts`, `count` bytes out.
    public static func hash(_ parts: [UInt8]..., count: Int) -> [UInt8] {
        var xof = SHAKE()
        for part in parts { xof.absorb(part) }
        return xof.squeeze(count)
    }
}

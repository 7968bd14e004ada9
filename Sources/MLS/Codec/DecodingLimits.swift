/// How much a decoder keeps of input it does not trust. Every wire vector costs at least one byte per
/// entry, but an entry can cost far more in memory (a blank tree node, a one-byte reference, an empty
/// EncryptedGroupSecrets): a reader with limits refuses the vector as soon as it would hold more
/// entries than allowed, before it keeps them. `unlimited` is for input that is already trusted.
public struct DecodingLimits: Sendable, Hashable {
    /// The most entries any one vector may hold (proposals, ratchet tree nodes, Welcome secrets,
    /// capability lists, …); opaque byte strings are bounded by the input's length alone.
    public var maxVectorElements: Int

    public init(maxVectorElements: Int) {
        self.maxVectorElements = maxVectorElements
    }

    public static let unlimited = DecodingLimits(maxVectorElements: .max)
}

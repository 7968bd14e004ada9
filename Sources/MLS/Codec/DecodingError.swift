/// Why bytes could not be decoded as an RFC 9420 structure. Decoding never traps on hostile input;
/// every failure is one of these cases.
public enum DecodingError: Error, Equatable, Sendable {
    /// Fewer bytes remain than a field or a declared length needs.
    case truncated(needed: Int, remaining: Int)
    /// A varint with the reserved `0b11` prefix or a non-minimal encoding (RFC 9420 §2.1.2).
    case invalidVarint
    /// Vectors and structures nested deeper than `TLSReader.maxDepth`.
    case depthExceeded
    /// Bytes left over after a structure that must consume its whole input.
    case trailingBytes(Int)
    /// A value outside what the field allows (an unknown enum case, a bad optional tag, …).
    case invalidValue(String)
    /// A vector with more entries than the reader's `DecodingLimits` (or the field) allow.
    case tooManyElements(limit: Int)
}

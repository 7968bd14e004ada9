/// One item of the DAG-CBOR subset the chat contract uses (DAG-CBOR spec; RFC 8949 §4.2.1):
/// unsigned integers, byte and text strings, booleans, arrays, and maps keyed by text. Negative
/// integers, floats, null, tags (so CIDs) and indefinite lengths are outside the contract's
/// profile: the decoder refuses them and the encoder cannot produce them.
public indirect enum DAGCBORValue: Sendable, Equatable {
    case unsigned(UInt64)
    case bytes([UInt8])
    case text(String)
    case bool(Bool)
    case array([DAGCBORValue])
    case map([String: DAGCBORValue])

    public subscript(key: String) -> DAGCBORValue? {
        if case .map(let entries) = self { return entries[key] }
        return nil
    }
}

/// Why bytes are not one canonical DAG-CBOR item of the contract's profile, with the offset.
public struct DAGCBORError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String
    public let offset: Int

    init(_ reason: String, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String { "\(reason) at byte \(offset)" }
}

public enum DAGCBOR {
    /// RFC 8949 §3.1 major types.
    enum Major: UInt8 {
        case unsigned = 0, negative = 1, bytes = 2, text = 3, array = 4, map = 5, tag = 6, simple = 7
    }

    /// DAG-CBOR's canonical map key order (RFC 7049 §3.9 "canonical CBOR", as DAG-CBOR keeps it):
    /// shorter keys first, then bytewise by their UTF-8.
    public static func keyPrecedes(_ a: String, _ b: String) -> Bool {
        let x = a.utf8, y = b.utf8
        if x.count != y.count { return x.count < y.count }
        return x.lexicographicallyPrecedes(y)
    }
}

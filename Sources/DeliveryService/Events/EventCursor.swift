import ATProto
import Primitives

/// The position of a subscription: the last event_seq delivered in each conversation it follows.
///
/// Wire form (opaque to clients, documented in lexicon/subscribeConvoEvents.json):
/// `base64url(0x01 ‖ entry*)`, each entry the first 8 bytes of SHA-256(convoId) followed by the
/// event_seq as an unsigned LEB128 varint, entries in ascending key order. A hashed key keeps a
/// cursor for a hundred conversations about 1.5 KB, so it fits in a URL; the server maps keys back
/// to the conversations the caller belongs or belonged to.
struct EventCursor: Sendable, Equatable {
    static let version: UInt8 = 1
    /// Longest accepted text: about 4 000 conversations; a request line cannot carry more anyway.
    static let maxTextLength = 64 << 10

    /// Position by conversation key.
    var positions: [UInt64: Int64] = [:]

    init() {}

    enum DecodingError: Error, Equatable {
        case malformed(String)
    }

    /// The key of a conversation in a cursor.
    static func key(_ convoID: String) -> UInt64 {
        HashAlgorithm.sha256.hash(Array(convoID.utf8)).prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    func position(of convoID: String) -> Int64? { positions[Self.key(convoID)] }

    mutating func set(_ convoID: String, _ seq: Int64) { positions[Self.key(convoID)] = seq }

    /// The wire form of `positions` given as key → seq (keys precomputed by the caller).
    static func encode(_ positions: some Sequence<(key: UInt64, seq: Int64)>) -> String {
        var bytes: [UInt8] = [version]
        for entry in positions.sorted(by: { $0.key < $1.key }) {
            for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: entry.key >> UInt64(shift))) }
            var value = UInt64(max(0, entry.seq))
            repeat {
                let low = UInt8(value & 0x7F)
                value >>= 7
                bytes.append(value == 0 ? low : low | 0x80)
            } while value != 0
        }
        return Base64URL.encode(bytes)
    }

    func encoded() -> String {
        Self.encode(positions.map { (key: $0.key, seq: $0.value) })
    }

    init(decoding text: String) throws(DecodingError) {
        guard !text.isEmpty, text.utf8.count <= Self.maxTextLength else { throw .malformed("cursor length") }
        guard let bytes = Base64URL.decode(text) else { throw .malformed("cursor is not base64url") }
        guard bytes.first == Self.version else { throw .malformed("unknown cursor version") }
        var index = 1
        var previous: UInt64?
        while index < bytes.count {
            guard bytes.count - index >= 9 else { throw .malformed("truncated cursor entry") }
            let key = bytes[index..<index + 8].reduce(0) { $0 << 8 | UInt64($1) }
            index += 8
            if let previous, key <= previous { throw .malformed("cursor entries out of order") }
            previous = key
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard index < bytes.count else { throw .malformed("truncated cursor varint") }
                let byte = bytes[index]
                index += 1
                // 9 groups of 7 bits hold every Int64; a 10th group would overflow.
                guard shift < 56 || byte & 0x80 == 0 else { throw .malformed("cursor seq too large") }
                value |= UInt64(byte & 0x7F) << shift
                if byte & 0x80 == 0 { break }
                shift += 7
            }
            positions[key] = Int64(value)
        }
    }
}

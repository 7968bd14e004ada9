import ATProto
import Basics
import DeliveryStore

/// Checks shared by the methods' inputs; each failure is 400 InvalidRequest with the field named.
enum InputValidation {
    /// A conversation id is the lowercase hex of the MLS group_id.
    static func convoID(_ text: String) throws(XRPCError) -> String {
        guard !text.isEmpty, text.utf8.count <= 512, Hex.decode(text) != nil else {
            throw .invalidRequest("convoId must be the hex of the group id")
        }
        return text.lowercased()
    }

    static func did(_ text: String) throws(XRPCError) -> DID {
        do { return try DID(text) } catch { throw XRPCError(400, .invalidDid, "invalid DID \(text.prefix(100))") }
    }

    /// msgId: a ULID (26 Crockford base32 characters) or a UUID (RFC 9562).
    static func messageID(_ text: String) throws(XRPCError) -> String {
        let bytes = text.utf8
        if bytes.count == 26, bytes.allSatisfy(isCrockfordBase32) { return text }
        if bytes.count == 36 {
            let valid = bytes.enumerated().allSatisfy { index, c in
                index == 8 || index == 13 || index == 18 || index == 23 ? c == UInt8(ascii: "-") : Hex.isDigit(c)
            }
            if valid { return text }
        }
        throw .invalidRequest("msgId must be a ULID or a UUID")
    }

    /// Crockford's base32 alphabet, either case: digits and letters but I, L, O and U.
    private static func isCrockfordBase32(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"):
            switch c | 0x20 {
            case UInt8(ascii: "i"), UInt8(ascii: "l"), UInt8(ascii: "o"), UInt8(ascii: "u"): false
            default: true
            }
        default: false
        }
    }

    /// createConvo's `handshake`: `public` (the default) or `sealed`.
    static func handshake(_ text: String?) throws(XRPCError) -> ConvoHandshake {
        guard let text else { return .public }
        guard let policy = ConvoHandshake(rawValue: text) else { throw .invalidRequest("handshake must be \"public\" or \"sealed\"") }
        return policy
    }

    static func epoch(_ value: Int64, field: String = "epoch") throws(XRPCError) -> Int64 {
        guard value >= 0 else { throw .invalidRequest("\(field) must not be negative") }
        return value
    }
}

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
        let bytes = Array(text.utf8)
        let crockford = Set("0123456789ABCDEFGHJKMNPQRSTVWXYZabcdefghjkmnpqrstvwxyz".utf8)
        if bytes.count == 26, bytes.allSatisfy({ crockford.contains($0) }) { return text }
        if bytes.count == 36 {
            let hex = Set("0123456789abcdefABCDEF".utf8)
            let valid = bytes.enumerated().allSatisfy { index, c in
                [8, 13, 18, 23].contains(index) ? c == UInt8(ascii: "-") : hex.contains(c)
            }
            if valid { return text }
        }
        throw .invalidRequest("msgId must be a ULID or a UUID")
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

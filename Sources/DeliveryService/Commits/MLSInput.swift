import MLS

/// Decoding of the MLS objects methods receive, each failure a 400 with the method's error name.
/// Every decoder runs within `DecodingLimits` (`ServiceLimits.decodingLimits`, or tighter), so no
/// vector of a request is kept past its bound.
enum MLSInput {
    static func message(_ bytes: [UInt8], limits: DecodingLimits, error name: XRPCErrorName, what: String) throws(XRPCError) -> MLSMessage {
        do {
            let message = try MLSMessage(decoding: bytes, limits: limits)
            guard message.version == .mls10 else { throw XRPCError(400, name, "\(what): unsupported protocol version") }
            return message
        } catch let error as XRPCError {
            throw error
        } catch DecodingError.tooManyElements(let limit) {
            throw XRPCError(400, name, "\(what): a list holds more than \(limit) entries")
        } catch {
            throw XRPCError(400, name, "\(what) is not a valid MLSMessage")
        }
    }

    /// Whether `bytes` frame a PrivateMessage (RFC 9420 §6: version mls10, then wire_format
    /// mls_private_message), read from the first four bytes without decoding: such a commit or
    /// proposal takes the sealed path (docs/sealed-commits.md), anything else the public one.
    static func isPrivateMessage(_ bytes: [UInt8]) -> Bool {
        bytes.count >= 4 && bytes[0] == 0 && bytes[1] == 1 && bytes[2] == 0 && bytes[3] == UInt8(WireFormat.privateMessage.rawValue)
    }

    static func publicMessage(_ bytes: [UInt8], limits: DecodingLimits, error name: XRPCErrorName, what: String) throws(XRPCError) -> PublicMessage {
        guard case .publicMessage(let message) = try message(bytes, limits: limits, error: name, what: what).body else {
            throw XRPCError(400, name, "\(what) must be a PublicMessage (handshake messages are validated by the service)")
        }
        return message
    }

    static func groupInfo(_ bytes: [UInt8], limits: DecodingLimits) throws(XRPCError) -> GroupInfo {
        guard case .groupInfo(let groupInfo) = try message(bytes, limits: limits, error: .invalidGroupInfo, what: "groupInfo").body else {
            throw XRPCError(400, .invalidGroupInfo, "groupInfo must be an MLSMessage carrying a GroupInfo")
        }
        return groupInfo
    }

    /// A Welcome addresses one entry per new member: `limits` should allow no more entries than that.
    static func welcome(_ bytes: [UInt8], limits: DecodingLimits) throws(XRPCError) -> Welcome {
        guard case .welcome(let welcome) = try message(bytes, limits: limits, error: .invalidWelcome, what: "welcomeMessage").body else {
            throw XRPCError(400, .invalidWelcome, "welcomeMessage must be an MLSMessage carrying a Welcome")
        }
        return welcome
    }
}

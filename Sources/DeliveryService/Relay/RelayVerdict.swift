import ATProto
import DeliveryStore
import MQTT
import Store

/// The service's answer to a PUBLISH (MQTT 5.0 §3.4.2.1): accepted (PUBACK 0x00) or refused with a
/// PUBACK Reason Code and a Reason String naming the check as the XRPC error would
/// (`<ErrorName>: <message>`).
enum RelayVerdict: Equatable, Sendable {
    case accepted
    case refused(ReasonCode, String)

    /// 0x99: not an MLSMessage of the kind the topic carries.
    static func payloadInvalid(_ what: String) -> RelayVerdict { .refused(.payloadFormatInvalid, "InvalidMessage: \(what)") }

    static func notAuthorized(_ what: String) -> RelayVerdict { .refused(.notAuthorized, "NotAuthorized: \(what)") }

    /// A conversation the caller is not in, whether it exists or not: one answer for both, so that
    /// PUBACKs tell nobody which group ids exist.
    static let notMember = RelayVerdict.refused(.notAuthorized, "NotMember: the caller is not a member of this conversation "
                                                + "(to create one, publish its GroupInfo on its relay/g/{group_id}/i first)")

    /// What a check that threw means on MQTT: 0x87 for who-may-do-what (403, an unknown group or
    /// one the caller is not in), 0x97 for quotas and rate limits, 0x80 with the XRPC error's name
    /// and message for the rest (invalid commits, messages, epochs...).
    init(_ error: any Error) {
        let xrpc: XRPCError
        switch error {
        case let error as XRPCError: xrpc = error
        case let error as DeliveryStoreError:
            guard let mapped = error.xrpcError else {
                self = .refused(.unspecifiedError, "ServiceUnavailable: the database is unavailable, retry later")
                return
            }
            xrpc = mapped
        case let error as AuthError: xrpc = XRPCError(error)
        case is StoreError:
            self = .refused(.unspecifiedError, "ServiceUnavailable: the database is unavailable, retry later")
            return
        default:
            self = .refused(.unspecifiedError, "InternalServerError: internal error")
            return
        }
        let reason = "\(xrpc.name.rawValue): \(xrpc.message)"
        switch xrpc.status {
        case _ where [.convoNotFound, .notMember].contains(xrpc.name): self = .notMember
        case 403: self = .refused(.notAuthorized, reason)
        case 429: self = .refused(.quotaExceeded, reason)
        case _ where [.tooManyKeyPackages, .quotaExceeded].contains(xrpc.name): self = .refused(.quotaExceeded, reason)
        default: self = .refused(.unspecifiedError, reason)
        }
    }
}

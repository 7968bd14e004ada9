import DeliveryStore
import Store

extension DeliveryStoreError {
    /// The XRPC error a client sees (API.md, notable errors). Database failures map to 503 or 500
    /// in the router.
    var xrpcError: XRPCError? {
        switch self {
        case .convoNotFound: return .notFound("ConvoNotFound", "no such conversation")
        case .convoAlreadyExists: return .conflict("ConvoAlreadyExists", "a conversation with this group id exists")
        case .notMember: return .forbidden("NotMember", "the caller is not a member of this conversation")
        case .epochMismatch(let current): return .conflict("EpochMismatch", "the conversation is at epoch \(current)")
        case .commitConflict(let current):
            return .conflict("CommitConflict", "another commit won this epoch; the conversation is at epoch \(current)")
        case .keyPackageNotFound: return .notFound("KeyPackageNotFound", "a key package the commit adds is unknown or already used")
        case .keyPackageOwnerMismatch: return XRPCError(400, "KeyPackageNotFound", "a key package belongs to another DID")
        case .tooManyKeyPackages(let limit): return .conflict("TooManyKeyPackages", "at most \(limit) unused key packages per user")
        case .duplicateKeyPackage: return .conflict("DuplicateKeyPackage", "this key package was already published")
        case .messageIDConflict: return .conflict("MessageIdConflict", "msgId already used by another sender")
        case .welcomeNotFound: return .notFound("WelcomeNotFound", "no Welcome waits for the caller")
        case .welcomeStale: return XRPCError(410, "WelcomeStale", "the Welcome is no longer valid")
        case .invalidCursor: return XRPCError(400, "InvalidCursor", "invalid cursor")
        case .quotaExceeded(let used, let quota):
            return XRPCError(413, "QuotaExceeded", "the upload would exceed the blob quota (\(used) of \(quota) bytes used)")
        case .invalidAttachment(let message): return XRPCError(400, "InvalidAttachment", message)
        case .invalidArgument(let message): return .invalidRequest(message)
        case .tokenReplayed: return XRPCError(401, "BadJwt", "replayed token", headers: [("WWW-Authenticate", "Bearer")])
        case .database: return nil
        }
    }
}

import ATProto
import DeliveryStore
import Store

extension DeliveryStoreError {
    /// The XRPC error a client sees (API.md, notable errors). Database failures map to 503 or 500
    /// in the router.
    var xrpcError: XRPCError? {
        switch self {
        case .convoNotFound: return .notFound(.convoNotFound, "no such conversation")
        case .convoAlreadyExists: return .conflict(.convoAlreadyExists, "a conversation with this group id exists")
        case .notMember: return .forbidden(.notMember, "the caller is not a member of this conversation")
        case .epochMismatch(let current): return .conflict(.epochMismatch, "the conversation is at epoch \(current)")
        case .commitConflict(let current):
            return .conflict(.commitConflict, "another commit won this epoch; the conversation is at epoch \(current)")
        case .groupFrozen:
            return .conflict(.groupFrozen, "a ReInit commit froze this conversation; continue in the group it names")
        case .proposalsNotCovered(let count):
            return .conflict(.pendingProposals,
                             "the commit must cover the \(count) proposal(s) pending for its epoch (getMessages has them)")
        case .keyPackageNotFound: return .notFound(.keyPackageNotFound, "a key package the commit adds is unknown or already used")
        case .keyPackageOwnerMismatch: return XRPCError(400, .keyPackageNotFound, "a key package belongs to another DID")
        case .tooManyKeyPackages(let limit): return .conflict(.tooManyKeyPackages, "at most \(limit) unused key packages per user")
        case .duplicateKeyPackage: return .conflict(.duplicateKeyPackage, "this key package was already published")
        case .messageIDConflict: return .conflict(.messageIdConflict, "msgId already used by another sender")
        case .welcomeNotFound: return .notFound(.welcomeNotFound, "no Welcome waits for the caller")
        case .welcomeStale: return XRPCError(410, .welcomeStale, "the Welcome is no longer valid")
        case .invalidCursor: return XRPCError(400, .invalidCursor, "invalid cursor")
        case .quotaExceeded(let used, let quota):
            return XRPCError(413, .quotaExceeded, "the upload would exceed the blob quota (\(used) of \(quota) bytes used)")
        case .messageQuotaExceeded(let used, let quota):
            return XRPCError(413, .quotaExceeded,
                             "the message would exceed the sender's stored-message quota (\(used) of \(quota) bytes used; expired messages give it back)")
        case .tooManyConvos(let limit):
            return .conflict(.tooManyConvos, "at most \(limit) conversations created by one user and still joined")
        case .tooManyKeyPackageUses(let owner, let retryAfter):
            return XRPCError(429, .tooManyKeyPackageUses,
                             "too many KeyPackages of \(owner) used recently; retry in \(retryAfter) s",
                             headers: [("Retry-After", String(retryAfter))])
        case .invalidAttachment(let message): return XRPCError(400, .invalidAttachment, message)
        case .tooManyPushDevices(let limit):
            return .conflict(.tooManyDevices, "at most \(limit) devices per user are registered for push; unregister one first")
        case .invalidArgument(let message): return .invalidRequest(message)
        case .tokenReplayed: return XRPCError(AuthError.replayedToken)
        case .database: return nil
        }
    }
}

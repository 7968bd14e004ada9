import Store

/// Every failure the DeliveryStore reports. The domain cases map one to one onto XRPC errors
/// (API.md); `.database` wraps the Store layer's error (`unavailable` and `poolTimeout` → 503).
///
/// An operation checks all its preconditions before its first write, so a domain error leaves
/// nothing behind even inside a longer transaction; a `.database` error aborts the transaction.
public enum DeliveryStoreError: Error, Sendable, Equatable {
    case convoNotFound
    case convoAlreadyExists
    case notMember
    /// The conversation is at `current`, and the request's epoch is neither it nor the epoch a
    /// commit just won.
    case epochMismatch(current: Int64)
    /// Another commit already won the epoch this one was made in; the group is now at `current`.
    case commitConflict(current: Int64)
    /// A ReInit commit froze the conversation: no further commit, message or proposal.
    case groupFrozen
    /// The commit leaves out `count` proposals kept for its epoch (e.g. a member's request to leave).
    case proposalsNotCovered(count: Int)
    /// The KeyPackageRef is unknown or its package was already consumed.
    case keyPackageNotFound(ref: [UInt8])
    /// The KeyPackageRef exists but belongs to another DID than the one it was used for.
    case keyPackageOwnerMismatch(ref: [UInt8])
    /// The owner already stores `limit` unconsumed, unexpired packages.
    case tooManyKeyPackages(limit: Int)
    /// The KeyPackageRef is already stored for another owner, or was already consumed.
    case duplicateKeyPackage
    /// A message id already used in this conversation by another sender.
    case messageIDConflict
    case welcomeNotFound
    /// A welcome exists, but its recipient is no longer a member (removed since).
    case welcomeStale
    case invalidCursor
    /// The upload would take the owner's blobs past `quota` bytes (`used` are stored already).
    case quotaExceeded(used: Int64, quota: Int64)
    /// The message would take its sender's stored messages past `quota` (`used` are charged already;
    /// retention gives bytes back as messages expire).
    case messageQuotaExceeded(used: Int64, quota: Int64)
    /// The caller already created `limit` conversations it still belongs to.
    case tooManyConvos(limit: Int)
    /// The commit would add more of `owner`'s KeyPackages in the window than the limits allow;
    /// `retryAfter` seconds until the oldest counted use leaves the window.
    case tooManyKeyPackageUses(owner: String, retryAfter: Int)
    /// A sendMessage attachment is not a blob of the message's conversation.
    case invalidAttachment(String)
    /// The request's service-auth token was used before (AUTH.md check 9, recorded in the write's
    /// own transaction).
    case tokenReplayed
    /// The user already has `limit` other devices registered for push.
    case tooManyPushDevices(limit: Int)
    /// The caller broke an argument precondition (e.g. a member list with a duplicate leaf).
    case invalidArgument(String)
    case database(StoreError)
}

extension DeliveryStoreError {
    /// Maps anything thrown inside the store to a DeliveryStoreError.
    static func from(_ error: any Error) -> DeliveryStoreError {
        switch error {
        case let error as DeliveryStoreError: error
        case let error as StoreError: .database(error)
        default: .database(.queryFailed(sqlState: "XX000", message: String(describing: error)))
        }
    }
}

/// Runs `body` and reports whatever it throws as a DeliveryStoreError.
func guarded<T>(_ body: () throws -> T) throws(DeliveryStoreError) -> T {
    do {
        return try body()
    } catch {
        throw DeliveryStoreError.from(error)
    }
}

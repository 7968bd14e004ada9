import ATProto
import DeliveryStore
import Synchronization

/// A request's token whose replay check (AUTH.md check 9) the handler makes inside its own write
/// transaction, so that the token's use and the write commit together. The handler calls
/// `settle()` once a committed transaction has recorded the token (or found it replayed); if it
/// never does, the router records it alone after the handler, as for every other method, and
/// answers 401 `BadJwt` if it was a replay.
public final class DeferredReplay: Sendable {
    public let claim: ReplayClaim
    private let settled = Atomic<Bool>(false)

    init(_ claim: ReplayClaim) { self.claim = claim }

    public func settle() { settled.store(true, ordering: .releasing) }

    public var isSettled: Bool { settled.load(ordering: .acquiring) }

    /// The claim as the store records it.
    var record: ReplayRecord { ReplayRecord(iss: claim.iss, jti: claim.jti, until: claim.until) }
}

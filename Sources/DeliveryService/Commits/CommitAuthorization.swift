import Basics
import DeliveryStore

/// Who may remove whom (API.md: removeMember needs admin). A commit may remove the caller's own
/// other devices, members who asked to leave (a pending self-Remove), or anyone if the caller is
/// an admin.
enum CommitAuthorization {
    static func checkRemovals(_ validated: CommitPipeline.Validated, callerDID: String, isAdmin: Bool) throws(XRPCError) {
        for did in validated.removedDIDs where did != callerDID && !validated.pendingLeaves.contains(did) && !isAdmin {
            throw XRPCError.forbidden(.notAdmin, "only an admin may remove other members")
        }
    }

    /// Leaves of members who asked to leave count as `left`, the rest as `removed`.
    static func departures(_ validated: CommitPipeline.Validated) -> [UInt32: DepartureReason] {
        var reasons: [UInt32: DepartureReason] = [:]
        for removed in validated.summary.removed {
            let did = MemberIdentity.did(of: removed.leafNode.credential)
            reasons[removed.leafIndex] = did.map { validated.pendingLeaves.contains($0) } == true ? .left : .removed
        }
        return reasons
    }

    static func role(_ env: MethodEnvironment, convoID: String, did: DID) throws -> MemberRole {
        guard let role = try env.store.memberRole(convoID: convoID, did: did) else { throw DeliveryStoreError.notMember }
        return role
    }
}

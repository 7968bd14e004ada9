import DeliveryStore
import MLS

/// The service's own rules on a commit PublicGroup accepted, so that no one appears in a group
/// who did not join it and no request to leave is lost (docs/validation.md, "Service rules").
enum CommitIntegrity {
    /// RFC 9420 §5.3.1: when a member's credential changes (an Update, or the committer's UpdatePath
    /// leaf), the new one must be a valid successor of the old; for this service, the same DID. Only
    /// leaves the commit adds (from KeyPackages their DIDs published, checked in the store) and an
    /// external joiner's own leaf (the caller's) may bring a new DID. O(members).
    static func checkCredentialContinuity(from current: PublicGroup, to next: PublicGroup, summary: CommitSummary) throws(XRPCError) {
        let added = Set(summary.added.map(\.leafIndex))
        for member in next.members where !added.contains(member.leafIndex) {
            if summary.isExternal, member.leafIndex == summary.committerLeaf { continue }
            guard let old = current.tree.leafNode(at: member.leafIndex) else {
                throw XRPCError(400, .invalidCommit, "leaf \(member.leafIndex) appears without an Add")
            }
            if old.credential == member.credential { continue }
            guard let was = MemberIdentity.did(of: old.credential), MemberIdentity.did(of: member.credential) == was else {
                throw XRPCError(400, .invalidCommit, "leaf \(member.leafIndex) may not take another DID's credential")
            }
        }
    }

    /// Every proposal the service keeps for the commit's epoch (leaveConvo's self-Removes) must be
    /// covered. A self-Remove is covered when the commit removes its leaf, whether by referring to it
    /// or inline (an external joiner cannot refer to proposals, RFC 9420 §12.4.3.2, but may remove
    /// its own old leaf); counting by leaf also means that two requests to leave cannot demand two
    /// Removes of one leaf, which §12.2 forbids. Returns the refs the commit covers, which the
    /// store checks again under the row lock.
    static func coveredProposals(_ pending: [PendingProposal], commit: Commit, summary: CommitSummary) throws(XRPCError) -> [[UInt8]] {
        try coveredProposals(pending, referenced: commit.proposals.compactMap { if case .reference(let ref) = $0 { ref } else { nil } },
                             summary: summary)
    }

    /// The same, given the ProposalRefs a commit names: none for a sealed commit, whose proposal
    /// list is encrypted, so that its leave requests are covered by their leaves alone (the leaf
    /// must be blank in the GroupInfo's tree).
    static func coveredProposals(_ pending: [PendingProposal], referenced refs: [[UInt8]],
                                 summary: CommitSummary) throws(XRPCError) -> [[UInt8]] {
        var covered = refs
        let referenced = Set(covered)
        let removed = Set(summary.removed.map(\.leafIndex))
        var missing: [PendingProposal] = []
        for proposal in pending where !referenced.contains(proposal.ref) {
            if proposal.kind == "remove", let leaf = proposal.senderLeaf, removed.contains(leaf) {
                covered.append(proposal.ref)
            } else {
                missing.append(proposal)
            }
        }
        guard let first = missing.first else { return covered }
        if !summary.isExternal, first.senderLeaf == summary.committerLeaf {
            throw XRPCError.conflict(.pendingProposals, "the committer asked to leave in this epoch: another member must commit its Remove")
        }
        throw XRPCError.conflict(.pendingProposals, "the commit must cover the \(missing.count) proposal(s) pending for its epoch "
                                 + "(leaf \(first.senderLeaf.map(String.init) ?? "?") asked to leave): include them by reference")
    }
}

import Basics
import Foundation
import Store

/// A proposal sent by reference and kept until a commit covers it.
public struct PendingProposal: Sendable, Equatable {
    public var convoID: String
    /// The epoch the proposal was made in.
    public var epoch: Int64
    /// RFC 9420 §5.2 ProposalRef.
    public var ref: [UInt8]
    public var senderLeaf: UInt32?
    public var senderDID: DID
    /// The proposal type, e.g. `remove`.
    public var kind: String
    /// The PublicMessage bytes.
    public var proposal: [UInt8]
    public var createdAt: Date

    public init(convoID: String, epoch: Int64, ref: [UInt8], senderLeaf: UInt32?, senderDID: DID, kind: String,
                proposal: [UInt8], createdAt: Date = Date()) {
        self.convoID = convoID
        self.epoch = epoch
        self.ref = ref
        self.senderLeaf = senderLeaf
        self.senderDID = senderDID
        self.kind = kind
        self.proposal = proposal
        self.createdAt = createdAt
    }
}

extension DeliveryTransaction {
    /// Keeps a proposal made in the current epoch (`epochMismatch` otherwise) of a conversation that
    /// is not frozen (`groupFrozen`); its sender must be a current member. Returns false if the same
    /// ref, or a Remove from the same leaf, was already stored for the epoch (`createdAt` is ignored).
    @discardableResult
    public func addPendingProposal(_ proposal: PendingProposal) throws(DeliveryStoreError) -> Bool {
        try guarded {
            let current = try lockLiveConvo(proposal.convoID)
            guard proposal.epoch == current else { throw DeliveryStoreError.epochMismatch(current: current) }
            guard try isMember(convoID: proposal.convoID, did: proposal.senderDID) else { throw DeliveryStoreError.notMember }
            // One request to leave per leaf and epoch: a second adds nothing a commit could cover.
            if proposal.kind == "remove", let leaf = proposal.senderLeaf {
                let kept = try connection.query("""
                    SELECT 1 FROM pending_proposals WHERE convo_id = $1 AND epoch = $2 AND kind = 'remove' AND sender_leaf = $3
                    """, [proposal.convoID, proposal.epoch, Int64(leaf)])
                if !kept.isEmpty { return false }
            }
            let inserted = try connection.execute("""
                INSERT INTO pending_proposals (convo_id, epoch, proposal_ref, sender_leaf, sender_did, kind, proposal)
                VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT DO NOTHING
                """, [proposal.convoID, proposal.epoch, proposal.ref, proposal.senderLeaf.map { Int64($0) },
                      proposal.senderDID, proposal.kind, proposal.proposal])
            guard inserted > 0 else { return false }
            // Members learn of the proposal as a message, so that any of them can commit it by reference.
            let msgID = "proposal-" + Hex.encode(Array(proposal.ref.prefix(16)))
            let (seq, eventSeq, at) = try nextSeq(proposal.convoID, touch: false)
            try connection.execute("""
                INSERT INTO messages (convo_id, seq, msg_id, epoch, message_type, sender_did, ciphertext, size, created_at,
                                      event_seq)
                VALUES ($1, $2, $3, $4, 'proposal', $5, $6, $7, $8, $9)
                """, [proposal.convoID, seq, msgID, proposal.epoch, proposal.senderDID, proposal.proposal,
                      Int32(clamping: proposal.proposal.count), at, eventSeq])
            try announceEvents(proposal.convoID, through: eventSeq)
            return true
        }
    }

    /// The proposals kept for the conversation, of one epoch or of all, oldest first.
    public func pendingProposals(convoID: String, epoch: Int64? = nil) throws(DeliveryStoreError) -> [PendingProposal] {
        try guarded {
            let rows = try connection.query("""
                SELECT convo_id, epoch, proposal_ref, sender_leaf, sender_did, kind, proposal, created_at
                FROM pending_proposals WHERE convo_id = $1 AND ($2::bigint IS NULL OR epoch = $2)
                ORDER BY epoch, created_at, proposal_ref
                """, [convoID, epoch])
            return try rows.map { row in
                let leaf = try row.optionalInt64("sender_leaf").map { value in
                    guard let leaf = UInt32(exactly: value) else { throw StoreError.decoding("sender_leaf out of range") }
                    return leaf
                }
                return PendingProposal(convoID: try row.string("convo_id"), epoch: try row.int64("epoch"),
                                       ref: try row.bytes("proposal_ref"), senderLeaf: leaf,
                                       senderDID: try row.did("sender_did"), kind: try row.string("kind"),
                                       proposal: try row.bytes("proposal"), createdAt: try row.date("created_at"))
            }
        }
    }

    /// Drops the pending proposals a commit covered.
    func dropCoveredProposals(_ convoID: String, refs: [[UInt8]]) throws {
        guard !refs.isEmpty else { return }
        try connection.execute("DELETE FROM pending_proposals WHERE convo_id = $1 AND proposal_ref = ANY($2)",
                               [convoID, PGArray(refs)])
    }
}

import Basics
import Foundation
import Store

extension DeliveryTransaction {
    /// Applies a validated commit: the one way a conversation's epoch advances.
    ///
    /// Under the conversation's row lock, the conversation must not be frozen (`groupFrozen`), and
    /// every proposal kept for the epoch must be covered (`proposalsNotCovered`: a leave request that
    /// arrived after the committer looked is not lost). The conversation must still be at `commitEpoch`. If it
    /// is not: when a commit for `commitEpoch` is stored and the group is one epoch past it,
    /// another commit won the race (`commitConflict`); anything else is `epochMismatch`. Then all
    /// added key packages are checked (`keyPackageNotFound`, `keyPackageOwnerMismatch`) before the
    /// first write, so a failed commit leaves nothing behind. The writes: the commit row (unique
    /// per epoch), the commit as a message with the next seq, the new epoch, public state and
    /// GroupInfo, the member diff, consumed key packages, welcomes, dropped covered proposals,
    /// and the events (the commit message's own, membershipChangeEvent per DID, epochAdvanced).
    /// The sender's right to commit (a member leaf, or an external joiner) is the caller's MLS
    /// check: the store does not require `senderDID` to be a current member.
    public func applyCommit(_ application: CommitApplication) throws(DeliveryStoreError) -> CommitOutcome {
        try guarded {
            let convoID = application.convoID
            let current = try lockLiveConvo(convoID)
            guard application.commitEpoch == current else {
                throw try epochError(convoID: convoID, commitEpoch: application.commitEpoch, current: current)
            }
            try checkCoverage(convoID: convoID, epoch: current, covered: application.coveredProposalRefs)
            let newEpoch = application.newEpoch
            let diff = try MemberDiff(current: try currentLeaves(convoID), next: application.members,
                                      departures: application.departures, epoch: newEpoch)
            try checkRecipients(application.welcomes, application.consumedKeyPackages,
                                in: Set(application.members.map(\.did)))
            try checkKeyPackages(application.consumedKeyPackages, by: application.senderDID)

            let msgID = application.msgID ?? "commit-\(application.commitEpoch)"
            let seq = try appendCommitMessage(convoID: convoID, msgID: msgID, epoch: application.commitEpoch,
                                              senderDID: application.senderDID.rawValue, commit: application.commit)
            try connection.execute("""
                UPDATE convos SET epoch = $2, public_state = $3,
                    group_info = coalesce($4, group_info),
                    group_info_epoch = CASE WHEN $4::bytea IS NULL THEN group_info_epoch ELSE $2 END,
                    frozen_epoch = CASE WHEN $5 THEN $2 ELSE frozen_epoch END
                WHERE convo_id = $1
                """, [convoID, newEpoch, application.newPublicState, application.newGroupInfo, application.freezes])
            try applyMemberDiff(convoID, diff, epoch: newEpoch)
            try consumeKeyPackages(application.consumedKeyPackages, by: application.senderDID, convoID: convoID)
            try storeWelcomes(convoID, application.welcomes, epoch: newEpoch, sender: application.senderDID)
            try dropCoveredProposals(convoID, refs: application.coveredProposalRefs)
            if configuration.pushEnabled {
                // The members it adds cannot process it: they are woken by their Welcome.
                try enqueuePushes(PushEvent(kind: PushEvent.commitKind, convoID: convoID, seq: seq, epoch: application.commitEpoch,
                                            messageID: msgID),
                                  to: .members(except: application.senderDID, joinedBefore: newEpoch))
            }

            // The commit message is the first event (its own row); these follow it.
            var events = diff.changes.map(PendingEvent.membership)
            events.append(.epochAdvanced(epoch: newEpoch, commitSeq: seq))
            try appendEvents(convoID, events)
            return CommitOutcome(newEpoch: newEpoch, seq: seq, changes: diff.changes, joinedLeaves: diff.joined,
                                 departedLeaves: diff.departed.map(\.leafIndex))
        }
    }

    /// Stored commits made in epochs `fromEpoch…toEpoch` (to the newest if nil), oldest first.
    public func commits(convoID: String, fromEpoch: Int64, toEpoch: Int64? = nil,
                        limit: Int = 100) throws(DeliveryStoreError) -> [CommitRow] {
        try guarded {
            guard limit >= 1, limit <= 1000 else { throw DeliveryStoreError.invalidArgument("limit 1…1000") }
            guard toEpoch.map({ $0 >= fromEpoch }) ?? true else {
                throw DeliveryStoreError.invalidArgument("toEpoch before fromEpoch")
            }
            _ = try epoch(convoID: convoID)
            let rows = try connection.query("""
                SELECT convo_id, epoch, seq, sender_did, commit_data, created_at FROM commits
                WHERE convo_id = $1 AND epoch >= $2 AND ($3::bigint IS NULL OR epoch <= $3)
                ORDER BY epoch LIMIT $4
                """, [convoID, fromEpoch, toEpoch, Int64(limit)])
            return try rows.map { row in
                CommitRow(convoID: try row.string("convo_id"), epoch: try row.int64("epoch"), seq: try row.int64("seq"),
                          senderDID: try row.string("sender_did"), commit: try row.bytes("commit_data"),
                          createdAt: try row.date("created_at"))
            }
        }
    }

    /// Every proposal kept for `epoch` is among `covered` (RFC 9420 §12.4: a commit covers the valid
    /// proposals of its epoch; the service insists for the ones it keeps, as Wire's does).
    private func checkCoverage(convoID: String, epoch: Int64, covered: [[UInt8]]) throws {
        let rows = try connection.query(
            "SELECT proposal_ref FROM pending_proposals WHERE convo_id = $1 AND epoch = $2", [convoID, epoch])
        guard !rows.isEmpty else { return }
        let refs = Set(covered)
        let missing = try rows.filter { !refs.contains(try $0.bytes("proposal_ref")) }.count
        guard missing == 0 else { throw DeliveryStoreError.proposalsNotCovered(count: missing) }
    }

    /// Why a commit made in `commitEpoch` cannot apply at `current`: a lost race for the epoch
    /// just committed is a conflict; any other epoch is a mismatch.
    private func epochError(convoID: String, commitEpoch: Int64, current: Int64) throws -> DeliveryStoreError {
        guard commitEpoch == current - 1 else { return .epochMismatch(current: current) }
        let won = try connection.query("SELECT 1 FROM commits WHERE convo_id = $1 AND epoch = $2", [convoID, commitEpoch])
        return won.isEmpty ? .epochMismatch(current: current) : .commitConflict(current: current)
    }
}

import Basics
import Foundation

/// A commit the caller validated against the public state of `commitEpoch`, with the state it
/// produces. Applied by `applyCommit` only if the conversation is still at `commitEpoch`.
public struct CommitApplication: Sendable {
    public var convoID: String
    /// The epoch the commit was made in (the PublicMessage's epoch).
    public var commitEpoch: Int64
    public var newPublicState: [UInt8]
    /// GroupInfo for the new epoch, if the committer supplied one.
    public var newGroupInfo: [UInt8]?
    /// The commit's MLSMessage bytes, stored as the epoch's commit and as a message.
    public var commit: [UInt8]
    public var senderDID: DID
    /// Every occupied leaf of the new tree; the store diffs it against the current members.
    public var members: [MemberLeaf]
    /// Why leaves that disappear left; a leaf not listed counts as removed.
    public var departures: [UInt32: DepartureReason]
    public var consumedKeyPackages: [KeyPackageUse]
    public var welcomes: [WelcomeDelivery]
    /// Pending proposals (by ProposalRef) the commit covers, dropped when it applies. Every proposal
    /// kept for `commitEpoch` must be among them (`proposalsNotCovered`).
    public var coveredProposalRefs: [[UInt8]]
    /// The commit carries a ReInit: the conversation freezes at `newEpoch`.
    public var freezes: Bool
    /// Message id for the commit's message row; defaults to `commit-<commitEpoch>`.
    public var msgID: String?

    public init(
        convoID: String, commitEpoch: Int64, newPublicState: [UInt8], newGroupInfo: [UInt8]? = nil,
        commit: [UInt8], senderDID: DID, members: [MemberLeaf], departures: [UInt32: DepartureReason] = [:],
        consumedKeyPackages: [KeyPackageUse] = [], welcomes: [WelcomeDelivery] = [],
        coveredProposalRefs: [[UInt8]] = [], freezes: Bool = false, msgID: String? = nil
    ) {
        self.convoID = convoID
        self.commitEpoch = commitEpoch
        self.newPublicState = newPublicState
        self.newGroupInfo = newGroupInfo
        self.commit = commit
        self.senderDID = senderDID
        self.members = members
        self.departures = departures
        self.consumedKeyPackages = consumedKeyPackages
        self.welcomes = welcomes
        self.coveredProposalRefs = coveredProposalRefs
        self.freezes = freezes
        self.msgID = msgID
    }

    /// The epoch the group moves to.
    public var newEpoch: Int64 { commitEpoch + 1 }
}

/// A DID-level membership change: the DID gained its first leaf, or lost its last one.
public struct MembershipChange: Sendable, Hashable, Codable {
    public enum Action: String, Sendable, Codable {
        case joined
        case left
        case removed
    }

    public var did: String
    public var action: Action
    /// The epoch the change took effect in.
    public var epoch: Int64

    public init(did: String, action: Action, epoch: Int64) {
        self.did = did
        self.action = action
        self.epoch = epoch
    }
}

/// What an applied commit changed.
public struct CommitOutcome: Sendable, Equatable {
    public var newEpoch: Int64
    /// The seq of the commit's message row.
    public var seq: Int64
    /// DID-level changes, sorted by DID (each DID at most once).
    public var changes: [MembershipChange]
    /// Leaves that were added, and leaves whose occupant departed.
    public var joinedLeaves: [MemberLeaf]
    public var departedLeaves: [UInt32]

    public var addedDIDs: [String] { changes.filter { $0.action == .joined }.map(\.did) }
    public var removedDIDs: [String] { changes.filter { $0.action != .joined }.map(\.did) }
}

/// One stored commit, for getCommits.
public struct CommitRow: Sendable, Equatable {
    public var convoID: String
    /// The epoch the commit was made in.
    public var epoch: Int64
    public var seq: Int64
    public var senderDID: String
    public var commit: [UInt8]
    public var createdAt: Date
}

import ATProto
import Basics
import DeliveryStore
import Foundation
import MLS

/// What every commit-carrying method does before its one store transaction (MLS.md "What the
/// service validates", item 3; docs/validation.md): decode the PublicMessage, check the epoch and
/// that no ReInit froze the conversation, validate and apply the commit to the stored public state
/// with `PublicGroup`, check the committer is the caller, that no leaf changed its DID, that every
/// kept proposal is covered, a supplied GroupInfo against the computed context and a Welcome
/// against the Adds. A sealed commit (a PrivateMessage) takes `SealedCommitPipeline` instead, which
/// shares `prepare` and `finish` (CommitPipeline+Steps.swift).
struct CommitPipeline {
    let env: MethodEnvironment

    struct Request {
        var convoID: String
        var commit: [UInt8]
        var groupInfo: [UInt8]?
        var welcome: [UInt8]?
        var caller: DID
    }

    /// A commit that passed every check, with the facts the store needs.
    struct Validated {
        var convo: ConvoState
        var next: PublicGroup
        var summary: CommitSummary
        var commitEpoch: Int64
        var committerDID: String
        var members: [MemberLeaf]
        /// DIDs of the leaves the commit added and removed (a DID appears once).
        var addedDIDs: [String]
        var removedDIDs: [String]
        var consumedKeyPackages: [KeyPackageUse]
        var welcomes: [WelcomeDelivery]
        var coveredProposalRefs: [[UInt8]]
        var pendingLeaves: Set<String>
        /// The commit carries a ReInit: the conversation freezes (RFC 9420 §12.4.2).
        var freezes: Bool
    }

    func validate(_ request: Request) throws -> Validated {
        let limits = env.limits
        let message = try MLSInput.publicMessage(request.commit, limits: limits.decodingLimits, error: .invalidCommit, what: "commit")
        guard case .commit(let commit) = message.content.content else {
            throw XRPCError(400, .invalidCommit, "commit must carry a Commit")
        }
        let (convo, commitEpoch) = try openConvo(request, groupID: message.content.groupID, epoch: message.content.epoch)

        // Cheap refusals first (issue 14): counts, the store's lookups and the Welcome's shape, before
        // the stored state is rebuilt and before any signature or tree hash.
        let adds = try AddedKeyPackages(commit, maxMembers: limits.maxMembers)
        guard let suite = CipherSuite(rawValue: convo.cipherSuite) else { throw XRPCError.internalError }
        let refs = try adds.refs(suite: suite)
        // Only KeyPackages published here and not yet used can be added (docs/validation.md), so an
        // unknown one is refused now; the known ones were validated in full at publication and are
        // identified by their ref, a hash over their exact bytes and signatures: their signatures need
        // no second check (all other rules apply).
        let trusted = try env.store.unconsumedKeyPackageRefs(refs.map(\.ref))
        if let unknown = refs.first(where: { !trusted.contains($0.ref) }) {
            throw DeliveryStoreError.keyPackageNotFound(ref: unknown.ref)
        }
        var ownerByRef: [[UInt8]: String] = [:]
        for (ref, owner) in refs { ownerByRef[ref] = owner }
        let welcomes = try welcomeDeliveries(request.welcome, ownerByRef: ownerByRef, suite: convo.cipherSuite)

        let prepared = try loadState(convo, commitEpoch: commitEpoch)
        let current = prepared.current
        guard current.tree.memberCount + adds.count - adds.mostRemoved <= limits.maxMembers else {
            throw XRPCError(400, .tooManyMembers, "a conversation has at most \(limits.maxMembers) members")
        }

        let next: PublicGroup
        do {
            next = try current.validateAndApply(commit: message, now: UInt64(Date().timeIntervalSince1970),
                                                trustedKeyPackageRefs: trusted)
        } catch {
            throw XRPCError(400, .invalidCommit, mlsFailureDescription(error))
        }
        guard let summary = next.lastCommit else { throw XRPCError.internalError }
        // Adds come inline (the proposals kept here are self-Removes), so these are the ones checked above.
        guard summary.added.map(\.keyPackageRef) == refs.map(\.ref) else {
            throw XRPCError(400, .invalidCommit, "an Add by reference is not supported")
        }

        try CommitIntegrity.checkCredentialContinuity(from: current, to: next, summary: summary)
        guard let committer = next.tree.leafNode(at: summary.committerLeaf),
              let committerDID = MemberIdentity.did(of: committer.credential) else {
            throw XRPCError(400, .invalidCommit, "the committer's credential is not a DID")
        }
        guard committerDID == request.caller.rawValue else {
            throw XRPCError.forbidden(.notCommitter, "the commit is signed by another member's leaf")
        }
        let covered = try CommitIntegrity.coveredProposals(prepared.pending, commit: commit, summary: summary)

        if let groupInfoBytes = request.groupInfo {
            let groupInfo = try MLSInput.groupInfo(groupInfoBytes, limits: limits.decodingLimits)
            do { try next.verify(groupInfo: groupInfo) } catch {
                throw XRPCError(400, .invalidGroupInfo, mlsFailureDescription(error))
            }
        }
        return try finish(prepared, next: next, summary: summary, committerDID: committerDID, welcomes: welcomes,
                          covered: covered)
    }

    /// A Welcome must be for this suite and address exactly the KeyPackages added, each once (RFC
    /// 9420 §12.4.3.1: one EncryptedGroupSecrets per new member). It is decoded with room for no more
    /// entries than there are Adds, and stored once for all its recipients.
    func welcomeDeliveries(_ bytes: [UInt8]?, ownerByRef: [[UInt8]: String], suite: UInt16) throws(XRPCError) -> [WelcomeDelivery] {
        guard let bytes else {
            if !ownerByRef.isEmpty { throw XRPCError(400, .invalidWelcome, "a commit that adds members needs a welcomeMessage") }
            return []
        }
        let welcome = try MLSInput.welcome(bytes, limits: DecodingLimits(maxVectorElements: ownerByRef.count))
        guard welcome.cipherSuite == suite else { throw XRPCError(400, .invalidWelcome, "the Welcome is for another cipher suite") }
        var recipients: [WelcomeRecipient] = []
        var covered: Set<[UInt8]> = []
        for secrets in welcome.secrets {
            guard let did = ownerByRef[secrets.newMember] else {
                throw XRPCError(400, .invalidWelcome, "the Welcome addresses a KeyPackage the commit does not add")
            }
            guard covered.insert(secrets.newMember).inserted else {
                throw XRPCError(400, .invalidWelcome, "the Welcome addresses a KeyPackage twice")
            }
            recipients.append(WelcomeRecipient(did: did, keyPackageRef: secrets.newMember))
        }
        guard covered.count == ownerByRef.count else {
            throw XRPCError(400, .invalidWelcome, "the Welcome does not address every added member")
        }
        return recipients.isEmpty ? [] : [WelcomeDelivery(welcome: bytes, recipients: recipients)]
    }

    /// The store's view of the validated commit.
    func application(_ validated: Validated, request: Request,
                     departures: [UInt32: DepartureReason] = [:]) -> CommitApplication {
        CommitApplication(
            convoID: request.convoID, commitEpoch: validated.commitEpoch, newPublicState: validated.next.serialize(),
            newGroupInfo: request.groupInfo, commit: request.commit, senderDID: request.caller,
            members: validated.members, departures: departures, consumedKeyPackages: validated.consumedKeyPackages,
            welcomes: validated.welcomes, coveredProposalRefs: validated.coveredProposalRefs, freezes: validated.freezes)
    }
}

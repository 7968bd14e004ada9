import ChatProtocol
import DeliveryStore
import Foundation
import MLS
import Primitives

/// A commit of a transition (`#publicCommit` in commitTransition, leafRecoveryFulfillment,
/// leaveCommitFulfillment),
/// validated as every commit the service stores is (`PublicGroup.validateAndApply`, MLS.md item
/// 3), plus what the contract binds it to: a PublicMessage made at the conversation's group and
/// epoch by the signing device's own leaf, with only by-value Add and Remove proposals (no
/// standalone proposals, no external commit, no Remove of the committer's own leaf), whose authenticated_data is the body's `#commitAad`
/// for these coordinates; the committer keeps its DID, device and key; and `next` names the
/// resulting epoch, the SHA-256 of its GroupContext and the commit's confirmation tag.
struct ChatCommit {
    let next: PublicGroup
    let summary: CommitSummary

    init(_ body: ChatValue, conversation: ChatConversation, actorLeaf: ChatLeaf, device: ChatDevice,
         env: ChatEnvironment, now: Date, trustedKeyPackageRefs: Set<[UInt8]> = []) throws {
        func refuse(_ reason: String) -> ChatRefusal { ChatRefusal(.invalidCommit, reason) }
        let prior = conversation.coordinates
        guard let artifact = body["commit"], let bytes = artifact["bytes"]?.bytes, let sha256 = artifact["sha256"]?.bytes,
              let transitionID = body["transitionId"]?.uuid, let aad = body["aad"],
              let next = ConversationCoordinates(body["next"]) else { throw refuse("incomplete transition") }
        guard HashAlgorithm.sha256.hash(bytes) == sha256 else { throw ChatRefusal(.invalidMlsArtifact, "sha256 is not the hash of the commit") }
        let message: PublicMessage
        do {
            message = try MLSInput.publicMessage(bytes, limits: env.limits.decodingLimits, error: .invalidCommit, what: "commit")
        } catch {
            throw refuse(error.message)
        }
        guard case .commit(let commit) = message.content.content else { throw refuse("the artifact must carry a Commit") }
        switch message.content.sender {
        case .member(let leafIndex):
            guard leafIndex == actorLeaf.leafIndex else { throw ChatRefusal(.deviceNotLeaf, "the commit is signed by another leaf than the device's") }
        case .newMemberCommit:
            throw ChatRefusal(.externalCommitForbidden, "external commits are not part of the contract")
        default:
            throw refuse("the commit's sender must be a member")
        }
        guard message.content.groupID == prior.groupID, message.content.epoch == prior.epoch else {
            throw refuse("the commit is for another group or epoch than prior")
        }
        for proposal in commit.proposals {
            guard case .proposal(let inline) = proposal else {
                throw ChatRefusal(.standaloneProposalForbidden, "proposals by reference are not part of the contract")
            }
            switch inline {
            case .remove(let removed) where removed == actorLeaf.leafIndex:
                throw ChatRefusal(.committerSelfRemovalForbidden, "a committer does not remove its own leaf: it asks to leave")
            case .add, .remove: continue
            default: throw ChatRefusal(.unsupportedMlsProfile, "a commit may only add and remove")
            }
        }
        // The AAD must be the one for these coordinates and this transition, and the one the body signed.
        guard aad == MLSAuthenticatedData.commitAAD(transitionID: transitionID, prior: prior),
              message.content.authenticatedData == MLSAuthenticatedData.bytes(domain: MLSAuthenticatedData.commitDomain, aad: aad)
        else { throw refuse("authenticated_data is not the commit AAD of these coordinates") }

        let current: PublicGroup
        do { current = try PublicGroup(serialized: conversation.publicState, limits: env.limits.treeLimits) } catch {
            throw ChatRefusal(.invalidCommit, "the conversation's state could not be restored")
        }
        let applied: PublicGroup
        do {
            applied = try current.validateAndApply(commit: message, now: UInt64(now.timeIntervalSince1970),
                                                   trustedKeyPackageRefs: trustedKeyPackageRefs)
        } catch {
            throw refuse(mlsFailureDescription(error))
        }
        guard let summary = applied.lastCommit else { throw XRPCError.internalError }
        do { try CommitIntegrity.checkCredentialContinuity(from: current, to: applied, summary: summary) } catch {
            throw refuse(error.message)
        }
        guard let committer = applied.tree.leafNode(at: summary.committerLeaf), committer.signatureKey == device.publicKey,
              case .basic(let identity) = committer.credential, identity == Array("\(device.userDID)#\(device.deviceID)".utf8)
        else { throw refuse("the committer's leaf must keep the device's credential and key") }

        let expected = ConversationCoordinates(
            conversationID: prior.conversationID, generation: prior.generation, stateVersion: prior.stateVersion + 1,
            groupID: prior.groupID, epoch: applied.epoch, groupContextHash: HashAlgorithm.sha256.hash(applied.groupContext.encoded()),
            confirmationTag: message.auth.confirmationTag ?? [], lifecycle: .active)
        guard next == expected else {
            throw refuse("next must be prior with stateVersion and epoch one higher, the new GroupContext's hash and the commit's confirmation tag")
        }
        self.next = applied
        self.summary = summary
    }
}

import ChatProtocol
import Foundation
import MLS
import Primitives

/// The epoch-0 GroupInfo a conversation starts from (defs `creationBody`, `groupInfoArtifact`):
/// an MLSMessage GroupInfo with exactly the ratchet_tree and external_pub extensions, at epoch 0
/// with an empty confirmed transcript hash, a 32-byte group id, a suite chat conversations may
/// use, a tree `PublicGroup` validates (signature, tree hash) holding the creator's one leaf:
/// `actorDid#deviceId`, signing with the device's key. Its GroupContext hash and confirmation tag
/// are what the signed coordinates must carry; the tag's MAC is for members to check.
struct GenesisGroupInfo {
    let group: PublicGroup
    let groupContextHash: [UInt8]
    let confirmationTag: [UInt8]
    let leafIndex: UInt32

    init(_ artifact: ChatValue, did: String, device: ChatUUID, publicKey: [UInt8], env: ChatEnvironment) throws {
        func refuse(_ reason: String) -> ChatRefusal { ChatRefusal(.invalidGenesisGroupInfo, reason) }
        guard let bytes = artifact["bytes"]?.bytes, let sha256 = artifact["sha256"]?.bytes else { throw refuse("incomplete artifact") }
        guard HashAlgorithm.sha256.hash(bytes) == sha256 else { throw ChatRefusal(.invalidMlsArtifact, "sha256 is not the hash of the GroupInfo") }
        let groupInfo: GroupInfo
        do {
            groupInfo = try MLSInput.groupInfo(bytes, limits: env.limits.decodingLimits)
        } catch {
            throw refuse(error.message)
        }
        let context = groupInfo.groupContext
        guard env.cipherSuites.contains(context.cipherSuite) else { throw ChatRefusal(.unsupportedMlsProfile, "cipher suite \(context.cipherSuite) is not served for chat") }
        guard context.epoch == 0, context.confirmedTranscriptHash.isEmpty else { throw refuse("a genesis GroupInfo is at epoch 0 with no transcript") }
        guard context.groupID.count == 32 else { throw refuse("the group id must be 32 bytes") }
        guard groupInfo.extensions.map(\.extensionType) == [.ratchetTree, .externalPub] else {
            throw ChatRefusal(.unsupportedMlsProfile, "GroupInfo extensions must be exactly ratchet_tree, external_pub")
        }
        guard groupInfo.confirmationTag.count == 32 else { throw refuse("the confirmation tag must be 32 bytes") }
        do {
            group = try PublicGroup(groupInfo: groupInfo, limits: env.limits.treeLimits)
        } catch {
            throw refuse(mlsFailureDescription(error))
        }
        let members = group.members
        guard members.count == 1, let leaf = members.first, leaf.leafIndex == groupInfo.signer else {
            throw refuse("a genesis group holds the creator's leaf only")
        }
        guard case .basic(let identity) = leaf.credential, identity == Array("\(did)#\(device)".utf8) else {
            throw refuse("the creator's leaf must be \(did)#\(device)")
        }
        guard leaf.signatureKey == publicKey else { throw refuse("the creator's leaf must sign with the device's key") }
        leafIndex = leaf.leafIndex
        groupContextHash = HashAlgorithm.sha256.hash(context.encoded())
        confirmationTag = groupInfo.confirmationTag
    }
}

import Basics
import DeliveryStore
import Lexicon
import MLS

/// `blue.catbird.mls.createConvo`: a conversation from a GroupInfo the service validates in full
/// (signature, tree, tree hash: MLS.md item 2), created by the caller's leaf, with the initial
/// members' KeyPackages consumed and their Welcome stored, in one transaction.
enum CreateConvo {
    typealias KeyPackageHash = Lexicon.KeyPackageHash
    typealias Input = CreateConvoInput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.createConvo", .procedure, maxBodySize: 8 << 20) { context in
            let caller = context.caller
            let input = try context.input(Input.self)
            let convoID = try InputValidation.convoID(input.groupId)
            let suite = try CipherSuiteName.id(input.cipherSuite)
            if let name = input.metadata?.name, name.count > 128 { throw XRPCError.invalidRequest("metadata.name is longer than 128") }
            if let text = input.metadata?.description, text.count > 512 {
                throw XRPCError.invalidRequest("metadata.description is longer than 512")
            }

            let groupInfo = try MLSInput.groupInfo(input.groupInfo.bytes)
            var tree: RatchetTree?
            if let bytes = input.ratchetTree?.bytes {
                do { tree = try RatchetTree(decoding: bytes) } catch {
                    throw XRPCError(400, .invalidGroupInfo, "ratchetTree is not a valid ratchet tree")
                }
            }
            let group: PublicGroup
            do { group = try PublicGroup(groupInfo: groupInfo, ratchetTree: tree) } catch {
                throw XRPCError(400, .invalidGroupInfo, mlsFailureDescription(error))
            }
            guard Hex.encode(group.groupID) == convoID else {
                throw XRPCError(400, .invalidGroupInfo, "groupId differs from the GroupInfo's group id")
            }
            guard group.cipherSuite.rawValue == suite else {
                throw XRPCError(400, .invalidCipherSuite, "cipherSuite differs from the group's")
            }
            guard let signer = group.tree.leafNode(at: groupInfo.signer),
                  MemberIdentity.did(of: signer.credential) == caller.rawValue else {
                throw XRPCError(400, .invalidGroupInfo, "the GroupInfo must be signed by the caller's leaf")
            }
            let members = try MemberIdentity.memberLeaves(group.members, error: .invalidGroupInfo)
            guard members.count <= env.limits.maxMembers else {
                throw XRPCError(400, .tooManyMembers, "a conversation has at most \(env.limits.maxMembers) members")
            }

            let consumed = try initialKeyPackages(input, group: group)
            var ownerByRef: [[UInt8]: String] = [:]
            for use in consumed { ownerByRef[use.ref] = use.ownerDID }
            let welcomes = try CommitPipeline(env: env).welcomeDeliveries(
                input.welcomeMessage?.bytes, ownerByRef: ownerByRef, suite: suite)

            let creation = ConvoCreation(
                groupID: group.groupID, cipherSuite: suite, epoch: Int64(clamping: group.epoch),
                publicState: group.serialize(), groupInfo: input.groupInfo.bytes, creatorDID: caller,
                name: input.metadata?.name, description: input.metadata?.description, members: members,
                consumedKeyPackages: consumed, welcomes: welcomes, initialCommit: input.commit?.bytes)
            return try env.idempotent(context, key: input.idempotencyKey) { tx in
                let summary = try tx.createConvo(creation)
                return ConvoView(summary.convo, members: summary.members)
            }
        }
    }

    /// The KeyPackages the initial members joined with: the Adds of the initial commit when it is
    /// given (made in the epoch before the GroupInfo's), else `keyPackageHashes`.
    static func initialKeyPackages(_ input: Input, group: PublicGroup) throws(XRPCError) -> [KeyPackageUse] {
        var uses: [KeyPackageUse] = []
        if let commitBytes = input.commit?.bytes {
            let message = try MLSInput.publicMessage(commitBytes, error: .invalidCommit, what: "commit")
            guard case .commit(let commit) = message.content.content,
                  message.content.groupID == group.groupID, message.content.epoch &+ 1 == group.epoch else {
                throw XRPCError(400, .invalidCommit, "commit must be the group's commit of the epoch before the GroupInfo")
            }
            let leafKeys = Set(group.members.map(\.signatureKey))
            for item in commit.proposals {
                guard case .proposal(.add(let keyPackage)) = item else { continue }
                guard let did = MemberIdentity.did(of: keyPackage.leafNode.credential),
                      leafKeys.contains(keyPackage.leafNode.signatureKey) else {
                    throw XRPCError(400, .invalidCommit, "an added KeyPackage is not a member of the group")
                }
                uses.append(KeyPackageUse(ref: keyPackage.reference(suite: group.cipherSuite), ownerDID: did))
            }
        } else {
            for entry in input.keyPackageHashes ?? [] {
                guard let ref = Hex.decode(entry.hash), !ref.isEmpty else {
                    throw XRPCError.invalidRequest("keyPackageHashes: hash must be hex")
                }
                uses.append(KeyPackageUse(ref: ref, ownerDID: try InputValidation.did(entry.did).rawValue))
            }
        }
        return uses
    }
}

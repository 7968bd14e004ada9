import Basics
import DeliveryStore
import Lexicon
import MLS

/// `blue.catbird.mls.createConvo`: a conversation from a GroupInfo the service validates in full
/// (signature, tree, tree hash: MLS.md item 2), created by the caller's leaf, whose other leaves
/// are each the leaf of a KeyPackage its DID published (`InitialMembers`), with those KeyPackages
/// consumed and their Welcome stored, in one transaction.
enum CreateConvo {
    typealias KeyPackageHash = Lexicon.KeyPackageHash
    typealias Input = CreateConvoInput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        // As addMembers: with suite 0x004D (2.7 KB KeyPackages, 1120-byte kem_outputs) a group created
        // with 1000 members carries about 9 MB of commit, Welcome and GroupInfo as JSON.
        XRPCMethod("blue.catbird.mls.createConvo", .procedure, maxBodySize: 16 << 20) { context in
            let input = try context.input(Input.self)
            let creation = try creation(input, caller: context.caller, env: env)
            return try env.idempotent(context, key: input.idempotencyKey) { tx in
                let summary = try tx.createConvo(creation)
                return ConvoView(summary.convo, members: summary.members)
            }
        }
    }

    /// Every check of createConvo (also for groups created over MQTT): the conversation to store.
    static func creation(_ input: Input, caller: DID, env: MethodEnvironment) throws -> ConvoCreation {
        // A cheap refusal before any MLS work; the transaction checks again under the creator's
        // lock. With an idempotency key only the transaction decides, so that a retry of a
        // stored success is answered as stored.
        if input.idempotencyKey == nil, try env.store.ownedConvoCount(caller) >= env.limits.maxConvosPerUser {
            throw DeliveryStoreError.tooManyConvos(limit: env.limits.maxConvosPerUser)
        }
        let convoID = try InputValidation.convoID(input.groupId)
        let suite = try CipherSuiteName.id(input.cipherSuite)
        let handshake = try InputValidation.handshake(input.handshake)
        if let name = input.metadata?.name, name.count > 128 { throw XRPCError.invalidRequest("metadata.name is longer than 128") }
        if let text = input.metadata?.description, text.count > 512 {
            throw XRPCError.invalidRequest("metadata.description is longer than 512")
        }

        let limits = env.limits
        let groupInfo = try MLSInput.groupInfo(input.groupInfo.bytes, limits: limits.decodingLimits)
        // Unknown KeyPackages are refused before any signature is checked; the tree's width and
        // member count before it is built (`importGroup`).
        guard let cipherSuite = CipherSuite(rawValue: suite) else { throw XRPCError(400, .invalidCipherSuite, "unsupported cipher suite") }
        try InitialMembers.checkPublished(hashes: input.keyPackageHashes, commit: input.commit?.bytes, suite: cipherSuite,
                                          limits: limits, store: env.store)
        let group = try importGroup(groupInfo, ratchetTree: input.ratchetTree?.bytes, limits: limits)
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

        let consumed = try InitialMembers.keyPackages(
            of: group, creatorLeaf: groupInfo.signer, hashes: input.keyPackageHashes, commit: input.commit?.bytes,
            handshake: handshake, limits: limits.decodingLimits, store: env.store)
        var ownerByRef: [[UInt8]: String] = [:]
        for use in consumed { ownerByRef[use.ref] = use.ownerDID }
        let welcomes = try CommitPipeline(env: env).welcomeDeliveries(
            input.welcomeMessage?.bytes, ownerByRef: ownerByRef, suite: suite)

        return ConvoCreation(
            groupID: group.groupID, cipherSuite: suite, epoch: Int64(clamping: group.epoch),
            publicState: group.serialize(), groupInfo: input.groupInfo.bytes, creatorDID: caller,
            name: input.metadata?.name, description: input.metadata?.description, members: members,
            consumedKeyPackages: consumed, welcomes: welcomes, initialCommit: input.commit?.bytes, handshake: handshake)
    }

    /// The group of a GroupInfo and its tree (given separately or in the GroupInfo), validated in
    /// full; a tree beyond the service's `TreeLimits` is refused from its wire form, before it is built.
    static func importGroup(_ groupInfo: GroupInfo, ratchetTree bytes: [UInt8]?, limits: ServiceLimits) throws(XRPCError) -> PublicGroup {
        var tree: RatchetTree?
        if let bytes {
            do { tree = try RatchetTree(decoding: bytes, limits: limits.treeLimits) } catch .tooManyElements {
                throw XRPCError(400, .invalidGroupInfo, limits.treeBoundDescription)
            } catch {
                throw XRPCError(400, .invalidGroupInfo, "ratchetTree is not a valid ratchet tree")
            }
        }
        do {
            return try PublicGroup(groupInfo: groupInfo, ratchetTree: tree, limits: limits.treeLimits)
        } catch .tree(.tooManyMembers) {
            throw XRPCError(400, .tooManyMembers, "a conversation has at most \(limits.maxMembers) members")
        } catch .decoding(.tooManyElements), .tree(.treeTooWide) {
            throw XRPCError(400, .invalidGroupInfo, limits.treeBoundDescription)
        } catch {
            throw XRPCError(400, .invalidGroupInfo, mlsFailureDescription(error))
        }
    }
}

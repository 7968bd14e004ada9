import Primitives

/// Joining by external commit (RFC 9420 §12.4.3.2), for instance to rejoin after losing state.
extension Group {
    /// Joins the group a GroupInfo describes: checks it as `PublicGroup` does, derives init_secret
    /// from its external_pub (ExternalInit), optionally removes `removing` (this client's old leaf),
    /// takes the leftmost free leaf with a fresh path, and signs as new_member_commit. Returns the
    /// new member and the commit for the group; `psks` are external PSK ids to inject.
    public static func joinByExternalCommit(
        groupInfo: GroupInfo, ratchetTree: RatchetTree? = nil, credential: Credential, signingKey: SignaturePrivateKey,
        removing: UInt32? = nil, capabilities: Capabilities? = nil, externalPSKs: [[UInt8]: [UInt8]] = [:],
        psks: [PreSharedKeyID] = [], authenticatedData: [UInt8] = [], configuration: GroupConfiguration = .default
    ) throws(GroupError) -> (group: Group, commit: MLSMessage) {
        let output = try externalCommit(
            groupInfo: groupInfo, ratchetTree: ratchetTree, credential: credential, signingKey: signingKey,
            removing: removing, capabilities: capabilities, externalPSKs: externalPSKs, psks: psks,
            authenticatedData: authenticatedData, configuration: configuration)
        return (output.group, output.commit)
    }

    /// `joinByExternalCommit` with the output `ExternalCommitOutput.resealed` needs.
    public static func externalCommit(
        groupInfo: GroupInfo, ratchetTree: RatchetTree? = nil, credential: Credential, signingKey: SignaturePrivateKey,
        removing: UInt32? = nil, capabilities: Capabilities? = nil, externalPSKs: [[UInt8]: [UInt8]] = [:],
        psks: [PreSharedKeyID] = [], authenticatedData: [UInt8] = [], configuration: GroupConfiguration = .default
    ) throws(GroupError) -> ExternalCommitOutput {
        let observer = try PublicGroup(groupInfo: groupInfo, ratchetTree: ratchetTree)
        let state = observer.state
        let suite = state.suite
        guard signingKey.scheme == suite.signatureScheme else { throw .cipherSuiteMismatch }
        guard let ext = groupInfo.extensions.first(ofType: .externalPub) else { throw .invalidGroupInfo("no external_pub") }
        let externalPub: [UInt8]
        do { externalPub = try ext.decodeExternalPub() } catch { throw .decoding(error) }
        let kemOutput: [UInt8], initSecret: [UInt8]
        do { (kemOutput, initSecret) = try KeySchedule.externalInit(suite: suite, externalPublicKey: externalPub) } catch {
            throw .crypto(error)
        }
        var inline: [Proposal] = [.externalInit(kemOutput: kemOutput)]
        if let removing { inline.append(.remove(removed: removing)) }
        inline += psks.map { .preSharedKey($0) }
        let list = inline.map { ProposalOrRef.proposal($0) }
        let resolved = try state.resolve(list, committer: .newMemberCommit)
        try state.validateList(resolved, committer: .newMemberCommit, inlineOnly: true)
        let applied = try state.apply(resolved, now: nil)

        var tree = applied.tree
        var placeholder = LeafNode(
            encryptionKey: [], signatureKey: signingKey.publicKey.bytes, credential: credential,
            capabilities: capabilities ?? defaultCapabilities(suite: suite), leafNodeSource: .update)
        placeholder.signature = []
        let leaf = tree.add(placeholder)
        var provisional = GroupContext(
            version: state.context.version, cipherSuite: state.context.cipherSuite, groupID: state.context.groupID,
            epoch: state.context.epoch + 1, treeHash: [], confirmedTranscriptHash: state.context.confirmedTranscriptHash,
            extensions: applied.extensions)
        let path: CommitterPath
        let updatePath: UpdatePath
        do {
            path = try tree.generateUpdatePath(sender: leaf, leafNode: placeholder, signatureKey: signingKey,
                                               groupID: state.context.groupID)
            provisional.treeHash = tree.treeHash
            updatePath = try tree.encryptUpdatePath(path, groupContext: provisional.encoded())
        } catch {
            throw .tree(error)
        }
        let content = FramedContent(
            groupID: state.context.groupID, epoch: state.context.epoch, sender: .newMemberCommit,
            authenticatedData: authenticatedData, content: .commit(Commit(proposals: list, path: updatePath)))

        // A throwaway member in the old epoch signs and schedules; it has no old-epoch secrets to use.
        let scratchSecrets: EpochSecrets
        do {
            scratchSecrets = try EpochSecrets(suite: suite, joinerSecret: initSecret, pskSecret: nil,
                                              groupContext: state.context.encoded())
        } catch {
            throw .crypto(error)
        }
        var joiner = try Group(
            state: state, ownLeaf: leaf, configuration: configuration, epochSecrets: scratchSecrets, pskSecret: nil,
            privateTree: path.privateState, signingKey: signingKey, externalPSKs: externalPSKs, resumptionPSKs: [])
        let scratch = joiner
        let finished = try joiner.finishCommit(
            content: content, provisional: provisional, tree: tree, initSecret: initSecret,
            commitSecret: path.commitSecret, psks: applied.psks, membershipKey: nil)
        joiner.resumptionPSKs = []
        try joiner.enter(finished.state, secrets: finished.secrets, pskSecret: finished.pskSecret, privateTree: path.privateState)
        return ExternalCommitOutput(
            group: joiner, commit: finished.message,
            sealing: CommitSealing(committer: scratch, initSecret: initSecret, commitSecret: path.commitSecret,
                                   confirmationTag: finished.confirmationTag,
                                   recipients: CommitSealing.recipients(of: updatePath, path: path, tree: tree, excluding: []),
                                   isExternal: true))
    }
}

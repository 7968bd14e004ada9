import Primitives

/// Processing messages from other members (RFC 9420 §6, §12.4.2).
extension Group {
    /// Verifies and applies a PublicMessage or PrivateMessage: application data is returned,
    /// proposals are cached, commits move the group to the next epoch. On error `self` is unchanged.
    /// `now` (seconds since 1970) checks the lifetimes of KeyPackages a commit adds; nil skips it.
    public mutating func process(_ message: MLSMessage, now: UInt64? = nil) throws(GroupError) -> ProcessedMessage {
        guard message.version == .mls10 else { throw .unexpectedMessage("protocol version") }
        switch message.body {
        case .publicMessage(let publicMessage): return try process(publicMessage, now: now)
        case .privateMessage(let privateMessage): return try process(privateMessage, now: now)
        default: throw .unexpectedMessage("wire format \(message.wireFormat.rawValue)")
        }
    }

    public mutating func process(_ message: PublicMessage, now: UInt64? = nil) throws(GroupError) -> ProcessedMessage {
        try checkActive()
        try checkIncomingWireFormat(.publicMessage, contentType: message.content.contentType,
                                    fromMember: message.content.sender.senderType == .member)
        try state.checkHeader(groupID: message.content.groupID, epoch: message.content.epoch)
        if case .member = message.content.sender {
            do {
                try message.verifyMembershipTag(membershipKey: epochSecrets.membershipKey, context: state.context, suite: state.suite)
            } catch {
                throw GroupState.map(error)
            }
        }
        return try handle(try state.verifySignature(of: message), now: now)
    }

    public mutating func process(_ message: PrivateMessage, now: UInt64? = nil) throws(GroupError) -> ProcessedMessage {
        try checkActive()
        // Only members hold the secret tree a PrivateMessage is sealed under (RFC 9420 §6.3).
        try checkIncomingWireFormat(.privateMessage, contentType: message.contentType, fromMember: true)
        try state.checkHeader(groupID: message.groupID, epoch: message.epoch)
        let tree = state.tree
        var secrets = secretTree
        let authenticated: AuthenticatedContent
        do {
            authenticated = try message.unprotect(
                context: state.context, secretTree: &secrets, senderDataSecret: epochSecrets.senderDataSecret,
                suite: state.suite, signaturePublicKey: { tree.leafNode(at: $0)?.signatureKey })
        } catch {
            throw GroupState.map(error)
        }
        var trial = self
        trial.secretTree = secrets
        let result = try trial.handle(authenticated, now: now)
        if case .commit = result {} else if case .member(let leaf) = authenticated.content.sender {
            trial.noteGeneration(leaf: leaf, handshake: message.contentType != .application)
        }
        self = trial
        return result
    }

    mutating func handle(_ authenticated: AuthenticatedContent, now: UInt64?) throws(GroupError) -> ProcessedMessage {
        switch authenticated.content.content {
        case .application(let data):
            guard case .member(let leaf) = authenticated.content.sender else { throw .senderNotAllowed(authenticated.content.sender, nil) }
            return .application(data: data, sender: leaf, authenticatedData: authenticated.content.authenticatedData)
        case .proposal:
            return .proposal(try state.cacheProposal(authenticated))
        case .commit:
            if case .member(let leaf) = authenticated.content.sender, leaf == ownLeaf { throw .ownCommit }
            let staged = try state.stage(commit: authenticated, now: now)
            try merge(staged)
            return .commit(CommitSummary(staged))
        }
    }

    /// Takes on a staged commit from another member: decrypts the path secret, runs the key schedule
    /// (external init, PSKs), checks the confirmation tag and enters the new epoch.
    mutating func merge(_ staged: StagedCommit) throws(GroupError) {
        if staged.applied.removed.contains(where: { $0.leafIndex == ownLeaf }) {
            state = staged.nextState
            isActive = false
            return
        }
        var privateTree = self.privateTree
        privateTree.prune(to: staged.tree)
        var commitSecret: [UInt8]? = nil
        if let path = staged.commit.path {
            let excluded = Set(staged.applied.added.map(\.leafIndex))
            do {
                commitSecret = try privateTree.decrypt(
                    path, sender: staged.committerLeaf, tree: staged.tree,
                    groupContext: staged.provisionalContext.encoded(), excluding: excluded).commitSecret
            } catch {
                throw .tree(error)
            }
        }
        let initSecret: [UInt8]
        if let kemOutput = staged.applied.externalInit {
            do {
                initSecret = try KeySchedule.externalInitSecret(
                    suite: state.suite, kemOutput: kemOutput, externalPrivateKey: try epochSecrets.externalKeyPair().privateKey)
            } catch {
                throw .crypto(error)
            }
        } else {
            initSecret = epochSecrets.initSecret
        }
        let pskSecret = try pskSecret(for: staged.applied.psks)
        let secrets: EpochSecrets
        do {
            secrets = try EpochSecrets(suite: state.suite, initSecret: initSecret, commitSecret: commitSecret,
                                       pskSecret: pskSecret, groupContext: staged.context.encoded())
        } catch {
            throw .crypto(error)
        }
        do {
            try ConfirmationTag.verify(
                staged.content.auth.confirmationTag ?? [], suite: state.suite, confirmationKey: secrets.confirmationKey,
                confirmedTranscriptHash: staged.context.confirmedTranscriptHash)
        } catch {
            throw .invalidConfirmationTag
        }
        try enter(staged.nextState, secrets: secrets, pskSecret: pskSecret, privateTree: privateTree)
    }

    /// Moves to a new epoch's state and secrets.
    mutating func enter(_ next: GroupState, secrets: EpochSecrets, pskSecret: [UInt8]?, privateTree: TreePrivateState) throws(GroupError) {
        let newSecretTree: SecretTree
        do {
            newSecretTree = try secrets.secretTree(leafCount: next.tree.leafCount, window: configuration.ratchetWindow)
        } catch {
            throw .schedule(error)
        }
        state = next
        epochSecrets = secrets
        self.pskSecret = pskSecret
        self.privateTree = privateTree
        secretTree = newSecretTree
        ratchetWatermarks = [:]
        rememberResumptionPSK()
    }

    /// Records where a ratchet stands after a message, for persistence.
    mutating func noteGeneration(leaf: UInt32, handshake: Bool) {
        let type: RatchetType = handshake ? .handshake : .application
        if let generation = try? secretTree.currentGeneration(leaf: leaf, type: type) {
            ratchetWatermarks[RatchetMark(leaf: leaf, handshake: handshake)] = generation
        }
    }
}

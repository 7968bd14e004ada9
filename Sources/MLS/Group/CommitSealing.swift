import Primitives

/// What a committer knows when it frames its commit (RFC 9420 §12.4.1 steps 9–14): its member
/// state in the commit's epoch (signature key, membership key, PSKs), the init secret and the
/// commit secret of its path. Kept inside a CommitOutput so that `resealed` can answer "what would
/// the committer have sent had it changed this field": the differential test of the validators
/// (Tests/MLSMutation) alters commits field by field and needs every signature and MAC the
/// committer could make to stay valid, so that the change itself is what gets judged.
struct CommitSealing: Sendable {
    /// The path secret one HPKE ciphertext of the path carries, and the key it was sealed to.
    struct Recipient: Sendable {
        let ciphertext: [UInt8]
        let pathSecret: [UInt8]
        let publicKey: [UInt8]
    }

    /// The committer in the commit's epoch; for an external commit, the joiner's throwaway member.
    let committer: Group
    let initSecret: [UInt8]
    /// Nil when the commit had no path.
    let commitSecret: [UInt8]?
    /// The confirmation tag of the commit as made.
    let confirmationTag: [UInt8]
    /// Each ciphertext of the path as made, by its kem_output.
    let recipients: [[UInt8]: Recipient]
    var isExternal = false

    /// Who each ciphertext of `update` was sealed to: the copath resolutions of `tree` (the tree
    /// after the path, whose copath nodes are those the committer encrypted to), in order.
    static func recipients(of update: UpdatePath?, path: CommitterPath?, tree: PublicRatchetTree,
                           excluding: Set<UInt32>) -> [[UInt8]: Recipient] {
        guard let update, let path else { return [:] }
        var result: [[UInt8]: Recipient] = [:]
        for (node, entry) in zip(update.nodes, path.path) {
            let keys = tree.copathResolution(entry.copathChild, excluding: excluding).compactMap { tree.encryptionKey(at: $0) }
            for (ciphertext, key) in zip(node.encryptedPathSecret, keys) {
                result[ciphertext.kemOutput] = Recipient(ciphertext: ciphertext.ciphertext, pathSecret: entry.pathSecret, publicKey: key)
            }
        }
        return result
    }

    /// `content` framed as the committer would: every ciphertext it made (wherever the change
    /// moved it) sealed again to the same key under the changed commit's provisional GroupContext,
    /// then signed over the epoch's GroupContext, with the confirmation tag its key schedule gives,
    /// and the membership tag when the sender is a member. Where the committer could not compute a
    /// value (the changed commit does not stage, names a PSK it lacks, or the joiner has no
    /// membership key), the original one is kept.
    func reseal(_ content: FramedContent) -> PublicMessage {
        let state = committer.state
        let suite = state.suite
        var content = content
        if case .commit(var commit) = content.content, let path = commit.path,
           let staged = try? state.stage(commit: AuthenticatedContent(
               wireFormat: .publicMessage, content: content,
               auth: FramedContentAuthData(signature: [], confirmationTag: confirmationTag))) {
            commit.path = resealed(path, context: staged.provisionalContext.encoded())
            content.content = .commit(commit)
        }
        guard var authenticated = try? AuthenticatedContent.signed(
            wireFormat: .publicMessage, content: content, signingKey: committer.signingKey, context: state.context, suite: suite)
        else { return PublicMessage(content: content, auth: FramedContentAuthData(signature: [], confirmationTag: confirmationTag)) }
        if content.contentType == .commit {
            authenticated.auth.confirmationTag = confirmationTag
            if let staged = try? state.stage(commit: authenticated), let tag = tag(for: staged) {
                authenticated.auth.confirmationTag = tag
            }
        }
        var membershipTag: [UInt8]?
        if case .member = content.sender {
            let tbm = AuthenticatedContentTBM(contentTBS: authenticated.tbs(context: state.context), auth: authenticated.auth)
            membershipTag = try? MembershipTag.compute(suite: suite, membershipKey: committer.epochSecrets.membershipKey, tbm: tbm)
        }
        return PublicMessage(content: authenticated.content, auth: authenticated.auth, membershipTag: membershipTag ?? [])
    }

    /// The path with each ciphertext the committer made sealed again under `context`; ciphertexts
    /// it did not make (altered bytes) stay as they are.
    private func resealed(_ path: UpdatePath, context: [UInt8]) -> UpdatePath {
        var path = path
        let suite = committer.state.suite
        for i in path.nodes.indices {
            for j in path.nodes[i].encryptedPathSecret.indices {
                let ciphertext = path.nodes[i].encryptedPathSecret[j]
                guard let recipient = recipients[ciphertext.kemOutput], recipient.ciphertext == ciphertext.ciphertext,
                      let sealed = try? suite.encryptWithLabel(publicKey: recipient.publicKey, label: "UpdatePathNode",
                                                               context: context, plaintext: recipient.pathSecret)
                else { continue }
                path.nodes[i].encryptedPathSecret[j] = HPKECiphertext(kemOutput: sealed.kemOutput, ciphertext: sealed.ciphertext)
            }
        }
        return path
    }

    /// The confirmation tag of a staged commit under the committer's secrets: the same init secret
    /// (an ExternalInit's only if it is the joiner's own), the path's commit secret if the commit
    /// still has a path, the PSKs it names.
    private func tag(for staged: StagedCommit) -> [UInt8]? {
        let suite = committer.state.suite
        if staged.applied.externalInit != nil, !isExternal { return nil }
        let pskSecret: [UInt8]?
        do { pskSecret = try committer.pskSecret(for: staged.applied.psks) } catch { return nil }
        let commitSecret = staged.commit.path == nil ? nil : self.commitSecret
        guard let secrets = try? EpochSecrets(suite: suite, initSecret: initSecret, commitSecret: commitSecret,
                                              pskSecret: pskSecret, groupContext: staged.context.encoded()) else { return nil }
        return try? suite.mac(key: secrets.confirmationKey, data: staged.context.confirmedTranscriptHash)
    }
}

extension CommitOutput {
    /// The commit with `content` in place of its own, framed as the committer would have framed it
    /// (see `CommitSealing`). For testing validators; a client never needs it.
    public func resealed(_ content: FramedContent) -> MLSMessage {
        MLSMessage(body: .publicMessage(sealing.reseal(content)))
    }
}

extension ExternalCommitOutput {
    /// As `CommitOutput.resealed`, for the joiner of an external commit.
    public func resealed(_ content: FramedContent) -> MLSMessage {
        MLSMessage(body: .publicMessage(sealing.reseal(content)))
    }
}

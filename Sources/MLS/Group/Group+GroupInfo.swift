import Primitives

/// GroupInfo and Welcome for the current epoch (RFC 9420 §12.4.3).
extension Group {
    /// The signed GroupInfo of this epoch with the ratchet_tree and external_pub extensions.
    /// `confirmationTag` is this epoch's, from the commit that created it.
    func groupInfo(confirmationTag: [UInt8], includeTree: Bool = true) throws(GroupError) -> GroupInfo {
        var extensions: [Extension] = []
        if includeTree { extensions.append(.ratchetTree(state.tree.ratchetTree)) }
        do {
            extensions.append(.externalPub(try epochSecrets.externalKeyPair().publicKey))
        } catch {
            throw .crypto(error)
        }
        var info = GroupInfo(groupContext: state.context, extensions: extensions, confirmationTag: confirmationTag, signer: ownLeaf)
        do { try info.sign(with: signingKey, suite: state.suite) } catch { throw .welcome(error) }
        return info
    }

    /// A GroupInfo for this epoch, for an external joiner or the service (RFC 9420 §12.4.3.2).
    public func makeGroupInfo(includeTree: Bool = true) throws(GroupError) -> GroupInfo {
        let tag: [UInt8]
        do { tag = try state.suite.mac(key: epochSecrets.confirmationKey, data: state.context.confirmedTranscriptHash) } catch {
            throw .crypto(error)
        }
        return try groupInfo(confirmationTag: tag, includeTree: includeTree)
    }

    /// A Welcome for `added`, each with joiner_secret, the path secret of the lowest path node above it
    /// and the commit's PSK ids (RFC 9420 §12.4.3.1).
    func welcome(for added: [AddedMember], groupInfo: GroupInfo, psks: [PreSharedKeyID], path: CommitterPath?) throws(GroupError) -> Welcome? {
        guard !added.isEmpty else { return nil }
        var recipients: [Welcome.Recipient] = []
        recipients.reserveCapacity(added.count)
        for member in added {
            let pathSecret = path?.pathSecret(forJoiner: member.leafIndex).map { PathSecret(pathSecret: $0.pathSecret) }
            recipients.append(Welcome.Recipient(
                keyPackage: member.keyPackage,
                groupSecrets: GroupSecrets(joinerSecret: epochSecrets.joinerSecret, pathSecret: pathSecret, psks: psks)))
        }
        do {
            return try Welcome.encrypt(groupInfo: groupInfo, welcomeSecret: epochSecrets.welcomeSecret,
                                       recipients: recipients, suite: state.suite)
        } catch {
            throw .welcome(error)
        }
    }
}

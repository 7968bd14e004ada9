import Foundation
import MLS
import Primitives

/// The hostile MLS inputs of issue 14 (items 2–6), built in full before they are sent so that a
/// measurement sees only what the server does with them. Shared by the service's tests
/// (`AbuseMLSTests`) and `ds-bench abuse-items`, which send them over HTTP.
public enum MLSAttacks {
    public static let suite = CipherSuite(rawValue: 1)!
    public static let suiteName = "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519"

    // MARK: createConvo with a crafted tree (items 3 and 4)

    /// The GroupInfo of a new group of the creator whose ratchet_tree extension carries `tree` and
    /// which is signed by the creator's leaf at `signer`. With `validHash` the GroupInfo's tree_hash
    /// is the tree's own (computing it costs this process what importing the tree costs the
    /// server); otherwise it is random, which a server that builds the tree before checking the hash
    /// pays for all the same.
    public static func groupInfo(credential: Credential, signingKey: SignaturePrivateKey,
                                 tree: (_ creatorLeaf: LeafNode) throws -> RatchetTree, signer: UInt32,
                                 validHash: Bool) throws -> (groupID: [UInt8], groupInfo: GroupInfo) {
        let group = try Group.create(suite: suite, credential: credential, signingKey: signingKey)
        guard let creatorLeaf = group.tree.leafNode(at: 0) else { throw GroupError.unexpectedMessage("a new group without its leaf") }
        let wire = try tree(creatorLeaf)
        var groupInfo = try group.makeGroupInfo(includeTree: false)
        groupInfo.extensions.append(.ratchetTree(wire))
        groupInfo.groupContext.treeHash = validHash ? try PublicRatchetTree(suite: suite, tree: wire).treeHash : SecureRandom.bytes(32)
        groupInfo.signer = signer
        try groupInfo.sign(with: signingKey, suite: suite)
        return (group.groupID, groupInfo)
    }

    /// Item 4: a one-member tree whose only leaf, the creator's, sits at `leaf`; every node left of
    /// it blank (one byte each on the wire).
    public static func farLeafTree(at leaf: Int) -> (LeafNode) -> RatchetTree {
        { creatorLeaf in
            var nodes = [Node?](repeating: nil, count: 2 * leaf + 1)
            nodes[2 * leaf] = .leaf(creatorLeaf)
            return RatchetTree(nodes: nodes)
        }
    }

    /// Item 3: the creator at leaf 0, another member at leaf 1, and their parent listing `count`
    /// unmerged leaves 0, 1, 2, … (strictly increasing, as the RFC asks; all but two out of range).
    public static func unmergedLeavesTree(count: Int, other: LeafNode) throws -> (LeafNode) -> RatchetTree {
        let parentKey = try suite.generateHPKEKeyPair().publicKey
        return { creatorLeaf in
            RatchetTree(nodes: [.leaf(creatorLeaf),
                                .parent(ParentNode(encryptionKey: parentKey, unmergedLeaves: (0..<UInt32(count)).map { $0 })),
                                .leaf(other)])
        }
    }

    // MARK: Commits and Welcomes (items 2, 5, 6)

    /// `message`'s commit with its proposals replaced and everything else kept: the signature no
    /// longer matches, so a server that checked it first would answer InvalidCommit.
    public static func forged(_ message: MLSMessage, proposals: [ProposalOrRef]) throws -> MLSMessage {
        guard case .publicMessage(var publicMessage) = message.body, case .commit(var commit) = publicMessage.content.content else {
            throw GroupError.unexpectedMessage("not a PublicMessage commit")
        }
        commit.proposals = proposals
        commit.path = nil
        publicMessage.content.content = .commit(commit)
        return MLSMessage(body: .publicMessage(publicMessage))
    }

    /// A commit of `proposals` (no path) from `group`'s own member, signed with `signingKey`, with a
    /// valid signature over the group's context and confirmation and membership tags of the right
    /// length (values no one without the epoch's secrets can check): what the service verifies of
    /// it, it verifies.
    public static func signed(_ group: Group, signingKey: SignaturePrivateKey, proposals: [ProposalOrRef]) throws -> MLSMessage {
        let content = FramedContent(groupID: group.groupID, epoch: group.epoch, sender: .member(leafIndex: group.ownLeaf),
                                    authenticatedData: [], content: .commit(Commit(proposals: proposals)))
        let authenticated = try AuthenticatedContent.signed(wireFormat: .publicMessage, content: content, signingKey: signingKey,
                                                            context: group.groupContext, suite: suite)
        let auth = FramedContentAuthData(signature: authenticated.auth.signature, confirmationTag: SecureRandom.bytes(suite.nh))
        return MLSMessage(body: .publicMessage(PublicMessage(content: content, auth: auth, membershipTag: SecureRandom.bytes(suite.nh))))
    }

    /// `count` KeyPackages with `credential` that the service has never seen, each of its own client
    /// (signature key) and carrying a leaf extension of `padding` bytes (listed in its
    /// capabilities), so that each is valid and well signed.
    public static func unpublishedKeyPackages(credential: Credential, count: Int, padding: Int) throws -> [KeyPackage] {
        let padType = ExtensionType(rawValue: 0xff0a)
        let now = UInt64(Date().timeIntervalSince1970)
        return try (0..<count).map { _ in
            try KeyPackageBundle.generate(
                suite: suite, credential: credential, signingKey: try suite.signatureScheme.generatePrivateKey(),
                lifetime: Lifetime(notBefore: now - 3600, notAfter: now + 86_400),
                capabilities: Capabilities(cipherSuites: [suite.rawValue], extensions: [padType], credentials: [.basic]),
                leafExtensions: [Extension(extensionType: padType, extensionData: SecureRandom.bytes(padding))]).keyPackage
        }
    }

    /// A Welcome whose secrets are `entry` `count` times.
    public static func repeating(_ welcome: MLSMessage, entry index: Int = 0, count: Int) throws -> MLSMessage {
        guard case .welcome(var body) = welcome.body else { throw GroupError.unexpectedMessage("not a Welcome") }
        body.secrets = Array(repeating: body.secrets[index], count: count)
        return MLSMessage(body: .welcome(body))
    }

    /// A Welcome with no secrets, for commits that are refused before their Welcome is read.
    public static let emptyWelcome = MLSMessage(body: .welcome(Welcome(cipherSuite: suite.rawValue, secrets: [], encryptedGroupInfo: [0])))
}

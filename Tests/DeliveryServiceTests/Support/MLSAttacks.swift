import Foundation
import MLS
import Primitives
import XCTest

/// The MLS attacks of issue 14 (items 2–6) as request bodies, built in full before they are sent so
/// that a measurement sees only what the server does with them.
enum MLSAttacks {
    static let suite = MLSTestUser.defaultSuite
    static let suiteName = "MLS_128_DHKEMX25519_AES128GCM_SHA256_Ed25519"

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

    // MARK: createConvo with a crafted tree (items 3 and 4)

    /// createConvo for a new group of `creator` whose GroupInfo carries `tree` in its ratchet_tree
    /// extension and is signed by the creator's leaf at `signer`. With `validHash` the GroupInfo's
    /// tree_hash is the tree's own (computing it costs this process what importing the tree costs
    /// the server); otherwise it is random, which a server that builds the tree before checking the
    /// hash pays for all the same.
    static func createConvo(_ creator: MLSTestUser, tree: (_ creatorLeaf: LeafNode) throws -> RatchetTree, signer: UInt32,
                            validHash: Bool) throws -> [String: Any] {
        let group = try Group.create(suite: suite, credential: creator.credential, signingKey: creator.signingKey)
        let wire = try tree(try XCTUnwrap(group.tree.leafNode(at: 0)))
        var groupInfo = try group.makeGroupInfo(includeTree: false)
        groupInfo.extensions.append(.ratchetTree(wire))
        groupInfo.groupContext.treeHash = validHash ? try PublicRatchetTree(suite: suite, tree: wire).treeHash : SecureRandom.bytes(32)
        groupInfo.signer = signer
        try groupInfo.sign(with: creator.signingKey, suite: suite)
        return ["groupId": hex(group.groupID), "cipherSuite": suiteName,
                "groupInfo": MLSTestUser.bytes(MLSMessage(body: .groupInfo(groupInfo)))]
    }

    /// Item 4: a one-member tree whose only leaf, the creator's, sits at `leaf`; every node left of
    /// it blank (one byte each on the wire).
    static func farLeafTree(at leaf: Int) -> (LeafNode) -> RatchetTree {
        { creatorLeaf in
            var nodes = [Node?](repeating: nil, count: 2 * leaf + 1)
            nodes[2 * leaf] = .leaf(creatorLeaf)
            return RatchetTree(nodes: nodes)
        }
    }

    /// Item 3: the creator at leaf 0, another member at leaf 1, and their parent listing `count`
    /// unmerged leaves 0, 1, 2, … (strictly increasing, as the RFC asks; all but two out of range).
    static func unmergedLeavesTree(count: Int, other: LeafNode) throws -> (LeafNode) -> RatchetTree {
        let parentKey = try suite.generateHPKEKeyPair().publicKey
        return { creatorLeaf in
            RatchetTree(nodes: [.leaf(creatorLeaf),
                                .parent(ParentNode(encryptionKey: parentKey, unmergedLeaves: (0..<UInt32(count)).map { $0 })),
                                .leaf(other)])
        }
    }

    // MARK: Commits (items 2, 5, 6)

    /// `message`'s commit with its proposals replaced and everything else kept: the signature no
    /// longer matches, so a server that checked it first would answer InvalidCommit.
    static func forged(_ message: MLSMessage, proposals: [ProposalOrRef]) throws -> MLSMessage {
        guard case .publicMessage(var publicMessage) = message.body, case .commit(var commit) = publicMessage.content.content else {
            throw XCTestError(.failureWhileWaiting)
        }
        commit.proposals = proposals
        commit.path = nil
        publicMessage.content.content = .commit(commit)
        return MLSMessage(body: .publicMessage(publicMessage))
    }

    /// A commit of `proposals` (no path) from `group`'s member, with a valid signature over the
    /// group's context and confirmation and membership tags of the right length (values no one
    /// without the epoch's secrets can check): what the service verifies of it, it verifies.
    static func signed(_ group: Group, by user: MLSTestUser, proposals: [ProposalOrRef]) throws -> MLSMessage {
        let content = FramedContent(groupID: group.groupID, epoch: group.epoch, sender: .member(leafIndex: group.ownLeaf),
                                    authenticatedData: [], content: .commit(Commit(proposals: proposals)))
        let authenticated = try AuthenticatedContent.signed(wireFormat: .publicMessage, content: content, signingKey: user.signingKey,
                                                            context: group.groupContext, suite: suite)
        let auth = FramedContentAuthData(signature: authenticated.auth.signature, confirmationTag: SecureRandom.bytes(suite.nh))
        return MLSMessage(body: .publicMessage(PublicMessage(content: content, auth: auth, membershipTag: SecureRandom.bytes(suite.nh))))
    }

    /// `count` KeyPackages of `user`'s DID that the service has never seen, each of its own client
    /// (signature key) and carrying a leaf extension of `padding` bytes (listed in its
    /// capabilities), so that each is valid and well signed.
    static func unpublishedKeyPackages(_ user: MLSTestUser, count: Int, padding: Int) throws -> [KeyPackage] {
        let padType = ExtensionType(rawValue: 0xff0a)
        let now = UInt64(Date().timeIntervalSince1970)
        return try (0..<count).map { _ in
            try KeyPackageBundle.generate(
                suite: suite, credential: user.credential, signingKey: try suite.signatureScheme.generatePrivateKey(),
                lifetime: Lifetime(notBefore: now - 3600, notAfter: now + 86_400),
                capabilities: Capabilities(cipherSuites: [suite.rawValue], extensions: [padType], credentials: [.basic]),
                leafExtensions: [Extension(extensionType: padType, extensionData: SecureRandom.bytes(padding))]).keyPackage
        }
    }

    /// A Welcome whose secrets are `entry` `count` times.
    static func repeating(_ welcome: MLSMessage, entry index: Int = 0, count: Int) throws -> MLSMessage {
        guard case .welcome(var body) = welcome.body else { throw XCTestError(.failureWhileWaiting) }
        body.secrets = Array(repeating: body.secrets[index], count: count)
        return MLSMessage(body: .welcome(body))
    }
}

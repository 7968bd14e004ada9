import MLS
import Primitives

/// One altered copy of the GroupInfo a committer publishes with its commit.
public struct GroupInfoMutant: Sendable {
    public let field: String
    public let groupInfo: GroupInfo
    /// The change is to external_pub, which derives from the epoch secret: no public observer can
    /// check it (docs/validation.md).
    public let secretDependent: Bool
}

extension CommitScenario {
    /// The GroupInfo of the new epoch changed field by field, re-signed by its signer (or by the
    /// member a changed `signer` names) as that member would, and a few changes not re-signed.
    /// `next` is the public state after the commit.
    public func groupInfoMutants(next: PublicGroup) throws -> [GroupInfoMutant] {
        let original = groupInfo
        var result: [GroupInfoMutant] = []
        func add(_ field: String, secret: Bool = false, resign: Bool = true, _ change: (inout GroupInfo) throws -> Void) rethrows {
            var changed = original
            try change(&changed)
            if resign, let node = next.tree.leafNode(at: changed.signer), let key = signers[node.signatureKey] {
                try? changed.sign(with: key, suite: suite)
            }
            guard changed != original else { return }
            result.append(GroupInfoMutant(field: "GroupInfo " + field, groupInfo: changed, secretDependent: secret))
        }
        add("signature flipped", resign: false) { $0.signature = $0.signature.flipping(3) }
        add("confirmation_tag flipped") { $0.confirmationTag = $0.confirmationTag.flipping(1) }
        add("confirmation_tag truncated") { $0.confirmationTag.removeLast() }
        for leaf in 0...next.tree.leafCount where leaf != original.signer {
            add("signer \(leaf)") { $0.signer = leaf }
        }
        add("signer changed, not re-signed", resign: false) { $0.signer = $0.signer == 0 ? 1 : 0 }
        add("group_context.epoch + 1") { $0.groupContext.epoch += 1 }
        add("group_context.group_id flipped") { $0.groupContext.groupID = $0.groupContext.groupID.flipping(0) }
        add("group_context.tree_hash flipped") { $0.groupContext.treeHash = $0.groupContext.treeHash.flipping(0) }
        add("group_context.confirmed_transcript_hash flipped") {
            $0.groupContext.confirmedTranscriptHash = $0.groupContext.confirmedTranscriptHash.flipping(0)
        }
        add("group_context.extensions added") {
            $0.groupContext.extensions.append(.requiredCapabilities(RequiredCapabilities(credentialTypes: [.basic])))
        }
        add("group_context.cipher_suite changed") { $0.groupContext.cipherSuite = suite.rawValue == 1 ? 3 : 1 }
        add("ratchet_tree dropped") { $0.extensions.removeAll { $0.extensionType == .ratchetTree } }
        add("ratchet_tree repeated") { $0.extensions += $0.extensions.filter { $0.extensionType == .ratchetTree } }
        add("ratchet_tree truncated") {
            if let index = $0.extensions.firstIndex(where: { $0.extensionType == .ratchetTree }) {
                $0.extensions[index].extensionData.removeLast()
            }
        }
        add("ratchet_tree of the previous epoch") {
            if let index = $0.extensions.firstIndex(where: { $0.extensionType == .ratchetTree }) {
                $0.extensions[index] = .ratchetTree(observer.tree.ratchetTree)
            }
        }
        add("external_pub dropped") { $0.extensions.removeAll { $0.extensionType == .externalPub } }
        add("external_pub flipped", secret: true) {
            if let index = $0.extensions.firstIndex(where: { $0.extensionType == .externalPub }),
               let key = try? $0.extensions[index].decodeExternalPub() {
                $0.extensions[index] = .externalPub(key.flipping(4, bit: 1))
            }
        }
        try add("external_pub fresh", secret: true) {
            if let index = $0.extensions.firstIndex(where: { $0.extensionType == .externalPub }) {
                $0.extensions[index] = .externalPub(try suite.generateHPKEKeyPair().publicKey)
            }
        }
        add("unknown extension added") {
            $0.extensions.append(Extension(extensionType: ExtensionType(rawValue: 0xff0f), extensionData: [1, 2]))
        }
        return result
    }
}

import Primitives

/// RFC 9420 §12.3: applying a validated proposal list to a copy of the tree, in the order
/// GroupContextExtensions, Update, Remove, Add, with PSKs collected in list order. Checks that
/// need the changing tree are made here: KeyPackages and leaves valid (§10.1, §7.3), no client
/// added twice or already present (§12.2), unique HPKE keys, capabilities.
extension GroupState {
    /// KeyPackages whose KeyPackageRef is in `trustedKeyPackageRefs` skip signature verification.
    func apply(_ proposals: [ResolvedProposal], now: UInt64?, trustedKeyPackageRefs: Set<[UInt8]> = []) throws(GroupError) -> AppliedProposals {
        var result = AppliedProposals(tree: tree, extensions: context.extensions)
        var updates: [(leaf: UInt32, node: LeafNode)] = []
        var removes: [UInt32] = []
        var adds: [KeyPackage] = []
        for entry in proposals {
            switch entry.proposal {
            case .groupContextExtensions(let extensions):
                result.extensions = extensions
                result.pathRequired = true
            case .update(let node):
                if case .member(let leaf) = entry.sender { updates.append((leaf, node)) }
                result.pathRequired = true
            case .remove(let leaf):
                removes.append(leaf)
                result.pathRequired = true
            case .add(let keyPackage):
                adds.append(keyPackage)
            case .preSharedKey(let id):
                result.psks.append(id)
            case .reInit(let reInit):
                result.reInit = reInit
            case .externalInit(let kemOutput):
                result.externalInit = kemOutput
                result.pathRequired = true
            }
        }
        let required = try Self.requiredCapabilities(in: result.extensions)
        let extensionsChanged = result.extensions != context.extensions

        for (leaf, node) in updates {
            guard let current = result.tree.leafNode(at: leaf) else { throw .unknownSender(.member(leafIndex: leaf)) }
            // RFC 9420 §12.1.2: the new leaf must bring a new encryption key.
            guard node.encryptionKey != current.encryptionKey else {
                throw .invalidProposal(.update, "encryption_key unchanged")
            }
            do {
                try result.tree.validateLeafNode(node, at: leaf, groupID: context.groupID, source: .update,
                                                 requiredCapabilities: required)
                try result.tree.update(leaf: leaf, with: node)
            } catch {
                throw .tree(error)
            }
            result.updated.append(leaf)
        }
        for leaf in removes {
            guard let node = result.tree.leafNode(at: leaf) else { throw .invalidProposalList(.removeOfBlankLeaf(leaf)) }
            do { try result.tree.remove(leaf: leaf) } catch { throw .tree(error) }
            result.removed.append(RemovedMember(leafIndex: leaf, leafNode: node))
        }
        if !adds.isEmpty {
            try addAll(adds, to: &result, requiredCapabilities: required, now: now, trusted: trustedKeyPackageRefs)
        }
        if extensionsChanged || !adds.isEmpty || !updates.isEmpty {
            try Self.checkCapabilities(of: result.tree, extensions: result.extensions, required: required,
                                       checkExtensions: extensionsChanged)
        }
        return result
    }

    /// Validates every KeyPackage and adds its leaf. Keys already in the tree are gathered once, so
    /// a commit adding n members costs O(n + tree) rather than O(n · tree).
    private func addAll(
        _ keyPackages: [KeyPackage], to result: inout AppliedProposals, requiredCapabilities: RequiredCapabilities?,
        now: UInt64?, trusted: Set<[UInt8]>
    ) throws(GroupError) {
        var signatureKeys = Set<[UInt8]>()
        var encryptionKeys = Set<[UInt8]>()
        let tree = result.tree
        for x in 0..<tree.nodeWidth {
            switch tree.node(at: x) {
            case .leaf(let leaf):
                signatureKeys.insert(leaf.signatureKey)
                encryptionKeys.insert(leaf.encryptionKey)
            case .parent(let parent):
                encryptionKeys.insert(parent.encryptionKey)
            case nil:
                continue
            }
        }
        for keyPackage in keyPackages {
            let ref = keyPackage.reference(suite: suite)
            do {
                try keyPackage.validate(suite: suite, now: now, verifySignatures: !trusted.contains(ref))
            } catch {
                throw .invalidKeyPackage(error)
            }
            let leaf = keyPackage.leafNode
            if let required = requiredCapabilities {
                guard Set(required.extensionTypes).isSubset(of: leaf.capabilities.extensions),
                      Set(required.proposalTypes).isSubset(of: leaf.capabilities.proposals),
                      Set(required.credentialTypes).isSubset(of: leaf.capabilities.credentials) else {
                    throw .invalidKeyPackage(.unsupportedCapabilities)
                }
            }
            // RFC 9420 §12.2: the same client twice, or a client already in the group.
            guard signatureKeys.insert(leaf.signatureKey).inserted else { throw .invalidProposalList(.duplicateAdd) }
            guard encryptionKeys.insert(leaf.encryptionKey).inserted else {
                throw .tree(.duplicateEncryptionKey(node: 2 * result.tree.leafCount))
            }
            let index = result.tree.addWithoutRehash(leaf)
            result.added.append(AddedMember(leafIndex: index, keyPackage: keyPackage, keyPackageRef: ref))
        }
        result.tree.rehash(changed: result.added.map { 2 * $0.leafIndex })
    }

    /// RFC 9420 §7.3, §11.1, §12.1.7: every member supports every credential type in use, the
    /// required capabilities, and (when the extensions change) every non-default extension type.
    static func checkCapabilities(
        of tree: PublicRatchetTree, extensions: [Extension], required: RequiredCapabilities?, checkExtensions: Bool
    ) throws(GroupError) {
        var inUse = Set<CredentialType>()
        for x in stride(from: UInt32(0), to: tree.nodeWidth, by: 2) {
            if case .leaf(let leaf) = tree.node(at: x) { inUse.insert(leaf.credential.credentialType) }
        }
        let extensionTypes = Set(extensions.map(\.extensionType)).subtracting(PublicRatchetTree.defaultExtensionTypes)
        for x in stride(from: UInt32(0), to: tree.nodeWidth, by: 2) {
            guard case .leaf(let leaf) = tree.node(at: x) else { continue }
            let capabilities = leaf.capabilities
            if inUse.count == 1, let only = inUse.first {
                guard capabilities.credentials.contains(only) else { throw .tree(.unsupportedCredential(leaf: x / 2)) }
            } else if !inUse.isSubset(of: capabilities.credentials) {
                throw .tree(.unsupportedCredential(leaf: x / 2))
            }
            guard checkExtensions else { continue }
            guard extensionTypes.allSatisfy(capabilities.extensions.contains) else {
                throw .invalidProposalList(.unsupportedExtensions)
            }
            if let required {
                guard required.extensionTypes.allSatisfy(capabilities.extensions.contains),
                      required.proposalTypes.allSatisfy(capabilities.proposals.contains),
                      required.credentialTypes.allSatisfy(capabilities.credentials.contains) else {
                    throw .invalidProposalList(.unsupportedExtensions)
                }
            }
        }
    }
}

/// RFC 9420 §12.4.3.1 and §7.3: validating an imported tree and the leaf nodes put into a tree.
extension PublicRatchetTree {
    /// Extension types every client supports without listing them (RFC 9420 §7.2).
    static let defaultExtensionTypes: Set<ExtensionType> = [
        .applicationID, .ratchetTree, .requiredCapabilities, .externalPub, .externalSenders,
    ]

    /// RFC 9420 §12.4.3.1: the tree hash matches, every parent hash chain is valid, every leaf is
    /// valid (§7.3) with `groupID` bound into update and commit signatures, HPKE and signature keys
    /// are unique, and unmerged leaves are consistent. Leaf lifetimes are not checked here: a
    /// joiner need not reject a tree over a long-standing member's key_package lifetime.
    public func validate(
        groupID: [UInt8], expectedTreeHash: [UInt8]? = nil, requiredCapabilities: RequiredCapabilities? = nil
    ) throws(TreeError) {
        if let expectedTreeHash, expectedTreeHash != treeHash { throw .treeHashMismatch }
        // Specific faults first: a bad leaf or unmerged list also breaks the parent hashes above it.
        let members = members
        for (leaf, node) in members {
            try validateLeafContents(node, at: leaf, groupID: groupID, source: nil,
                                     requiredCapabilities: requiredCapabilities, now: nil)
        }
        try checkCredentialCompatibility(members.map(\.node), leaves: members.map(\.leaf))
        try checkUniqueKeys()
        try checkUnmergedLeaves()
        try verifyParentHashes()
    }

    /// RFC 9420 §7.3: a leaf node about to be placed at `leaf` (from an Add, an Update or a commit's
    /// path). `source` is the leaf_node_source the context demands; `now` (seconds since the epoch),
    /// when given, must lie in a key_package lifetime. The leaf currently at `leaf`, which the new
    /// one replaces, is ignored for the uniqueness and compatibility checks.
    public func validateLeafNode(
        _ leafNode: LeafNode, at leaf: UInt32, groupID: [UInt8], source: LeafNodeSourceType?,
        requiredCapabilities: RequiredCapabilities? = nil, now: UInt64? = nil
    ) throws(TreeError) {
        try validateLeafContents(leafNode, at: leaf, groupID: groupID, source: source,
                                 requiredCapabilities: requiredCapabilities, now: now)
        let others = members.filter { $0.leaf != leaf }
        let inUse = Set(others.map(\.node.credential.credentialType))
        guard inUse.isSubset(of: leafNode.capabilities.credentials) else { throw .unsupportedCredential(leaf: leaf) }
        for (_, other) in others {
            guard other.capabilities.credentials.contains(leafNode.credential.credentialType) else {
                throw .unsupportedCredential(leaf: leaf)
            }
            guard other.signatureKey != leafNode.signatureKey else { throw .duplicateSignatureKey(leaf: leaf) }
        }
        for x in 0..<nodeWidth where x != 2 * leaf {
            if encryptionKey(at: x) == leafNode.encryptionKey { throw .duplicateEncryptionKey(node: 2 * leaf) }
        }
    }

    /// The checks of RFC 9420 §7.3 that need only the leaf itself and the group's parameters.
    func validateLeafContents(
        _ node: LeafNode, at leaf: UInt32, groupID: [UInt8], source: LeafNodeSourceType?,
        requiredCapabilities: RequiredCapabilities?, now: UInt64?
    ) throws(TreeError) {
        if let source, node.leafNodeSource.sourceType != source { throw .invalidLeafNodeSource(leaf: leaf) }
        if let now, case .keyPackage(let lifetime) = node.leafNodeSource,
           !(lifetime.notBefore <= now && now <= lifetime.notAfter) {
            throw .invalidLeafNodeSource(leaf: leaf)
        }
        let tbs = node.tbs(groupID: groupID, leafIndex: leaf).encoded()
        guard suite.verifyWithLabel(publicKey: node.signatureKey, label: "LeafNodeTBS", content: tbs,
                                    signature: node.signature) else {
            throw .invalidLeafSignature(leaf: leaf)
        }
        let capabilities = node.capabilities
        if let required = requiredCapabilities {
            guard Set(required.extensionTypes).isSubset(of: capabilities.extensions),
                  Set(required.proposalTypes).isSubset(of: capabilities.proposals),
                  Set(required.credentialTypes).isSubset(of: capabilities.credentials) else {
                throw .unsupportedCapability(leaf: leaf)
            }
        }
        for ext in node.extensions where !Self.defaultExtensionTypes.contains(ext.extensionType) {
            guard capabilities.extensions.contains(ext.extensionType) else { throw .unsupportedCapability(leaf: leaf) }
        }
    }

    /// RFC 9420 §7.3: every credential type in use is supported by every member.
    func checkCredentialCompatibility(_ nodes: [LeafNode], leaves: [UInt32]) throws(TreeError) {
        let inUse = Set(nodes.map(\.credential.credentialType))
        for (node, leaf) in zip(nodes, leaves) where !inUse.isSubset(of: node.capabilities.credentials) {
            throw .unsupportedCredential(leaf: leaf)
        }
    }

    /// RFC 9420 §7.3, §12.4.3.1: no two leaves share a signature key and no two nodes an HPKE key.
    func checkUniqueKeys() throws(TreeError) {
        var signatureKeys = Set<[UInt8]>()
        var encryptionKeys = Set<[UInt8]>()
        for x in 0..<nodeWidth {
            guard let key = encryptionKey(at: x) else { continue }
            guard encryptionKeys.insert(key).inserted else { throw .duplicateEncryptionKey(node: x) }
            if let leaf = TreeMath.leafIndex(node: x), let node = leafNode(at: leaf),
               !signatureKeys.insert(node.signatureKey).inserted {
                throw .duplicateSignatureKey(leaf: leaf)
            }
        }
    }

    /// RFC 9420 §7.9.2: each unmerged leaf of P is a non-blank leaf below P, and every non-blank
    /// parent between that leaf and P lists it too.
    func checkUnmergedLeaves() throws(TreeError) {
        for x in stride(from: UInt32(1), to: nodeWidth, by: 2) {
            guard let parent = parentNode(at: x) else { continue }
            let below = TreeMath.leaves(under: x)
            for leaf in parent.unmergedLeaves {
                guard below.contains(leaf), leafNode(at: leaf) != nil else {
                    throw .invalidUnmergedLeaf(node: x, leaf: leaf)
                }
                for p in directPath(ofLeaf: leaf) {
                    if p == x { break }
                    if let middle = parentNode(at: p), !middle.unmergedLeaves.contains(leaf) {
                        throw .invalidUnmergedLeaf(node: x, leaf: leaf)
                    }
                }
            }
        }
    }
}

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
        // The unmerged lists go before the leaves: their check is cheap, a leaf's signature is not.
        try checkUnmergedLeaves()
        let members = members
        for (leaf, node) in members {
            try validateLeafContents(node, at: leaf, groupID: groupID, source: nil,
                                     requiredCapabilities: requiredCapabilities, now: nil)
        }
        try checkCredentialCompatibility(members.map(\.node), leaves: members.map(\.leaf))
        try checkUniqueKeys()
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
        // One pass over the tree, without copying the member list: this runs once per Add.
        let ownType = leafNode.credential.credentialType
        let supported = leafNode.capabilities.credentials
        for x in 0..<nodes.count where x != Int(2 * leaf) {
            switch nodes[x] {
            case .leaf(let other):
                guard supported.contains(other.credential.credentialType),
                      other.capabilities.credentials.contains(ownType) else { throw .unsupportedCredential(leaf: leaf) }
                guard other.signatureKey != leafNode.signatureKey else { throw .duplicateSignatureKey(leaf: leaf) }
                guard other.encryptionKey != leafNode.encryptionKey else { throw .duplicateEncryptionKey(node: 2 * leaf) }
            case .parent(let parent):
                guard parent.encryptionKey != leafNode.encryptionKey else { throw .duplicateEncryptionKey(node: 2 * leaf) }
            case nil:
                continue
            }
        }
    }

    /// The checks of RFC 9420 §7.3 that need only the leaf itself and the group's parameters.
    func validateLeafContents(
        _ node: LeafNode, at leaf: UInt32, groupID: [UInt8], source: LeafNodeSourceType?,
        requiredCapabilities: RequiredCapabilities?, now: UInt64?
    ) throws(TreeError) {
        if let source, node.leafNodeSource.sourceType != source { throw .invalidLeafNodeSource(leaf: leaf) }
        // Every later committer encrypts to this key (RFC 9420 §7.6): it must be one it can use.
        guard suite.kem.isValidPublicKey(node.encryptionKey) else { throw .invalidEncryptionKey(node: 2 * leaf) }
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

    /// RFC 9420 §7.3, §12.4.3.1: no two leaves share a signature key and no two nodes an HPKE key;
    /// every parent's key is a valid key of the suite's KEM (leaves' are checked with the leaf).
    func checkUniqueKeys() throws(TreeError) {
        var signatureKeys = Set<[UInt8]>()
        var encryptionKeys = Set<[UInt8]>()
        for x in 0..<nodeWidth {
            guard let key = encryptionKey(at: x) else { continue }
            guard encryptionKeys.insert(key).inserted else { throw .duplicateEncryptionKey(node: x) }
            if !TreeMath.isLeaf(x), !suite.kem.isValidPublicKey(key) { throw .invalidEncryptionKey(node: x) }
            if let leaf = TreeMath.leafIndex(node: x), let node = leafNode(at: leaf),
               !signatureKeys.insert(node.signatureKey).inserted {
                throw .duplicateSignatureKey(leaf: leaf)
            }
        }
    }

    /// RFC 9420 §7.1 and §12.4.3.1: each parent's unmerged_leaves are strictly increasing ("MUST be
    /// sorted in increasing order"; a leaf listed twice is not), each a non-blank leaf below it, and
    /// every non-blank parent between that leaf and P lists it too (found by binary search in the
    /// sorted lists, so the whole check is O(entries · depth · log)). A list longer than the leaves
    /// below its node cannot be all of that and is refused before it is read.
    func checkUnmergedLeaves() throws(TreeError) {
        for x in stride(from: UInt32(1), to: nodeWidth, by: 2) {
            guard let parent = parentNode(at: x) else { continue }
            let below = TreeMath.leaves(under: x)
            guard parent.unmergedLeaves.count <= below.count else { throw .tooManyUnmergedLeaves(node: x) }
            var previous: UInt32?
            for leaf in parent.unmergedLeaves {
                if let previous, leaf <= previous { throw .unmergedLeavesNotSorted(node: x) }
                previous = leaf
                guard below.contains(leaf), leafNode(at: leaf) != nil else {
                    throw .invalidUnmergedLeaf(node: x, leaf: leaf)
                }
                for p in directPath(ofLeaf: leaf) {
                    if p == x { break }
                    if let middle = parentNode(at: p), !middle.unmergedLeaves.sortedContains(leaf) {
                        throw .invalidUnmergedLeaf(node: x, leaf: leaf)
                    }
                }
            }
        }
    }
}

extension RandomAccessCollection where Element == UInt32, Index == Int {
    /// Binary search in a list sorted in increasing order (an unmerged_leaves list); on an unsorted
    /// list it may miss an element, never invent one.
    func sortedContains(_ value: UInt32) -> Bool {
        let index = sortedInsertionIndex(of: value)
        return index < endIndex && self[index] == value
    }

    /// The first index whose element is not less than `value`.
    func sortedInsertionIndex(of value: UInt32) -> Int {
        var low = startIndex, high = endIndex
        while low < high {
            let mid = (low + high) / 2
            if self[mid] < value { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

extension PublicRatchetTree {
    /// The leaf indices that `count` successive `add` calls will use.
    public func addIndices(count: Int) -> [UInt32] {
        var result: [UInt32] = []
        result.reserveCapacity(count)
        var leaf = blankLeafHint
        while result.count < count {
            if leaf >= leafCount || nodes[Int(2 * leaf)] == nil { result.append(leaf) }
            leaf += 1
        }
        return result
    }

    /// RFC 9420 §7.3 for the leaves of a batch of Adds in one pass: each leaf is checked as
    /// `validateLeafNode` would at the index `add` will give it, against the tree and the other new
    /// leaves, in O(members + batch) rather than once per leaf.
    public func validateAddedLeafNodes(
        _ leafNodes: [LeafNode], groupID: [UInt8], requiredCapabilities: RequiredCapabilities? = nil, now: UInt64? = nil
    ) throws(TreeError) {
        let indices = addIndices(count: leafNodes.count)
        var signatureKeys = Set<[UInt8]>()
        var encryptionKeys = Set<[UInt8]>()
        var inUse = Set<CredentialType>()
        var supportedByAll: Set<CredentialType>?
        for node in nodes {
            switch node {
            case .leaf(let leaf):
                signatureKeys.insert(leaf.signatureKey)
                encryptionKeys.insert(leaf.encryptionKey)
                inUse.insert(leaf.credential.credentialType)
                let supported = Set(leaf.capabilities.credentials)
                supportedByAll = supportedByAll.map { $0.intersection(supported) } ?? supported
            case .parent(let parent):
                encryptionKeys.insert(parent.encryptionKey)
            case nil:
                continue
            }
        }
        for (leafNode, leaf) in zip(leafNodes, indices) {
            try validateLeafContents(leafNode, at: leaf, groupID: groupID, source: .keyPackage,
                                     requiredCapabilities: requiredCapabilities, now: now)
            inUse.insert(leafNode.credential.credentialType)
            let supported = Set(leafNode.capabilities.credentials)
            supportedByAll = supportedByAll.map { $0.intersection(supported) } ?? supported
            guard signatureKeys.insert(leafNode.signatureKey).inserted else { throw .duplicateSignatureKey(leaf: leaf) }
            guard encryptionKeys.insert(leafNode.encryptionKey).inserted else {
                throw .duplicateEncryptionKey(node: 2 * leaf)
            }
        }
        // Every credential type in use, old or new, must be supported by every member, old or new.
        guard let supportedByAll, inUse.isSubset(of: supportedByAll) else {
            let offender = zip(leafNodes, indices).first { !inUse.isSubset(of: $0.0.capabilities.credentials) }
            throw .unsupportedCredential(leaf: offender?.1 ?? indices.first ?? 0)
        }
    }
}

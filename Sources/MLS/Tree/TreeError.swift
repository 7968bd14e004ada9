import Primitives

/// Why a ratchet tree, a change to it or an UpdatePath was rejected (RFC 9420 §7, §12.4.2, §12.4.3.1).
public enum TreeError: Error, Sendable, Equatable {
    /// The wire tree has no nodes, an even node count, a trailing blank, or a node of the wrong kind
    /// for its position (leaves at even indices, parents at odd ones).
    case malformedTree(String)
    /// A wire tree whose last occupied leaf (`lastLeaf`) is not below the `TreeLimits`' `maxLeaves`.
    case treeTooWide(lastLeaf: UInt32, maxLeaves: UInt32)
    /// A wire tree with more occupied leaves than the `TreeLimits` allow.
    case tooManyMembers(maxMembers: Int)
    case leafIndexOutOfRange(UInt32)
    /// Update or Remove of a leaf that is blank.
    case blankLeaf(UInt32)
    /// The tree hash differs from the one the GroupContext claims.
    case treeHashMismatch
    /// A non-blank parent node that no parent-hash chain covers, or that two chains cover; for an
    /// UpdatePath, the new leaf's parent_hash does not match the path (node is the leaf's node index).
    case invalidParentHash(node: UInt32)
    case invalidLeafSignature(leaf: UInt32)
    /// The leaf_node_source is not the one this context requires, or a key_package lifetime is not valid now.
    case invalidLeafNodeSource(leaf: UInt32)
    case duplicateSignatureKey(leaf: UInt32)
    /// An HPKE key used by two nodes; `node` is the later one.
    case duplicateEncryptionKey(node: UInt32)
    /// A credential type that some member does not support, or a leaf that does not support one in use.
    case unsupportedCredential(leaf: UInt32)
    /// A leaf lacks a required capability or uses an extension its capabilities do not list.
    case unsupportedCapability(leaf: UInt32)
    /// An unmerged_leaves entry that is not a non-blank descendant, or that an intermediate node omits.
    case invalidUnmergedLeaf(node: UInt32, leaf: UInt32)
    /// An UpdatePath whose node count differs from the sender's filtered direct path.
    case pathLengthMismatch(expected: Int, actual: Int)
    /// An UpdatePathNode whose ciphertext count differs from its copath node's resolution (less the
    /// leaves the same commit adds).
    case ciphertextCountMismatch(node: UInt32)
    /// An HPKECiphertext of an UpdatePathNode no recipient could open: an invalid kem_output or a
    /// ciphertext that is not a sealed Nh-byte path secret.
    case malformedCiphertext(node: UInt32)
    /// A committer's UpdatePath leaf with the encryption key it already had (RFC 9420 §12.4.2).
    case leafEncryptionKeyUnchanged(leaf: UInt32)
    /// An HPKE public key that is not a valid key of the suite's KEM (RFC 9180 §7.1.4).
    case invalidEncryptionKey(node: UInt32)
    /// An unmerged_leaves list that is not strictly increasing (RFC 9420 §7.1).
    case unmergedLeavesNotSorted(node: UInt32)
    /// An unmerged_leaves list longer than the leaves below its node.
    case tooManyUnmergedLeaves(node: UInt32)
    /// The recipient holds no private key for any node the path secret was encrypted to.
    case noDecryptionKey
    /// HPKE could not open the path secret meant for the recipient.
    case pathSecretDecryptionFailed
    /// A public key in the tree differs from the one derived from the path secret or private key.
    case publicKeyMismatch(node: UInt32)
    case crypto(CryptoError)
}

/// RFC 9420 §7.5–7.6: a member's side of another member's UpdatePath.
extension TreePrivateState {
    /// Decrypts the path secret meant for this member from `path`, sent by `sender`, derives the keys
    /// of every path node from there to the root, checks them against the path's public keys and
    /// stores them. `tree` is the tree with the path already merged (`mergeUpdatePath`); copath
    /// resolutions are the same before and after the merge. `excluding` are the leaves added by the
    /// same commit; `groupContext` is the encoded provisional GroupContext. On error the state is
    /// unchanged.
    public mutating func decrypt(
        _ path: UpdatePath, sender: UInt32, tree: PublicRatchetTree, groupContext: [UInt8], excluding: Set<UInt32> = []
    ) throws(TreeError) -> ReceivedPath {
        let filtered = tree.filteredDirectPath(ofLeaf: sender)
        guard path.nodes.count == filtered.count else {
            throw .pathLengthMismatch(expected: filtered.count, actual: path.nodes.count)
        }
        guard sender != leafIndex,
              let start = filtered.firstIndex(where: { TreeMath.leaves(under: $0.copathChild).contains(leafIndex) })
        else { throw .noDecryptionKey }

        let copath = filtered[start].copathChild
        let resolution = tree.copathResolution(copath, excluding: excluding)
        let ciphertexts = path.nodes[start].encryptedPathSecret
        guard ciphertexts.count == resolution.count else { throw .ciphertextCountMismatch(node: filtered[start].node) }
        guard let position = resolution.firstIndex(where: { x in
            keys[x].map { tree.encryptionKey(at: x) == $0.publicKey } ?? false
        }) else { throw .noDecryptionKey }

        let ciphertext = ciphertexts[position]
        let pathSecret: [UInt8]
        do {
            pathSecret = try suite.decryptWithLabel(
                privateKey: keys[resolution[position]]!.privateKey, label: "UpdatePathNode", context: groupContext,
                kemOutput: ciphertext.kemOutput, ciphertext: ciphertext.ciphertext)
        } catch {
            throw .pathSecretDecryptionFailed
        }

        var updated = self
        for x in TreeMath.directPath(2 * sender, leafCount: tree.leafCount) ?? [] { updated.removeKey(at: x) }
        var secret = pathSecret
        for index in start..<filtered.count {
            let pair = try Self.nodeKeyPair(suite: suite, pathSecret: secret)
            guard pair.publicKey == path.nodes[index].encryptionKey else {
                throw .publicKeyMismatch(node: filtered[index].node)
            }
            updated.setKeyPair(pair, at: filtered[index].node)
            secret = try Self.nextPathSecret(suite: suite, secret)
        }
        self = updated
        return ReceivedPath(node: filtered[start].node, pathSecret: pathSecret, commitSecret: secret)
    }
}

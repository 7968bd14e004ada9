/// A member's secrets for the ratchet tree (RFC 9420 §7.4): the HPKE key pair of its own leaf and of
/// the parent nodes on its direct path whose path secrets it knows. Kept apart from the public tree
/// so that a server can follow the tree without any of it.
public struct TreePrivateState: Sendable {
    public let suite: CipherSuite
    public let leafIndex: UInt32
    /// Node index → key pair; the leaf's pair sits at node 2·leafIndex.
    public private(set) var keys: [UInt32: HPKEKeyPair]

    public init(suite: CipherSuite, leafIndex: UInt32, leafKeyPair: HPKEKeyPair) {
        self.suite = suite
        self.leafIndex = leafIndex
        keys = [2 * leafIndex: leafKeyPair]
    }

    /// From the leaf's HPKE private key alone; the public key is recomputed.
    public init(suite: CipherSuite, leafIndex: UInt32, encryptionPrivateKey: [UInt8]) throws(TreeError) {
        let publicKey: [UInt8]
        do { publicKey = try suite.kem.publicKey(privateKey: encryptionPrivateKey) } catch { throw .crypto(error) }
        self.init(suite: suite, leafIndex: leafIndex,
                  leafKeyPair: HPKEKeyPair(privateKey: encryptionPrivateKey, publicKey: publicKey))
    }

    public var leafNodeIndex: UInt32 { 2 * leafIndex }

    public func keyPair(at nodeIndex: UInt32) -> HPKEKeyPair? { keys[nodeIndex] }

    /// RFC 9420 §7.4: node_secret = DeriveSecret(path_secret, "node"), key pair = DeriveKeyPair(node_secret).
    public static func nodeKeyPair(suite: CipherSuite, pathSecret: [UInt8]) throws(TreeError) -> HPKEKeyPair {
        do {
            return try suite.deriveKeyPair(try suite.deriveSecret(secret: pathSecret, label: "node"))
        } catch {
            throw .crypto(error)
        }
    }

    /// DeriveSecret(path_secret, "path"): the next node's path secret, or the commit secret after the root.
    public static func nextPathSecret(suite: CipherSuite, _ pathSecret: [UInt8]) throws(TreeError) -> [UInt8] {
        do { return try suite.deriveSecret(secret: pathSecret, label: "path") } catch { throw .crypto(error) }
    }

    /// Sets the key of one parent node from its path secret.
    public mutating func setPathSecret(_ pathSecret: [UInt8], at nodeIndex: UInt32) throws(TreeError) {
        keys[nodeIndex] = try Self.nodeKeyPair(suite: suite, pathSecret: pathSecret)
    }

    mutating func setKeyPair(_ pair: HPKEKeyPair, at nodeIndex: UInt32) { keys[nodeIndex] = pair }

    mutating func removeKey(at nodeIndex: UInt32) { keys[nodeIndex] = nil }

    /// RFC 9420 §12.4.3.1 (joining): a path secret for `nodeIndex` from a Welcome; this node and every
    /// non-blank node above it get keys, each from the previous node's next path secret, and each
    /// must match the tree. Returns the commit secret.
    @discardableResult
    public mutating func applyPathSecret(
        _ pathSecret: [UInt8], at nodeIndex: UInt32, tree: PublicRatchetTree
    ) throws(TreeError) -> [UInt8] {
        var secret = pathSecret
        var path = [nodeIndex]
        path += (TreeMath.directPath(nodeIndex, leafCount: tree.leafCount) ?? []).filter { !tree.isBlank($0) }
        for x in path {
            let pair = try Self.nodeKeyPair(suite: suite, pathSecret: secret)
            guard tree.encryptionKey(at: x) == pair.publicKey else { throw .publicKeyMismatch(node: x) }
            keys[x] = pair
            secret = try Self.nextPathSecret(suite: suite, secret)
        }
        return secret
    }

    /// Every key held belongs to a non-blank node of `tree` with the same public key.
    public func checkConsistency(with tree: PublicRatchetTree) throws(TreeError) {
        guard leafIndex < tree.leafCount, keys[leafNodeIndex] != nil else { throw .leafIndexOutOfRange(leafIndex) }
        for (x, pair) in keys where tree.encryptionKey(at: x) != pair.publicKey {
            throw .publicKeyMismatch(node: x)
        }
    }

    /// Drops keys of nodes that are now blank, gone, or hold another public key (after proposals blank
    /// or truncate the tree).
    public mutating func prune(to tree: PublicRatchetTree) {
        keys = keys.filter { tree.encryptionKey(at: $0.key) == $0.value.publicKey }
    }
}

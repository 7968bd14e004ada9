import Primitives

/// Which of a leaf's two ratchets (RFC 9420 §9.1).
public enum RatchetType: Sendable, Hashable {
    case handshake, application

    var label: String {
        switch self {
        case .handshake: "handshake"
        case .application: "application"
        }
    }
}

/// The secret tree of an epoch (RFC 9420 §9). Node secrets are derived lazily from the root down,
/// and each is deleted as soon as its children (or, at a leaf, its two ratchets) exist.
public struct SecretTree: Sendable, CustomStringConvertible {
    public let suite: CipherSuite
    public let leafCount: UInt32
    public let window: RatchetWindow
    /// Secrets of nodes whose children have not been derived yet.
    private var nodeSecrets: [UInt32: [UInt8]]
    private var ratchets: [UInt32: [RatchetType: SenderRatchet]] = [:]

    /// `leafCount` must be a power of two (RFC 9420 §7.8).
    public init(
        suite: CipherSuite, encryptionSecret: [UInt8], leafCount: UInt32, window: RatchetWindow = .default
    ) throws(ScheduleError) {
        guard let root = TreeMath.root(leafCount: leafCount) else { throw .invalidLeaf(leafCount) }
        self.suite = suite
        self.leafCount = leafCount
        self.window = window
        nodeSecrets = [root: encryptionSecret]
    }

    public var description: String { "SecretTree(leaves: \(leafCount))" }

    /// Sender side: the next key and nonce of `leaf`'s ratchet.
    public mutating func next(leaf: UInt32, type: RatchetType) throws(ScheduleError) -> RatchetKeyNonce {
        var ratchet = try takeRatchet(leaf: leaf, type: type)
        defer { ratchets[leaf, default: [:]][type] = ratchet }
        return try ratchet.next()
    }

    /// Receiver side: the key and nonce for `generation` of `leaf`'s ratchet, consumed on return.
    public mutating func keyNonce(
        leaf: UInt32, type: RatchetType, generation: UInt32
    ) throws(ScheduleError) -> RatchetKeyNonce {
        var ratchet = try takeRatchet(leaf: leaf, type: type)
        defer { ratchets[leaf, default: [:]][type] = ratchet }
        return try ratchet.keyNonce(for: generation)
    }

    /// The ratchet's next generation, for callers that track where a sender stands.
    public mutating func currentGeneration(leaf: UInt32, type: RatchetType) throws(ScheduleError) -> UInt32 {
        try takeRatchet(leaf: leaf, type: type).generation
    }

    private mutating func takeRatchet(leaf: UInt32, type: RatchetType) throws(ScheduleError) -> SenderRatchet {
        if let ratchet = ratchets[leaf]?[type] { return ratchet }
        try deriveLeaf(leaf)
        guard let ratchet = ratchets[leaf]?[type] else { throw .invalidLeaf(leaf) }
        return ratchet
    }

    /// Walks down from the lowest stored ancestor, splitting each node into its two children
    /// (RFC 9420 §9: left/right via ExpandWithLabel "tree"), then starts the leaf's ratchets.
    private mutating func deriveLeaf(_ leaf: UInt32) throws(ScheduleError) {
        guard leaf < leafCount, let node = TreeMath.nodeIndex(leaf: leaf),
              let path = TreeMath.directPath(node, leafCount: leafCount) else { throw .invalidLeaf(leaf) }
        // The stored ancestor nearest the leaf: every node on the path below it is derived here.
        guard let start = ([node] + path).firstIndex(where: { nodeSecrets[$0] != nil }) else {
            throw .invalidLeaf(leaf)
        }
        let chain = Array(([node] + path)[...start].reversed())
        do {
            for parent in chain.dropLast() {
                guard var secret = nodeSecrets.removeValue(forKey: parent),
                      let left = TreeMath.left(parent), let right = TreeMath.right(parent) else { throw ScheduleError.invalidLeaf(leaf) }
                nodeSecrets[left] = try suite.expandWithLabel(secret: secret, label: "tree", context: Array("left".utf8), length: suite.nh)
                nodeSecrets[right] = try suite.expandWithLabel(secret: secret, label: "tree", context: Array("right".utf8), length: suite.nh)
                ConstantTime.wipe(&secret)
            }
            guard var leafSecret = nodeSecrets.removeValue(forKey: node) else { throw ScheduleError.invalidLeaf(leaf) }
            var pair: [RatchetType: SenderRatchet] = [:]
            for type in [RatchetType.handshake, .application] {
                let secret = try suite.expandWithLabel(secret: leafSecret, label: type.label, context: [], length: suite.nh)
                pair[type] = SenderRatchet(suite: suite, secret: secret, window: window)
            }
            ConstantTime.wipe(&leafSecret)
            ratchets[leaf] = pair
        } catch let error as ScheduleError {
            throw error
        } catch let error as CryptoError {
            throw .crypto(error)
        } catch {
            throw .invalidLeaf(leaf)
        }
    }
}

import Primitives

/// Creating a group (RFC 9420 §11).
extension Group {
    /// A one-member group at epoch 0: the creator's leaf, a random init_secret, an empty confirmed
    /// transcript hash and the interim hash from epoch 0's confirmation tag. `groupID` is 32 random
    /// bytes unless given.
    public static func create(
        suite: CipherSuite, credential: Credential, signingKey: SignaturePrivateKey, groupID: [UInt8]? = nil,
        extensions: [Extension] = [], capabilities: Capabilities? = nil, leafExtensions: [Extension] = [],
        lifetime: Lifetime = Lifetime(notBefore: 0, notAfter: .max), configuration: GroupConfiguration = .default
    ) throws(GroupError) -> Group {
        guard signingKey.scheme == suite.signatureScheme else { throw .cipherSuiteMismatch }
        try GroupState.checkContextExtensions(extensions)
        do {
            let leafPair = try suite.generateHPKEKeyPair()
            var leaf = LeafNode(
                encryptionKey: leafPair.publicKey, signatureKey: signingKey.publicKey.bytes, credential: credential,
                capabilities: capabilities ?? defaultCapabilities(suite: suite), leafNodeSource: .keyPackage(lifetime),
                extensions: leafExtensions)
            leaf.signature = try suite.signWithLabel(signingKey, label: "LeafNodeTBS", content: leaf.tbs().encoded())
            let tree = PublicRatchetTree(suite: suite, creator: leaf)
            let context = GroupContext(
                cipherSuite: suite.rawValue, groupID: groupID ?? SecureRandom.bytes(32), epoch: 0, treeHash: tree.treeHash,
                confirmedTranscriptHash: [], extensions: extensions)
            try checkCapabilitiesForCreate(tree: tree, extensions: extensions)
            let secrets = try EpochSecrets(
                suite: suite, initSecret: SecureRandom.bytes(suite.nh), commitSecret: nil, pskSecret: nil,
                groupContext: context.encoded())
            let tag = try suite.mac(key: secrets.confirmationKey, data: context.confirmedTranscriptHash)
            let hashes = TranscriptHashes.fromConfirmed(suite: suite, confirmed: [], confirmationTag: tag)
            let state = GroupState(suite: suite, context: context, tree: tree, interimTranscriptHash: hashes.interim)
            return try Group(
                state: state, ownLeaf: 0, configuration: configuration, epochSecrets: secrets, pskSecret: nil,
                privateTree: TreePrivateState(suite: suite, leafIndex: 0, leafKeyPair: leafPair), signingKey: signingKey,
                externalPSKs: [:], resumptionPSKs: [])
        } catch let error as GroupError {
            throw error
        } catch let error as CryptoError {
            throw .crypto(error)
        } catch {
            throw .invalidProposal(.groupContextExtensions, "\(error)")
        }
    }

    private static func checkCapabilitiesForCreate(tree: PublicRatchetTree, extensions: [Extension]) throws(GroupError) {
        try GroupState.checkCapabilities(
            of: tree, extensions: extensions, required: try GroupState.requiredCapabilities(in: extensions), checkExtensions: true)
    }
}

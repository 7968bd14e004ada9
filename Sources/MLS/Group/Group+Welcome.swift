import Primitives

/// Joining from a Welcome (RFC 9420 §12.4.3.1).
extension Group {
    /// Decrypts the Welcome with the KeyPackage's init key, imports and validates the tree (from the
    /// ratchet_tree extension or `ratchetTree`), checks the GroupInfo signature and confirmation tag
    /// through the key schedule (with any PSKs), finds this member's leaf and sets its tree keys
    /// from the path secret. `externalPSKs` maps psk_id to secret.
    public static func join(
        welcome: Welcome, keyPackage bundle: KeyPackageBundle, ratchetTree: RatchetTree? = nil,
        externalPSKs: [[UInt8]: [UInt8]] = [:], configuration: GroupConfiguration = .default
    ) throws(GroupError) -> Group {
        let decrypted: DecryptedWelcome
        do {
            decrypted = try welcome.decrypt(
                keyPackage: bundle.keyPackage, initPrivateKey: bundle.initPrivateKey,
                psk: { id in if case .external(let pskID) = id.kind { externalPSKs[pskID] } else { nil } })
        } catch .missingPSK(let id) {
            throw .missingPSK(id)
        } catch {
            throw .welcome(error)
        }
        let suite = decrypted.suite
        let groupInfo = decrypted.groupInfo
        guard groupInfo.groupContext.version == .mls10 else { throw .invalidGroupInfo("protocol version") }
        let tree = try PublicGroup.importTree(groupInfo: groupInfo, ratchetTree: ratchetTree, suite: suite, limits: .unlimited)
        guard let signer = tree.leafNode(at: groupInfo.signer) else { throw .invalidGroupInfo("signer is not a member") }
        let secrets: EpochSecrets
        do { secrets = try decrypted.verify(signerPublicKey: signer.signatureKey) } catch { throw .welcome(error) }

        let ownNode = bundle.keyPackage.leafNode
        guard let ownLeaf = (0..<tree.leafCount).first(where: { tree.leafNode(at: $0) == ownNode }) else {
            throw .notAMember
        }
        var privateTree: TreePrivateState
        do {
            privateTree = try TreePrivateState(suite: suite, leafIndex: ownLeaf, encryptionPrivateKey: bundle.encryptionPrivateKey)
            if let pathSecret = decrypted.groupSecrets.pathSecret {
                // The path secret belongs to the lowest common ancestor of our leaf and the signer's.
                let ancestor = TreeMath.commonAncestor(2 * ownLeaf, 2 * groupInfo.signer)
                try privateTree.applyPathSecret(pathSecret.pathSecret, at: ancestor, tree: tree)
            }
            try privateTree.checkConsistency(with: tree)
        } catch {
            throw .tree(error)
        }
        let hashes = decrypted.transcriptHashes
        let state = GroupState(suite: suite, context: groupInfo.groupContext, tree: tree, interimTranscriptHash: hashes.interim)
        return try Group(
            state: state, ownLeaf: ownLeaf, configuration: configuration, epochSecrets: secrets,
            pskSecret: decrypted.pskSecret, privateTree: privateTree, signingKey: bundle.signingKey,
            externalPSKs: externalPSKs, resumptionPSKs: [])
    }

    /// The same from an MLSMessage carrying the Welcome.
    public static func join(
        welcome message: MLSMessage, keyPackage bundle: KeyPackageBundle, ratchetTree: RatchetTree? = nil,
        externalPSKs: [[UInt8]: [UInt8]] = [:], configuration: GroupConfiguration = .default
    ) throws(GroupError) -> Group {
        guard case .welcome(let welcome) = message.body else { throw .unexpectedMessage("not a Welcome") }
        return try join(welcome: welcome, keyPackage: bundle, ratchetTree: ratchetTree, externalPSKs: externalPSKs,
                        configuration: configuration)
    }
}

import MLS

extension SealedCommitError {
    /// The XRPC answer to a sealed commit the verifier refused: 400 InvalidGroupInfo when the GroupInfo
    /// itself (its context, signature, signer or tree) is not the next epoch's, 400 InvalidCommit when
    /// the change it shows is not one the commit may make. Each message names the rule and its RFC
    /// 9420 section (docs/sealed-commits.md, "Every check, in order"); never secrets or payloads.
    var xrpcError: XRPCError {
        switch self {
        case .wrongGroupID: XRPCError(400, .invalidGroupInfo, "sealed commit: the GroupInfo is for another group (§12.4.3.1)")
        case .wrongEpoch(let expected, let actual):
            XRPCError(400, .invalidCommit, "sealed commit: made in epoch \(actual), the group is at \(expected) (§6.3)")
        case .unexpectedContentType(let type):
            XRPCError(400, .invalidCommit, "sealed commit: the PrivateMessage's content type is \(type.rawValue), not commit (§6.3)")
        case .notSealed: XRPCError(400, .invalidCommit, "a PublicMessage commit is validated in full, not through its GroupInfo")
        case .groupInfoMismatch(let what): XRPCError(400, .invalidGroupInfo, "sealed commit: the GroupInfo's \(what) is not the group's (§12.4.3.1, §8.2)")
        case .epochNotNext(let expected, let actual):
            XRPCError(400, .invalidGroupInfo, "sealed commit: the GroupInfo is of epoch \(actual), not the next one, \(expected) (§8.1)")
        case .treeHashMismatch:
            XRPCError(400, .invalidGroupInfo, "sealed commit: the new tree's hash is not the GroupContext's tree_hash (§7.8, §12.4.3.1)")
        case .signerNotAMember(let leaf):
            XRPCError(400, .invalidGroupInfo, "sealed commit: the GroupInfo's signer (leaf \(leaf)) is not a member of the current epoch "
                      + "holding the same credential in the new tree (§12.4.3.1)")
        case .invalidGroupInfoSignature:
            XRPCError(400, .invalidGroupInfo, "sealed commit: the GroupInfo's signature does not verify with its signer's leaf key (§12.4.3.1)")
        case .invalidTree(let error): XRPCError(400, .invalidGroupInfo, "sealed commit: the new tree is invalid: \(error) (§12.4.3.1, §7.9.2)")
        case .invalidGroupInfo(let error):
            XRPCError(400, .invalidGroupInfo, "sealed commit: \(error.clientDescription) (the GroupInfo must carry the ratchet_tree extension)")
        case .leafChanged(let leaf):
            XRPCError(400, .invalidCommit, "sealed commit: leaf \(leaf), another member's, changed; only its owner may replace it "
                      + "(an Update the service cannot see in a sealed commit, §12.1.2)")
        case .unexpectedLeaf(let leaf):
            XRPCError(400, .invalidCommit, "sealed commit: leaf \(leaf) appears without being a KeyPackage's leaf (§12.1.1)")
        case .committerLeaf(let why): XRPCError(400, .invalidCommit, "sealed commit: the committer's leaf: \(why) (§7.3, §12.4.2)")
        case .addedLeafMisplaced(let leaf):
            XRPCError(400, .invalidCommit, "sealed commit: added leaf \(leaf) is not at the leftmost blank leaf (§7.7, §12.1.1)")
        case .invalidParentHash(let node):
            XRPCError(400, .invalidCommit, "sealed commit: node \(node) on the committer's path has a parent_hash the path does not yield (§7.9.2)")
        case .committerPath(let node):
            XRPCError(400, .invalidCommit, "sealed commit: node \(node) of the committer's filtered direct path is blank or has unmerged leaves (§7.5)")
        case .parentChangedOffPath(let node):
            XRPCError(400, .invalidCommit, "sealed commit: parent node \(node) changed off the committer's path (§7.5, §12.1.1, §12.1.3)")
        case .pathRequired: XRPCError(400, .invalidCommit, "sealed commit: removals or new extensions need the committer's path (§12.4)")
        case .invalidExternalJoin(let why): XRPCError(400, .invalidCommit, "external commit: \(why) (§12.4.3.2)")
        case .addedLeafExpired(let leaf): XRPCError(400, .invalidCommit, "sealed commit: added leaf \(leaf)'s lifetime is over (§7.3)")
        case .unsupportedExtensions(let why): XRPCError(400, .invalidCommit, "sealed commit: GroupContext extensions: \(why) (§12.1.7, §11.1)")
        case .invalidCommit(let error): XRPCError(400, .invalidCommit, error.clientDescription)
        case .keyPackageMismatch(let leaf):
            XRPCError(400, .invalidCommit, "sealed commit: added leaf \(leaf) is not the leaf node of the KeyPackage found for it (§12.1.1)")
        }
    }
}

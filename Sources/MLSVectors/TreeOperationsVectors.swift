import MLS

/// tree-operations.json: an Add, Update or Remove applied to a tree must give `tree_after` byte for
/// byte, with both tree hashes (RFC 9420 §7.7, §7.8, §12.1).
public enum TreeOperationsVectors {
    public static func check(_ testCase: [String: Any]) throws {
        let suite = try VectorSuite.suite(testCase)
        let before = try RatchetTree(decoding: try VectorJSON.hex(testCase, "tree_before"))
        var tree = try PublicRatchetTree(suite: suite, tree: before)
        try VectorJSON.expect(tree.treeHash, try VectorJSON.hex(testCase, "tree_hash_before"), "tree_hash_before")

        let proposal = try Proposal(decoding: try VectorJSON.hex(testCase, "proposal"))
        let sender = UInt32(try VectorJSON.int(testCase, "proposal_sender"))
        try tree.apply(proposal, sender: sender)

        let after = try VectorJSON.hex(testCase, "tree_after")
        try VectorJSON.expect(tree.ratchetTree.encoded(), after, "tree_after")
        try VectorJSON.expect(tree.treeHash, try VectorJSON.hex(testCase, "tree_hash_after"), "tree_hash_after")
        // The incrementally maintained hashes must equal those of a fresh import.
        let reimported = try PublicRatchetTree(suite: suite, tree: try RatchetTree(decoding: after))
        try VectorJSON.expect(tree.treeHash, reimported.treeHash, "tree hash after re-import")
    }
}

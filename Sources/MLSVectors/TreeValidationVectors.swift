import Foundation
import MLS

/// tree-validation.json: resolution and tree hash of every node, parent-hash chains and leaf
/// signatures of an imported tree (RFC 9420 §4.1.1, §7.8, §7.9.2, §12.4.3.1). The full
/// `validate` also runs key uniqueness, credential and unmerged-leaf checks.
public enum TreeValidationVectors {
    public static func check(_ testCase: [String: Any]) throws {
        let suite = try VectorSuite.suite(testCase)
        let wire = try RatchetTree(decoding: try VectorJSON.hex(testCase, "tree"))
        let tree = try PublicRatchetTree(suite: suite, tree: wire)
        try VectorJSON.expect(tree.ratchetTree, wire, "re-serialised tree")

        guard let resolutions = try VectorJSON.array(testCase, "resolutions") as? [[NSNumber]] else {
            throw VectorMismatch("resolutions is not an array of arrays")
        }
        let hashes = try VectorJSON.array(testCase, "tree_hashes")
        try VectorJSON.expect(resolutions.count, Int(tree.nodeWidth), "node count")
        try VectorJSON.expect(hashes.count, Int(tree.nodeWidth), "tree hash count")
        for x in 0..<tree.nodeWidth {
            let expected = resolutions[Int(x)].map { UInt32(truncating: $0) }
            try VectorJSON.expect(tree.resolution(of: x), expected, "resolution of node \(x)")
            guard let hex = hashes[Int(x)] as? String else { throw VectorMismatch("tree_hashes[\(x)] is not hex") }
            try VectorJSON.expect(tree.treeHash(of: x), try VectorJSON.bytes(fromHex: hex), "tree hash of node \(x)")
        }
        try tree.verifyParentHashes()
        try tree.validate(groupID: try VectorJSON.hex(testCase, "group_id"), expectedTreeHash: tree.treeHash(of: tree.root))
    }
}

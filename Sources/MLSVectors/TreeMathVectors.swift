import Foundation
import MLS

/// tree-math.json: RFC 9420 Appendix C over complete trees.
public enum TreeMathVectors {
    public static func check(_ testCase: [String: Any]) throws {
        let leafCount = UInt32(try VectorJSON.int(testCase, "n_leaves"))
        let nodeCount = UInt32(try VectorJSON.int(testCase, "n_nodes"))
        try VectorJSON.expect(TreeMath.nodeWidth(leafCount: leafCount), nodeCount, "n_nodes")
        try VectorJSON.expect(TreeMath.root(leafCount: leafCount), UInt32(try VectorJSON.int(testCase, "root")), "root")
        let fields: [(String, (UInt32) -> UInt32?)] = [
            ("left", { TreeMath.left($0) }),
            ("right", { TreeMath.right($0) }),
            ("parent", { TreeMath.parent($0, leafCount: leafCount) }),
            ("sibling", { TreeMath.sibling($0, leafCount: leafCount) }),
        ]
        for (name, function) in fields {
            let expected = try VectorJSON.array(testCase, name)
            try VectorJSON.expect(expected.count, Int(nodeCount), "\(name) count")
            for (node, value) in expected.enumerated() {
                let want = (value as? NSNumber).map { UInt32(truncating: $0) }
                try VectorJSON.expect(function(UInt32(node)), want, "\(name)[\(node)]")
            }
        }
    }
}

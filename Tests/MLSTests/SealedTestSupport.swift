import MLS
import XCTest

/// Members under OpenMLS's pure-ciphertext policy, whose signature keys the tests keep so that they
/// can sign what a dishonest committer could sign.
enum SealedFixtures {
    static let sealed = GroupConfiguration(wireFormatPolicy: .pureCiphertext)

    static func credential(_ name: String) -> Credential { .basic(identity: Array(name.utf8)) }

    static func create(_ name: String, suite: CipherSuite, configuration: GroupConfiguration = sealed) throws
        -> (group: Group, signingKey: SignaturePrivateKey) {
        let key = try GroupFixtures.signer(suite)
        return (try Group.create(suite: suite, credential: credential(name), signingKey: key, configuration: configuration), key)
    }

    static func join(_ output: CommitOutput, _ bundle: KeyPackageBundle, configuration: GroupConfiguration = sealed) throws -> Group {
        try Group.join(welcome: try XCTUnwrap(output.welcome), keyPackage: bundle, configuration: configuration)
    }

    static func privateMessage(_ message: MLSMessage, file: StaticString = #filePath, line: UInt = #line) throws -> PrivateMessage {
        guard case .privateMessage(let sealed) = message.body else {
            XCTFail("not a PrivateMessage", file: file, line: line)
            throw GroupError.unexpectedMessage("test")
        }
        return sealed
    }

    /// The members agree on the epoch, the GroupContext, the tree and an exporter secret, and the
    /// service's public state (if given) on the same GroupContext, tree, interim transcript hash
    /// and member list.
    static func assertAgree(_ groups: [Group], _ observer: PublicGroup?, file: StaticString = #filePath, line: UInt = #line) throws {
        guard let first = groups.first else { return }
        let secret = try first.exportSecret(label: "sealed", context: [7], length: 32)
        for group in groups {
            XCTAssertEqual(group.epoch, first.epoch, file: file, line: line)
            XCTAssertEqual(group.groupContext, first.groupContext, file: file, line: line)
            XCTAssertEqual(group.tree, first.tree, file: file, line: line)
            XCTAssertEqual(try group.exportSecret(label: "sealed", context: [7], length: 32), secret, file: file, line: line)
        }
        guard let observer else { return }
        XCTAssertEqual(observer.groupContext, first.groupContext, file: file, line: line)
        XCTAssertEqual(observer.tree, first.tree, file: file, line: line)
        XCTAssertEqual(observer.interimTranscriptHash, first.state.interimTranscriptHash, file: file, line: line)
        XCTAssertEqual(observer.members, first.members, file: file, line: line)
    }
}

/// Changes to a GroupInfo a dishonest committer could make and sign: a different tree (its hash put
/// into the GroupContext) or context, signed again by `signingKey` as leaf `signer`.
struct GroupInfoForgery {
    var groupInfo: GroupInfo
    let suite: CipherSuite

    init(_ groupInfo: GroupInfo, suite: CipherSuite) {
        self.groupInfo = groupInfo
        self.suite = suite
    }

    var tree: RatchetTree {
        get throws { try XCTUnwrap(groupInfo.extensions.first(ofType: .ratchetTree)).decodeRatchetTree() }
    }

    /// Replaces the tree and the GroupContext's tree_hash with the new tree's.
    mutating func setTree(_ tree: RatchetTree) throws {
        groupInfo.extensions = groupInfo.extensions.filter { $0.extensionType != .ratchetTree } + [.ratchetTree(tree)]
        groupInfo.groupContext.treeHash = try PublicRatchetTree(suite: suite, tree: tree).treeHash
    }

    /// Edits node `index` of the tree (keeping the hash consistent).
    mutating func editNode(_ index: Int, _ edit: (inout Node?) throws -> Void) throws {
        var wire = try tree
        while wire.nodes.count <= index { wire.nodes.append(nil) }
        try edit(&wire.nodes[index])
        try setTree(wire)
    }

    /// Edits the parent node at node index `index`, which must be one.
    mutating func editParent(_ index: Int, _ edit: (inout ParentNode) -> Void) throws {
        try editNode(index) { node in
            guard case .parent(var parent) = node else { throw GroupError.unexpectedMessage("no parent node at \(index)") }
            edit(&parent)
            node = .parent(parent)
        }
    }

    /// Edits the leaf node at node index `index`, which must be one.
    mutating func editLeaf(_ index: Int, _ edit: (inout LeafNode) throws -> Void) throws {
        try editNode(index) { node in
            guard case .leaf(var leaf) = node else { throw GroupError.unexpectedMessage("no leaf node at \(index)") }
            try edit(&leaf)
            node = .leaf(leaf)
        }
    }

    func signed(by key: SignaturePrivateKey, as signer: UInt32? = nil) throws -> GroupInfo {
        var info = groupInfo
        if let signer { info.signer = signer }
        try info.sign(with: key, suite: suite)
        return info
    }
}

extension LeafNode {
    /// Signs the leaf for its place in a group (RFC 9420 §7.2: update and commit leaves bind both).
    mutating func resign(with key: SignaturePrivateKey, suite: CipherSuite, groupID: [UInt8], leaf: UInt32) throws {
        signature = try suite.signWithLabel(key, label: "LeafNodeTBS", content: tbs(groupID: groupID, leafIndex: leaf).encoded())
    }
}

import MLS
import Primitives

/// UpdatePath mutants (RFC 9420 §7.5, §7.6, §12.4.2): the leaf (re-signed by the committer), the
/// path nodes, and each HPKE ciphertext dropped, repeated, reordered, moved or altered.
extension CommitScenario {
    /// The committer's leaf index in the new tree (for an external commit, the joiner's leaf).
    var committerLeaf: UInt32 {
        switch committer {
        case .member(let output): output.group.ownLeaf
        case .external(let output): output.group.ownLeaf
        }
    }

    func pathMutants(_ list: inout MutantList) throws {
        guard let path = originalCommit.path else { return }
        list.commit("path dropped") { $0.path = nil }
        try leafMutants(&list, path: path)
        nodeMutants(&list, path: path)
        ciphertextMutants(&list, path: path)
    }

    /// The path's LeafNode with one field changed, signed again with the committer's key over
    /// LeafNodeTBS (group_id, leaf_index) as the committer would; once not signed again.
    func leafMutants(_ list: inout MutantList, path: UpdatePath) throws {
        let leaf = path.leafNode
        let key = signers[leaf.signatureKey]
        let groupID = observer.groupID, index = committerLeaf
        func change(_ field: String, resign: Bool = true, signingKey: SignaturePrivateKey? = nil,
                    _ body: (inout LeafNode) throws -> Void) rethrows {
            var changed = leaf
            try body(&changed)
            if resign, let signer = signingKey ?? key {
                changed.signature = (try? suite.signWithLabel(
                    signer, label: "LeafNodeTBS", content: changed.tbs(groupID: groupID, leafIndex: index).encoded())) ?? []
            }
            list.commit("path.leaf_node \(field)") { $0.path?.leafNode = changed }
        }
        change("signature flipped", resign: false) { $0.signature = $0.signature.flipping(1) }
        try change("encryption_key fresh, not re-signed", resign: false) {
            $0.encryptionKey = try suite.generateHPKEKeyPair().publicKey
        }
        try change("encryption_key fresh") { $0.encryptionKey = try suite.generateHPKEKeyPair().publicKey }
        if case .member(let sender) = original.content.sender, let current = observer.tree.leafNode(at: sender) {
            change("encryption_key unchanged from the current leaf") { $0.encryptionKey = current.encryptionKey }
        }
        for member in observer.tree.members where member.leaf != committerLeaf {
            change("encryption_key of leaf \(member.leaf)") { $0.encryptionKey = member.node.encryptionKey }
        }
        if let first = path.nodes.first {
            change("encryption_key = path.nodes[0] key") { $0.encryptionKey = first.encryptionKey }
        }
        change("encryption_key zero") { $0.encryptionKey = [UInt8](repeating: 0, count: $0.encryptionKey.count) }
        change("encryption_key truncated") { $0.encryptionKey.removeLast() }
        let newSigner = try suite.signatureScheme.generatePrivateKey()
        change("signature_key rotated", signingKey: newSigner) { $0.signatureKey = newSigner.publicKey.bytes }
        if let other = observer.tree.members.first(where: { $0.leaf != committerLeaf })?.node {
            change("signature_key of another member") { $0.signatureKey = other.signatureKey }
        }
        change("credential renamed") { $0.credential = .basic(identity: Array("impostor".utf8)) }
        change("capabilities without basic credentials") { $0.capabilities.credentials = [] }
        change("capabilities without the suite") { $0.capabilities.cipherSuites = [] }
        change("leaf_node_source update") { $0.leafNodeSource = .update }
        change("leaf_node_source key_package") {
            $0.leafNodeSource = .keyPackage(Lifetime(notBefore: 0, notAfter: .max))
        }
        change("parent_hash flipped") {
            if case .commit(let hash) = $0.leafNodeSource { $0.leafNodeSource = .commit(parentHash: hash.flipping(0)) }
        }
        change("unsupported extension") {
            $0.extensions.append(Extension(extensionType: ExtensionType(rawValue: 0xff0e), extensionData: []))
        }
        change("application_id extension") { $0.extensions.append(.applicationID([7])) }
    }

    /// Path nodes dropped, repeated, reversed, and their keys swapped or replaced.
    func nodeMutants(_ list: inout MutantList, path: UpdatePath) {
        let nodes = path.nodes
        list.commit("path.nodes appended") { $0.path?.nodes.append(nodes.last ?? UpdatePathNode(encryptionKey: [], encryptedPathSecret: [])) }
        if nodes.count > 1 { list.commit("path.nodes reversed") { $0.path?.nodes.reverse() } }
        for index in nodes.indices {
            list.commit("path.nodes[\(index)] dropped") { $0.path?.nodes.remove(at: index) }
            list.commit("path.nodes[\(index)] repeated") { $0.path?.nodes.insert(nodes[index], at: index) }
            list.commit("path.nodes[\(index)] key = leaf key") { $0.path?.nodes[index].encryptionKey = path.leafNode.encryptionKey }
            list.commit("path.nodes[\(index)] key zero") {
                $0.path?.nodes[index].encryptionKey = [UInt8](repeating: 0, count: nodes[index].encryptionKey.count)
            }
            list.commit("path.nodes[\(index)] key fresh") {
                $0.path?.nodes[index].encryptionKey = (try? suite.generateHPKEKeyPair().publicKey) ?? []
            }
            if let member = observer.tree.members.first(where: { $0.leaf != committerLeaf }) {
                list.commit("path.nodes[\(index)] key of leaf \(member.leaf)") {
                    $0.path?.nodes[index].encryptionKey = member.node.encryptionKey
                }
            }
            if index + 1 < nodes.count {
                list.commit("path.nodes[\(index)] and [\(index + 1)] keys swapped") {
                    $0.path?.nodes[index].encryptionKey = nodes[index + 1].encryptionKey
                    $0.path?.nodes[index + 1].encryptionKey = nodes[index].encryptionKey
                }
            }
        }
    }

    /// Each HPKE ciphertext dropped, repeated, swapped with its neighbour, moved to the next node,
    /// truncated, extended, and its bytes or KEM output altered.
    func ciphertextMutants(_ list: inout MutantList, path: UpdatePath) {
        for (i, node) in path.nodes.enumerated() {
            let cts = node.encryptedPathSecret
            list.commit("path.nodes[\(i)] extra ciphertext") {
                $0.path?.nodes[i].encryptedPathSecret.append(cts.first ?? HPKECiphertext(kemOutput: [], ciphertext: []))
            }
            for (j, ct) in cts.enumerated() {
                let at = "path.nodes[\(i)].ciphertexts[\(j)]"
                func set(_ field: String, secret: Bool = false, _ body: (inout HPKECiphertext) -> Void) {
                    var changed = ct
                    body(&changed)
                    list.commit("\(at) \(field)", secret: secret) { $0.path?.nodes[i].encryptedPathSecret[j] = changed }
                }
                list.commit("\(at) dropped") { $0.path?.nodes[i].encryptedPathSecret.remove(at: j) }
                list.commit("\(at) repeated") { $0.path?.nodes[i].encryptedPathSecret.insert(ct, at: j) }
                if j + 1 < cts.count {
                    list.commit("\(at) swapped with the next", secret: true) { $0.path?.nodes[i].encryptedPathSecret.swapAt(j, j + 1) }
                }
                if i + 1 < path.nodes.count {
                    list.commit("\(at) moved to the next node") {
                        $0.path?.nodes[i].encryptedPathSecret.remove(at: j)
                        $0.path?.nodes[i + 1].encryptedPathSecret.append(ct)
                    }
                    if let other = path.nodes[i + 1].encryptedPathSecret.first {
                        list.commit("\(at) exchanged with the next node's first", secret: true) {
                            $0.path?.nodes[i].encryptedPathSecret[j] = other
                            $0.path?.nodes[i + 1].encryptedPathSecret[0] = ct
                        }
                    }
                }
                set("ciphertext truncated") { $0.ciphertext.removeLast() }
                set("ciphertext extended") { $0.ciphertext.append(0) }
                set("ciphertext flipped", secret: true) { $0.ciphertext = $0.ciphertext.flipping(4) }
                set("kem_output flipped", secret: true) { $0.kemOutput = $0.kemOutput.flipping(6, bit: 3) }
                set("kem_output zero") { $0.kemOutput = [UInt8](repeating: 0, count: $0.kemOutput.count) }
                set("kem_output empty") { $0.kemOutput = [] }
                set("kem_output fresh", secret: true) { $0.kemOutput = (try? suite.generateHPKEKeyPair().publicKey) ?? [] }
            }
        }
    }
}

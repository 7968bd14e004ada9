import Basics
import MLS
import Primitives

/// The mutation operators, field by field (RFC 9420 §6.2 framing, §12.1 proposals, §7.6 UpdatePath),
/// plus bit flips and truncations anywhere in the encoded message.
extension CommitScenario {
    /// Every structural mutant of this scenario's commit and `byteFlips` random bit flips.
    public func commitMutants(byteFlips: Int) throws -> [CommitMutant] {
        var list = MutantList(self)
        framingMutants(&list)
        try proposalMutants(&list)
        try keyPackageMutants(&list)
        try pathMutants(&list)
        rawMutants(&list, count: byteFlips)
        return list.items
    }

    /// The leaf indices a mutant may name: every leaf of the tree and one past it.
    var leafIndices: [UInt32] { Array(0...observer.tree.leafCount) }

    /// PublicMessage framing: FramedContent fields (re-signed), then signature and MACs as sent.
    func framingMutants(_ list: inout MutantList) {
        list.content("group_id flipped") { $0.groupID = $0.groupID.flipping(0) }
        list.content("group_id empty") { $0.groupID = [] }
        list.content("group_id extended") { $0.groupID.append(0) }
        list.content("epoch + 1") { $0.epoch += 1 }
        list.content("epoch - 1") { $0.epoch = $0.epoch &- 1 }
        list.content("epoch max") { $0.epoch = .max }
        for leaf in leafIndices { list.content("sender member(\(leaf))") { $0.sender = .member(leafIndex: leaf) } }
        list.content("sender external(0)") { $0.sender = .external(senderIndex: 0) }
        list.content("sender new_member_commit") { $0.sender = .newMemberCommit }
        list.content("sender new_member_proposal") { $0.sender = .newMemberProposal }
        list.content("authenticated_data set") { $0.authenticatedData = [0x42, 0x43] }
        list.content("content is a Remove proposal") { $0.content = .proposal(.remove(removed: 0)) }
        list.content("content is application data") { $0.content = .application([1, 2, 3]) }

        list.framed("signature flipped") { $0.auth.signature = $0.auth.signature.flipping(5) }
        list.framed("signature truncated") { $0.auth.signature.removeLast() }
        list.framed("signature empty") { $0.auth.signature = [] }
        list.framed("confirmation_tag flipped", secret: true) { $0.auth.confirmationTag = $0.auth.confirmationTag?.flipping(3) }
        list.framed("confirmation_tag truncated") { $0.auth.confirmationTag?.removeLast() }
        list.framed("confirmation_tag empty") { $0.auth.confirmationTag = [] }
        if case .member = original.content.sender {
            list.framed("membership_tag flipped", secret: true) { $0.membershipTag = $0.membershipTag?.flipping(7) }
            list.framed("membership_tag truncated") { $0.membershipTag?.removeLast() }
            list.framed("membership_tag empty") { $0.membershipTag = [] }
        }
        let encoded = MLSMessage(body: .publicMessage(original)).encoded()
        for version: UInt16 in [0, 2, 0xffff] {
            list.bytes("MLSMessage.version \(version)", [UInt8(version >> 8), UInt8(version & 0xff)] + encoded.dropFirst(2))
        }
        for format: UInt16 in [0, 2, 3, 4, 5, 0x8000] {
            list.bytes("MLSMessage.wire_format \(format)", Array(encoded.prefix(2)) + [UInt8(format >> 8), UInt8(format & 0xff)]
                       + encoded.dropFirst(4))
        }
    }

    /// Proposals dropped, repeated, moved, inserted inline, and Remove targets changed.
    func proposalMutants(_ list: inout MutantList) throws {
        let proposals = originalCommit.proposals
        for index in proposals.indices {
            list.commit("proposals[\(index)] dropped") { $0.proposals.remove(at: index) }
            list.commit("proposals[\(index)] repeated") { $0.proposals.append(proposals[index]) }
            list.commit("proposals[\(index)] moved last") { $0.proposals.append($0.proposals.remove(at: index)) }
            if case .proposal(.remove) = proposals[index] {
                for leaf in leafIndices {
                    list.commit("proposals[\(index)] Remove(\(leaf))") { $0.proposals[index] = .proposal(.remove(removed: leaf)) }
                }
            }
            if case .proposal(.externalInit(let kemOutput)) = proposals[index] {
                list.commit("ExternalInit kem_output flipped", secret: true) {
                    $0.proposals[index] = .proposal(.externalInit(kemOutput: kemOutput.flipping(9, bit: 2)))
                }
                list.commit("ExternalInit kem_output truncated") {
                    $0.proposals[index] = .proposal(.externalInit(kemOutput: Array(kemOutput.dropLast())))
                }
                list.commit("ExternalInit kem_output zero") {
                    $0.proposals[index] = .proposal(.externalInit(kemOutput: [UInt8](repeating: 0, count: kemOutput.count)))
                }
                list.commit("ExternalInit kem_output fresh", secret: true) {
                    $0.proposals[index] = .proposal(.externalInit(kemOutput: (try? suite.generateHPKEKeyPair().publicKey) ?? []))
                }
            }
        }
        if proposals.count > 1 { list.commit("proposals reversed") { $0.proposals.reverse() } }
        list.commit("proposals all dropped") { $0.proposals = [] }

        for (name, proposal) in try insertableProposals() {
            let secret = name.hasPrefix("PSK") || name == "ExternalInit"
            list.commit("inline \(name) added", secret: secret) { $0.proposals.append(.proposal(proposal)) }
            list.commit("inline \(name) alone", secret: secret) { $0.proposals = [.proposal(proposal)] }
        }
        list.commit("reference to an unknown proposal") { $0.proposals.append(.reference(SecureRandom.bytes(suite.nh))) }
        for cached in observer.pendingProposals {
            list.commit("reference repeated") { $0.proposals.append(.reference(cached.ref)) }
            list.commit("pending proposal inline") { $0.proposals.append(.proposal(cached.proposal)) }
        }
    }

    /// Proposals of every type, valid and not, that a committer might slip into its commit.
    func insertableProposals() throws -> [(String, Proposal)] {
        var result: [(String, Proposal)] = []
        for leaf in leafIndices { result.append(("Remove(\(leaf))", .remove(removed: leaf))) }
        if let member = observer.tree.members.last?.node { result.append(("Update(existing leaf)", .update(member))) }
        let fresh = try KeyPackageBundle.generate(
            suite: suite, credential: .basic(identity: Array("mallory".utf8)),
            signingKey: try suite.signatureScheme.generatePrivateKey(),
            lifetime: Lifetime(notBefore: now - 60, notAfter: now + 86_400))
        result.append(("Add(fresh KeyPackage)", .add(fresh.keyPackage)))
        let nonce = SecureRandom.bytes(suite.nh)
        result.append(("PSK(unknown external)", .preSharedKey(PreSharedKeyID(kind: .external(pskID: [1, 2, 3]), pskNonce: nonce))))
        result.append(("PSK(resumption of this epoch)", .preSharedKey(PreSharedKeyID(
            kind: .resumption(usage: .application, pskGroupID: observer.groupID, pskEpoch: observer.epoch), pskNonce: nonce))))
        result.append(("bad PSK nonce", .preSharedKey(PreSharedKeyID(kind: .external(pskID: [9]), pskNonce: [1]))))
        result.append(("ReInit", .reInit(ReInit(groupID: SecureRandom.bytes(16), cipherSuite: suite.rawValue))))
        result.append(("ReInit older version", .reInit(ReInit(groupID: [1], version: ProtocolVersion(rawValue: 0), cipherSuite: suite.rawValue))))
        result.append(("ExternalInit", .externalInit(kemOutput: try suite.generateHPKEKeyPair().publicKey)))
        result.append(("GroupContextExtensions(none)", .groupContextExtensions([])))
        result.append(("GroupContextExtensions(required_capabilities malformed)",
                       .groupContextExtensions([Extension(extensionType: .requiredCapabilities, extensionData: [0x05, 0x00])])))
        result.append(("GroupContextExtensions(required_capabilities trailing byte)",
                       .groupContextExtensions([Extension(extensionType: .requiredCapabilities,
                                                          extensionData: RequiredCapabilities().encoded() + [0])])))
        result.append(("GroupContextExtensions(required unsupported extension)",
                       .groupContextExtensions([.requiredCapabilities(RequiredCapabilities(extensionTypes: [ExtensionType(rawValue: 0xff0a)]))])))
        result.append(("GroupContextExtensions(unsupported extension)",
                       .groupContextExtensions([Extension(extensionType: ExtensionType(rawValue: 0xff0b), extensionData: [])])))
        result.append(("GroupContextExtensions(repeated type)",
                       .groupContextExtensions([.requiredCapabilities(RequiredCapabilities()), .requiredCapabilities(RequiredCapabilities())])))
        result.append(("GroupContextExtensions(external_senders malformed)",
                       .groupContextExtensions([Extension(extensionType: .externalSenders, extensionData: [0x03, 0x01])])))
        let sender = ExternalSender(signatureKey: try suite.signatureScheme.generatePrivateKey().publicKey.bytes,
                                    credential: .basic(identity: Array("ds".utf8)))
        result.append(("GroupContextExtensions(external_senders)", .groupContextExtensions([.externalSenders([sender])])))
        return result
    }

    /// Each field of each added KeyPackage, re-signed by its owner where the owner could, and once as sent.
    func keyPackageMutants(_ list: inout MutantList) throws {
        for (index, entry) in originalCommit.proposals.enumerated() {
            guard case .proposal(.add(let original)) = entry else { continue }
            let key = signers[original.leafNode.signatureKey]
            func add(_ field: String, resign: Bool = true, _ change: (inout KeyPackage) throws -> Void) rethrows {
                var changed = original
                try change(&changed)
                if resign, let key {
                    changed.leafNode.signature = (try? suite.signWithLabel(key, label: "LeafNodeTBS", content: changed.leafNode.tbs().encoded())) ?? []
                    try? changed.sign(with: key, suite: suite)
                }
                list.commit("proposals[\(index)] KeyPackage \(field)") { $0.proposals[index] = .proposal(.add(changed)) }
            }
            add("signature flipped", resign: false) { $0.signature = $0.signature.flipping(2) }
            add("leaf signature flipped", resign: false) { $0.leafNode.signature = $0.leafNode.signature.flipping(2) }
            add("version 0") { $0.version = ProtocolVersion(rawValue: 0) }
            add("other suite") { $0.cipherSuite = suite.rawValue == 1 ? 3 : 1 }
            add("init_key = encryption_key") { $0.initKey = $0.leafNode.encryptionKey }
            add("init_key invalid") { $0.initKey = [UInt8](repeating: 0, count: $0.initKey.count) }
            add("encryption_key invalid") { $0.leafNode.encryptionKey = [UInt8](repeating: 0, count: $0.leafNode.encryptionKey.count) }
            add("encryption_key truncated") { $0.leafNode.encryptionKey.removeLast() }
            if let member = observer.tree.members.first?.node {
                add("encryption_key of a member") { $0.leafNode.encryptionKey = member.encryptionKey }
            }
            try add("encryption_key fresh") { $0.leafNode.encryptionKey = try suite.generateHPKEKeyPair().publicKey }
            add("expired") { $0.leafNode.leafNodeSource = .keyPackage(Lifetime(notBefore: 0, notAfter: 1000)) }
            add("not yet valid") { $0.leafNode.leafNodeSource = .keyPackage(Lifetime(notBefore: now + 86_400, notAfter: now + 2 * 86_400)) }
            add("leaf source update", resign: false) { $0.leafNode.leafNodeSource = .update }
            add("capabilities without the suite") { $0.leafNode.capabilities.cipherSuites = [] }
            add("capabilities without basic credentials") { $0.leafNode.capabilities.credentials = [] }
            add("unsupported leaf extension") {
                $0.leafNode.extensions.append(Extension(extensionType: ExtensionType(rawValue: 0xff0c), extensionData: []))
            }
            add("credential renamed") { $0.leafNode.credential = .basic(identity: Array("impostor".utf8)) }
            add("KeyPackage extension") {
                $0.extensions.append(Extension(extensionType: ExtensionType(rawValue: 0xff0d), extensionData: [1]))
            }
        }
    }

    /// Random bit flips and truncations of the encoded commit, never framed again. A flip that only
    /// changes a MAC is secret-dependent.
    func rawMutants(_ list: inout MutantList, count: Int) {
        let encoded = MLSMessage(body: .publicMessage(original)).encoded()
        var random = SplitMix64(seed: name + String(suite.rawValue))
        for _ in 0..<count {
            let position = random.below(encoded.count), bit = random.below(8)
            let flipped = encoded.flipping(position, bit: bit)
            list.bytes("byte \(position) bit \(bit) flipped", flipped, secret: onlyMACsDiffer(flipped))
        }
        for _ in 0..<max(1, count / 8) {
            let length = random.below(encoded.count)
            list.bytes("truncated to \(length) bytes", Array(encoded.prefix(length)))
        }
        list.bytes("trailing byte", encoded + [0])
    }

    /// True when `bytes` decode to the original commit but for its confirmation or membership tag.
    func onlyMACsDiffer(_ bytes: [UInt8]) -> Bool {
        guard let message = try? MLSMessage(decoding: bytes), case .publicMessage(let changed) = message.body else { return false }
        return changed.content == original.content && changed.auth.signature == original.auth.signature
    }
}

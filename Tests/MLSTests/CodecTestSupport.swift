import Foundation
import MLS
import MLSVectors
import XCTest

/// Shared helpers for the codec tests: sample structures, the messages.json cases, and assertions.
enum CodecFixtures {
    /// The vector folder: $MLS_TEST_VECTORS, else ../shared/mls-test-vectors beside the worktree.
    static var vectorDirectory: URL {
        if let path = ProcessInfo.processInfo.environment["MLS_TEST_VECTORS"] {
            return URL(fileURLWithPath: path)
        }
        return URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("shared/mls-test-vectors")
    }

    static func messagesCases() throws -> [[String: Any]] {
        let data = try Data(contentsOf: vectorDirectory.appendingPathComponent("messages.json"))
        guard let cases = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw VectorMismatch("messages.json is not an array of objects")
        }
        return cases
    }

    /// Decoders for every messages.json field, each returning the re-encoding of what it decoded.
    /// Unlike the vector check these ignore which wire format or content type came out, so a
    /// mutated but well-formed object still round-trips.
    static let decoders: [String: @Sendable ([UInt8]) throws -> [UInt8]] = {
        var table: [String: @Sendable ([UInt8]) throws -> [UInt8]] = [:]
        for name in ["mls_welcome", "mls_group_info", "mls_key_package", "public_message_application",
                     "public_message_proposal", "public_message_commit", "private_message"] {
            table[name] = { (b: [UInt8]) throws in try MLSMessage(decoding: b).encoded() }
        }
        table["ratchet_tree"] = { (b: [UInt8]) throws in try RatchetTree(decoding: b).encoded() }
        table["group_secrets"] = { (b: [UInt8]) throws in try GroupSecrets(decoding: b).encoded() }
        table["commit"] = { (b: [UInt8]) throws in try Commit(decoding: b).encoded() }
        let bodies: [(String, ProposalType)] = [
            ("add_proposal", .add), ("update_proposal", .update), ("remove_proposal", .remove),
            ("pre_shared_key_proposal", .psk), ("re_init_proposal", .reinit),
            ("external_init_proposal", .externalInit), ("group_context_extensions_proposal", .groupContextExtensions),
        ]
        for (name, type) in bodies {
            table[name] = { (b: [UInt8]) throws in
                try Proposal(type: type, decodingBody: b).encodedBody()
            }
        }
        return table
    }()

    static func credential() -> Credential { .basic(identity: Array("alice".utf8)) }

    static func capabilities() -> Capabilities {
        Capabilities(cipherSuites: [1, 0x3A3A], extensions: [.applicationID, ExtensionType(rawValue: 0x0A0A)],
                     proposals: [ProposalType(rawValue: 0x1A1A)], credentials: [.basic, CredentialType(rawValue: 0x2A2A)])
    }

    static func leafNode(source: LeafNodeSource = .keyPackage(Lifetime(notBefore: 1, notAfter: 2))) -> LeafNode {
        LeafNode(encryptionKey: [UInt8](repeating: 0xE1, count: 32), signatureKey: [UInt8](repeating: 0x51, count: 32),
                 credential: credential(), capabilities: capabilities(), leafNodeSource: source,
                 extensions: [Extension(extensionType: ExtensionType(rawValue: 0x4A4A), extensionData: [1, 2, 3])],
                 signature: [UInt8](repeating: 0x5A, count: 64))
    }

    static func keyPackage() -> KeyPackage {
        KeyPackage(cipherSuite: 1, initKey: [UInt8](repeating: 0x11, count: 32), leafNode: leafNode(),
                   extensions: [Extension(extensionType: ExtensionType(rawValue: 0x5A5A), extensionData: [])],
                   signature: [UInt8](repeating: 0x22, count: 64))
    }

    static func groupContext() -> GroupContext {
        GroupContext(cipherSuite: 1, groupID: Array("group".utf8), epoch: 7, treeHash: [UInt8](repeating: 0x77, count: 32),
                     confirmedTranscriptHash: [UInt8](repeating: 0x88, count: 32), extensions: [.applicationID([9])])
    }

    static func psk() -> PreSharedKeyID {
        PreSharedKeyID(kind: .resumption(usage: .application, pskGroupID: [1, 2], pskEpoch: 3), pskNonce: [4, 5, 6])
    }

    static func updatePath() -> UpdatePath {
        UpdatePath(leafNode: leafNode(source: .commit(parentHash: [0xAB, 0xCD])), nodes: [
            UpdatePathNode(encryptionKey: [1, 2, 3], encryptedPathSecret: [HPKECiphertext(kemOutput: [4], ciphertext: [5, 6])]),
        ])
    }

    static func allProposals() -> [Proposal] {
        [
            .add(keyPackage()),
            .update(leafNode(source: .update)),
            .remove(removed: 0x0102_0304),
            .preSharedKey(psk()),
            .preSharedKey(PreSharedKeyID(kind: .external(pskID: [7]), pskNonce: [8])),
            .reInit(ReInit(groupID: [1], cipherSuite: 2, extensions: [.externalPub([3])])),
            .externalInit(kemOutput: [UInt8](repeating: 0x44, count: 32)),
            .groupContextExtensions([.requiredCapabilities(RequiredCapabilities(extensionTypes: [.ratchetTree]))]),
        ]
    }

    static func commit() -> Commit {
        Commit(proposals: [.proposal(.remove(removed: 1)), .reference([UInt8](repeating: 0x33, count: 32))], path: updatePath())
    }

    static func framedContent(sender: Sender = .member(leafIndex: 1), content: Content) -> FramedContent {
        FramedContent(groupID: Array("group".utf8), epoch: 7, sender: sender, authenticatedData: [0xAD], content: content)
    }

    static func auth(for content: Content) -> FramedContentAuthData {
        FramedContentAuthData(signature: [UInt8](repeating: 0x99, count: 64),
                              confirmationTag: content.contentType == .commit ? [UInt8](repeating: 0xCC, count: 32) : nil)
    }

    /// One MLSMessage of every wire format.
    static func messages() -> [MLSMessage] {
        let commitContent = Content.commit(commit())
        let welcome = Welcome(cipherSuite: 1, secrets: [
            EncryptedGroupSecrets(newMember: [1, 2, 3], encryptedGroupSecrets: HPKECiphertext(kemOutput: [4], ciphertext: [5])),
        ], encryptedGroupInfo: [6, 7, 8])
        let groupInfo = GroupInfo(groupContext: groupContext(), extensions: [.ratchetTree(tree())],
                                  confirmationTag: [0xC0], signer: 0, signature: [0x51])
        return [
            MLSMessage(body: .publicMessage(PublicMessage(content: framedContent(content: commitContent),
                                                          auth: auth(for: commitContent), membershipTag: [0x3A]))),
            MLSMessage(body: .publicMessage(PublicMessage(content: framedContent(sender: .external(senderIndex: 2),
                                                                                 content: .proposal(.remove(removed: 3))),
                                                          auth: auth(for: .proposal(.remove(removed: 3)))))),
            MLSMessage(body: .privateMessage(PrivateMessage(groupID: [1], epoch: 2, contentType: .application,
                                                            authenticatedData: [3], encryptedSenderData: [4], ciphertext: [5]))),
            MLSMessage(body: .welcome(welcome)),
            MLSMessage(body: .groupInfo(groupInfo)),
            MLSMessage(body: .keyPackage(keyPackage())),
        ]
    }

    static func tree() -> RatchetTree {
        RatchetTree(nodes: [.leaf(leafNode()), .parent(ParentNode(encryptionKey: [1], parentHash: [2], unmergedLeaves: [2])),
                            nil, nil, .leaf(leafNode(source: .update))])
    }
}

/// Asserts `bytes` decodes, re-encodes to itself, and that every strict prefix throws.
func assertRoundTripAndTruncation<T: MLSCodable & Equatable>(
    _ value: T, file: StaticString = #filePath, line: UInt = #line
) {
    let bytes = value.encoded()
    do {
        let decoded = try T(decoding: bytes)
        XCTAssertEqual(decoded, value, "decoded value differs", file: file, line: line)
        XCTAssertEqual(decoded.encoded(), bytes, "re-encoding differs", file: file, line: line)
    } catch {
        XCTFail("\(T.self) did not decode: \(error)", file: file, line: line)
    }
    assertEveryPrefixThrows(bytes, file: file, line: line) { (b: [UInt8]) throws in _ = try T(decoding: b) }
}

/// A reader is prefix-deterministic, so a strict prefix of a whole structure can never decode.
func assertEveryPrefixThrows(
    _ bytes: [UInt8], file: StaticString = #filePath, line: UInt = #line,
    _ decode: ([UInt8]) throws -> Void
) {
    for length in 0..<bytes.count {
        do {
            try decode(Array(bytes.prefix(length)))
            XCTFail("prefix of length \(length)/\(bytes.count) decoded", file: file, line: line)
            return
        } catch {
            continue
        }
    }
}


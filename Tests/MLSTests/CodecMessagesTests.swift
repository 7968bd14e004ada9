import MLS
import XCTest

/// Round trips, truncation and malformed input for each family of RFC 9420 structures.
final class CodecMessagesTests: XCTestCase {
    func testKeyPackageFamily_roundTripsAndTruncates() {
        assertRoundTripAndTruncation(CodecFixtures.keyPackage())
        assertRoundTripAndTruncation(CodecFixtures.keyPackage().tbs)
        assertRoundTripAndTruncation(CodecFixtures.leafNode())
        assertRoundTripAndTruncation(CodecFixtures.leafNode(source: .update))
        assertRoundTripAndTruncation(CodecFixtures.leafNode(source: .commit(parentHash: [1, 2, 3])))
        assertRoundTripAndTruncation(CodecFixtures.capabilities())
        assertRoundTripAndTruncation(Credential.x509(certificates: [Certificate(certData: [1, 2]), Certificate(certData: [])]))
        assertRoundTripAndTruncation(ExternalSender(signatureKey: [1], credential: .basic(identity: [2])))
        assertRoundTripAndTruncation(RequiredCapabilities(extensionTypes: [.externalSenders], proposalTypes: [.add],
                                                          credentialTypes: [.x509]))
    }

    func testTreeFamily_roundTripsAndTruncates() {
        assertRoundTripAndTruncation(CodecFixtures.tree())
        assertRoundTripAndTruncation(RatchetTree(nodes: []))
        assertRoundTripAndTruncation(CodecFixtures.updatePath())
        assertRoundTripAndTruncation(ParentNode(encryptionKey: [1], parentHash: [], unmergedLeaves: [0, 0xFFFF_FFFF]))
    }

    func testProposalFamily_roundTripsAndTruncates() throws {
        for proposal in CodecFixtures.allProposals() {
            assertRoundTripAndTruncation(proposal)
            assertRoundTripAndTruncation(ProposalOrRef.proposal(proposal))
            let body = proposal.encodedBody()
            XCTAssertEqual(try Proposal(type: proposal.proposalType, decodingBody: body), proposal)
            XCTAssertEqual(proposal.encoded(), proposal.proposalType.encoded() + body)
        }
        assertRoundTripAndTruncation(CodecFixtures.commit())
        assertRoundTripAndTruncation(Commit())
        assertRoundTripAndTruncation(PSKLabel(id: CodecFixtures.psk(), index: 1, count: 2))
    }

    func testGroupFamily_roundTripsAndTruncates() {
        assertRoundTripAndTruncation(CodecFixtures.groupContext())
        assertRoundTripAndTruncation(GroupSecrets(joinerSecret: [1], pathSecret: PathSecret(pathSecret: [2]),
                                                  psks: [CodecFixtures.psk()]))
        assertRoundTripAndTruncation(GroupSecrets(joinerSecret: [1]))
        assertRoundTripAndTruncation(SenderData(leafIndex: 3, generation: 4, reuseGuard: [1, 2, 3, 4]))
        assertRoundTripAndTruncation(PrivateContentAAD(groupID: [1], epoch: 2, contentType: .commit, authenticatedData: [3]))
        assertRoundTripAndTruncation(SenderDataAAD(groupID: [1], epoch: 2, contentType: .proposal))
    }

    func testMLSMessage_everyWireFormat_roundTripsAndTruncates() {
        for message in CodecFixtures.messages() {
            assertRoundTripAndTruncation(message)
        }
    }

    func testAuthenticatedContent_roundTripsForEveryContentType() {
        let contents: [Content] = [.application([1, 2]), .proposal(.remove(removed: 1)), .commit(CodecFixtures.commit())]
        for content in contents {
            let value = AuthenticatedContent(wireFormat: .privateMessage, content: CodecFixtures.framedContent(content: content),
                                             auth: CodecFixtures.auth(for: content))
            assertRoundTripAndTruncation(value)
        }
    }

    func testGREASEValues_survivePreservedByteExactly() throws {
        let keyPackage = CodecFixtures.keyPackage()
        let decoded = try KeyPackage(decoding: keyPackage.encoded())
        let capabilities = decoded.leafNode.capabilities
        XCTAssertEqual(capabilities.cipherSuites, [1, 0x3A3A])
        XCTAssertTrue(capabilities.extensions.contains { $0.isGREASE && $0.rawValue == 0x0A0A })
        XCTAssertEqual(capabilities.proposals.map(\.rawValue), [0x1A1A])
        XCTAssertEqual(capabilities.credentials.map(\.rawValue), [1, 0x2A2A])
        XCTAssertEqual(decoded.leafNode.extensions.first?.extensionType.rawValue, 0x4A4A)
        XCTAssertEqual(decoded.leafNode.extensions.first?.extensionData, [1, 2, 3])
        XCTAssertEqual(decoded.extensions.first?.extensionType, ExtensionType(rawValue: 0x5A5A))
        XCTAssertEqual(decoded.encoded(), keyPackage.encoded())
        // An unknown (not GREASE) version and cipher suite are kept as well.
        var odd = keyPackage
        odd.version = ProtocolVersion(rawValue: 0xBEEF)
        odd.cipherSuite = 0xF00D
        XCTAssertEqual(try KeyPackage(decoding: odd.encoded()), odd)
    }

    func testUnknownProposalType_throws() {
        var bytes: [UInt8] = [0x0A, 0x0A]
        bytes += [0x00]
        XCTAssertThrowsError(try Proposal(decoding: bytes)) { error in
            XCTAssertEqual(error as? DecodingError, .invalidValue("unknown proposal type 2570"))
        }
        XCTAssertThrowsError(try Proposal(decoding: [0x00, 0x00, 0x00, 0x00, 0x00, 0x01]))
        XCTAssertThrowsError(try Proposal(type: ProposalType(rawValue: 8), decodingBody: []))
    }

    func testUnknownCredentialType_throws() {
        XCTAssertThrowsError(try Credential(decoding: [0x00, 0x03, 0x00])) { error in
            XCTAssertEqual(error as? DecodingError, .invalidValue("unknown credential type 3"))
        }
        XCTAssertThrowsError(try Credential(decoding: [0x00, 0x00, 0x00]))
    }

    func testUnknownSelectors_throw() {
        // wire format 6, content type 4, sender type 5, node type 0 and 3, leaf source 4, psk type 3.
        XCTAssertThrowsError(try MLSMessage(decoding: [0x00, 0x01, 0x00, 0x06]))
        XCTAssertThrowsError(try MLSMessage(decoding: [0x00, 0x01, 0x00, 0x00]))
        XCTAssertThrowsError(try PrivateContentAAD(decoding: [0x00] + [UInt8](repeating: 0, count: 8) + [0x04, 0x00]))
        XCTAssertThrowsError(try Sender(decoding: [0x05, 0, 0, 0, 0]))
        XCTAssertThrowsError(try Sender(decoding: [0x00]))
        XCTAssertThrowsError(try Node(decoding: [0x00]))
        XCTAssertThrowsError(try Node(decoding: [0x03, 0x00, 0x00, 0x00]))
        XCTAssertThrowsError(try LeafNodeSource(decoding: [0x04]))
        XCTAssertThrowsError(try PreSharedKeyID(decoding: [0x03, 0x00, 0x00]))
        XCTAssertThrowsError(try ProposalOrRef(decoding: [0x03, 0x00]))
    }

    func testUnknownResumptionUsage_isKept() throws {
        let psk = PreSharedKeyID(kind: .resumption(usage: ResumptionPSKUsage(rawValue: 0xEE), pskGroupID: [], pskEpoch: 0),
                                 pskNonce: [])
        XCTAssertEqual(try PreSharedKeyID(decoding: psk.encoded()), psk)
    }

    func testRatchetTree_invalidOptionalByte_throws() {
        // One entry whose presence byte is 2.
        XCTAssertThrowsError(try RatchetTree(decoding: [0x01, 0x02])) { error in
            XCTAssertEqual(error as? DecodingError, .invalidValue("optional presence byte 2"))
        }
        XCTAssertEqual(try RatchetTree(decoding: [0x02, 0x00, 0x00]).nodes.count, 2)
    }

    func testGroupSecrets_invalidOptionalByte_throws() {
        XCTAssertThrowsError(try GroupSecrets(decoding: [0x01, 0xAA, 0x02, 0x00, 0x00]))
        XCTAssertThrowsError(try Commit(decoding: [0x00, 0x03]))
    }

    func testOversizedLengthPrefix_insideExtension_throws() {
        // An extension list of 4 bytes holding an extension whose data claims 5 bytes.
        let bytes: [UInt8] = [0x04, 0x00, 0x01, 0x05, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE]
        var reader = TLSReader(bytes)
        XCTAssertThrowsError(try reader.readVector(of: Extension.self)) { error in
            guard case .truncated = error as? DecodingError else { return XCTFail("\(error)") }
        }
    }

    func testOversizedLengthPrefix_maximalVarint_throwsWithoutAllocating() {
        var bytes = MLSMessage(body: .keyPackage(CodecFixtures.keyPackage())).encoded()
        // The init key's length (after version, wire format, version, suite) becomes 2^30-1.
        bytes.replaceSubrange(8..<9, with: [0xBF, 0xFF, 0xFF, 0xFF])
        XCTAssertThrowsError(try MLSMessage(decoding: bytes)) { error in
            guard case .truncated = error as? DecodingError else { return XCTFail("\(error)") }
        }
    }

    func testNonMinimalVarint_insideMessage_throws() {
        let message = MLSMessage(body: .privateMessage(PrivateMessage(groupID: [7], epoch: 1, contentType: .application,
                                                                      encryptedSenderData: [], ciphertext: [])))
        var bytes = message.encoded()
        // group_id's one-byte length 0x01 rewritten as the two-byte 0x4001.
        XCTAssertEqual(bytes[4], 0x01)
        bytes.replaceSubrange(4..<5, with: [0x40, 0x01])
        XCTAssertThrowsError(try MLSMessage(decoding: bytes)) { XCTAssertEqual($0 as? DecodingError, .invalidVarint) }
        bytes.replaceSubrange(4..<6, with: [0xC0, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01])
        XCTAssertThrowsError(try MLSMessage(decoding: bytes)) { XCTAssertEqual($0 as? DecodingError, .invalidVarint) }
    }

    func testTrailingBytes_afterMessage_rejected() {
        for message in CodecFixtures.messages() {
            XCTAssertThrowsError(try MLSMessage(decoding: message.encoded() + [0x00])) {
                XCTAssertEqual($0 as? DecodingError, .trailingBytes(1))
            }
        }
    }
}

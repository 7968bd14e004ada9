import MLS
import XCTest

/// Structures whose layout depends on context: auth data, tags, padding, and the to-be-signed forms.
final class CodecContextTests: XCTestCase {
    func testAuthData_confirmationTag_onlyForCommits() throws {
        let auth = FramedContentAuthData(signature: [1, 2], confirmationTag: [3])
        for type in [ContentType.application, .proposal, .commit] {
            var writer = TLSWriter()
            auth.encode(to: &writer, contentType: type)
            XCTAssertEqual(writer.bytes, type == .commit ? [2, 1, 2, 1, 3] : [2, 1, 2])
            var reader = TLSReader(writer.bytes)
            let decoded = try FramedContentAuthData(from: &reader, contentType: type)
            try reader.finish()
            XCTAssertEqual(decoded.confirmationTag, type == .commit ? [3] : nil)
        }
        // A commit's auth data without the tag is truncated.
        var reader = TLSReader([2, 1, 2])
        XCTAssertThrowsError(try FramedContentAuthData(from: &reader, contentType: .commit))
    }

    func testPublicMessage_membershipTag_presentIffMemberSender() throws {
        let content = Content.proposal(.remove(removed: 0))
        for sender in [Sender.member(leafIndex: 4), .external(senderIndex: 0), .newMemberProposal, .newMemberCommit] {
            let isMember = sender.senderType == .member
            let message = PublicMessage(content: CodecFixtures.framedContent(sender: sender, content: content),
                                        auth: CodecFixtures.auth(for: content), membershipTag: isMember ? [0x7A, 0x7B] : nil)
            let bytes = message.encoded()
            let decoded = try PublicMessage(decoding: bytes)
            XCTAssertEqual(decoded, message)
            XCTAssertEqual(decoded.membershipTag, isMember ? [0x7A, 0x7B] : nil)
            if isMember {
                XCTAssertEqual(Array(bytes.suffix(3)), [2, 0x7A, 0x7B])
                XCTAssertThrowsError(try PublicMessage(decoding: Array(bytes.dropLast(3))))
            } else {
                XCTAssertThrowsError(try PublicMessage(decoding: bytes + [2, 0x7A, 0x7B])) {
                    XCTAssertEqual($0 as? DecodingError, .trailingBytes(3))
                }
            }
        }
    }

    func testPrivateMessageContent_zeroPadding_decodesWithItsLength() throws {
        let content = Content.application(Array("hello".utf8))
        let value = PrivateMessageContent(content: content, auth: CodecFixtures.auth(for: content))
        let unpadded = value.encoded(paddingLength: 0)
        for padding in [0, 1, 17, 300] {
            let bytes = value.encoded(paddingLength: padding)
            XCTAssertEqual(bytes.count, unpadded.count + padding)
            let decoded = try PrivateMessageContent(decoding: bytes, contentType: .application)
            XCTAssertEqual(decoded.paddingLength, padding)
            XCTAssertEqual(decoded.content, content)
            XCTAssertEqual(decoded.encoded(), bytes)
        }
    }

    func testPrivateMessageContent_nonzeroPadding_rejected() {
        let content = Content.commit(CodecFixtures.commit())
        let bytes = PrivateMessageContent(content: content, auth: CodecFixtures.auth(for: content)).encoded(paddingLength: 8)
        for position in (bytes.count - 8)..<bytes.count {
            var corrupted = bytes
            corrupted[position] = 0x01
            XCTAssertThrowsError(try PrivateMessageContent(decoding: corrupted, contentType: .commit)) {
                XCTAssertEqual($0 as? DecodingError, .invalidValue("nonzero padding"))
            }
        }
    }

    func testPrivateMessageContent_decodedWithWrongType_fails() {
        let content = Content.commit(CodecFixtures.commit())
        let bytes = PrivateMessageContent(content: content, auth: CodecFixtures.auth(for: content)).encoded()
        XCTAssertThrowsError(try PrivateMessageContent(decoding: bytes, contentType: .proposal))
    }

    func testPrivateMessageContent_truncatedBeforePadding_throws() {
        let content = Content.proposal(.externalInit(kemOutput: [1, 2, 3]))
        let bytes = PrivateMessageContent(content: content, auth: CodecFixtures.auth(for: content)).encoded()
        assertEveryPrefixThrows(bytes) { b in _ = try PrivateMessageContent(decoding: b, contentType: .proposal) }
    }

    func testFramedContentTBS_includesContextOnlyForMemberAndNewMemberCommit() {
        let context = CodecFixtures.groupContext()
        let content = Content.proposal(.remove(removed: 2))
        for sender in [Sender.member(leafIndex: 0), .newMemberCommit, .external(senderIndex: 1), .newMemberProposal] {
            let framed = CodecFixtures.framedContent(sender: sender, content: content)
            let tbs = FramedContentTBS(wireFormat: .publicMessage, content: framed, context: context)
            let prefix = ProtocolVersion.mls10.encoded() + WireFormat.publicMessage.encoded() + framed.encoded()
            let expected = tbs.includesContext ? prefix + context.encoded() : prefix
            XCTAssertEqual(tbs.encoded(), expected)
            XCTAssertEqual(tbs.includesContext, sender == .member(leafIndex: 0) || sender == .newMemberCommit)
        }
    }

    func testLeafNodeTBS_bindsGroupOnlyForUpdateAndCommit() {
        let keyPackageLeaf = CodecFixtures.leafNode()
        // The 64-byte signature and its two-byte length are what the TBS leaves out.
        let signed = Array(keyPackageLeaf.encoded().dropLast(66))
        XCTAssertEqual(keyPackageLeaf.tbs().encoded(), signed)
        XCTAssertEqual(keyPackageLeaf.tbs(groupID: [1], leafIndex: 2).encoded(), signed)

        let commitLeaf = CodecFixtures.leafNode(source: .commit(parentHash: [9]))
        let commitSigned = Array(commitLeaf.encoded().dropLast(66))
        XCTAssertEqual(commitLeaf.tbs(groupID: [1, 2], leafIndex: 0x0102_0304).encoded(),
                       commitSigned + [2, 1, 2, 1, 2, 3, 4])
    }

    func testKeyPackageAndGroupInfoTBS_areTheMessageWithoutSignature() throws {
        let keyPackage = CodecFixtures.keyPackage()
        XCTAssertEqual(keyPackage.tbs.encoded() + [0x40, 0x40] + keyPackage.signature, keyPackage.encoded())
        guard case .groupInfo(let groupInfo) = CodecFixtures.messages()[4].body else { return XCTFail("fixture order") }
        XCTAssertEqual(groupInfo.tbs.encoded() + [1] + groupInfo.signature, groupInfo.encoded())
        XCTAssertEqual(try GroupInfoTBS(decoding: groupInfo.tbs.encoded()), groupInfo.tbs)
    }

    func testSenderData_reuseGuardIsFourBytes() throws {
        let data = SenderData(leafIndex: 1, generation: 2, reuseGuard: [9, 8, 7, 6])
        XCTAssertEqual(data.encoded(), [0, 0, 0, 1, 0, 0, 0, 2, 9, 8, 7, 6])
        XCTAssertEqual(SenderData(leafIndex: 0, generation: 0, reuseGuard: [1]).reuseGuard, [1, 0, 0, 0])
        XCTAssertThrowsError(try SenderData(decoding: data.encoded() + [0]))
    }

    func testPrivateMessage_aadStructures_matchItsFields() {
        let message = PrivateMessage(groupID: [1, 2], epoch: 3, contentType: .proposal, authenticatedData: [4],
                                     encryptedSenderData: [5], ciphertext: [6])
        XCTAssertEqual(message.contentAAD.encoded(), [2, 1, 2, 0, 0, 0, 0, 0, 0, 0, 3, 2, 1, 4])
        XCTAssertEqual(message.senderDataAAD.encoded(), [2, 1, 2, 0, 0, 0, 0, 0, 0, 0, 3, 2])
    }

    func testKnownExtensions_buildAndDecode() throws {
        let tree = CodecFixtures.tree()
        let required = RequiredCapabilities(extensionTypes: [.applicationID], proposalTypes: [ProposalType(rawValue: 0x0A0A)])
        let senders = [ExternalSender(signatureKey: [1], credential: .basic(identity: [2]))]
        XCTAssertEqual(try Extension.applicationID([1, 2]).decodeApplicationID(), [1, 2])
        XCTAssertEqual(try Extension.ratchetTree(tree).decodeRatchetTree(), tree)
        XCTAssertEqual(try Extension.requiredCapabilities(required).decodeRequiredCapabilities(), required)
        XCTAssertEqual(try Extension.externalPub([3]).decodeExternalPub(), [3])
        XCTAssertEqual(try Extension.externalSenders(senders).decodeExternalSenders(), senders)
        XCTAssertEqual(Extension.externalPub([3]).extensionType, .externalPub)
    }

    func testKnownExtensions_wrongTypeOrTrailingBytes_throw() {
        XCTAssertThrowsError(try Extension.applicationID([1]).decodeExternalPub())
        let trailing = Extension(extensionType: .applicationID, extensionData: [1, 0xAA, 0xBB])
        XCTAssertThrowsError(try trailing.decodeApplicationID()) { XCTAssertEqual($0 as? DecodingError, .trailingBytes(1)) }
        let truncated = Extension(extensionType: .ratchetTree, extensionData: [0x05, 0x00])
        XCTAssertThrowsError(try truncated.decodeRatchetTree())
    }

    func testExtensionList_duplicateTypesAndLookup() {
        let list: [Extension] = [.applicationID([1]), .externalPub([2])]
        XCTAssertFalse(list.hasDuplicateTypes)
        XCTAssertTrue((list + [.applicationID([3])]).hasDuplicateTypes)
        XCTAssertEqual(list.first(ofType: .externalPub), .externalPub([2]))
        XCTAssertNil(list.first(ofType: .ratchetTree))
    }
}

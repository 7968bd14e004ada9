@testable import MLS
import Primitives
import XCTest

/// Commits and proposals that must be refused, each with its typed error, by the face that can
/// detect it: the PublicGroup for everything public, the member for MACs.
final class CommitRejectionTests: XCTestCase {
    let suite = CipherSuite.mls128DHKEMX25519AES128GCMSHA256Ed25519

    /// A commit from `member` signed with its real key over arbitrary content; the membership tag is
    /// the real one, the confirmation tag random unless given.
    private func craft(_ commit: Commit, by member: Group, sender: Sender? = nil, confirmationTag: [UInt8]? = nil) throws -> PublicMessage {
        let content = FramedContent(groupID: member.groupID, epoch: member.epoch,
                                    sender: sender ?? .member(leafIndex: member.ownLeaf), content: .commit(commit))
        return try PublicMessage.protect(
            content, confirmationTag: confirmationTag ?? SecureRandom.bytes(32), signingKey: member.signingKey,
            context: member.groupContext, membershipKey: member.epochSecrets.membershipKey, suite: suite)
    }

    private func assertRejected(_ message: PublicMessage, by observer: PublicGroup, _ expected: GroupError,
                                file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try observer.validateAndApply(commit: message), file: file, line: line) { error in
            XCTAssertEqual(error as? GroupError, expected, file: file, line: line)
        }
    }

    func testBadSignature() throws {
        var (_, bob, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        var message = try GroupFixtures.publicMessage(try bob.update().commit)
        message.auth.signature[3] ^= 1
        assertRejected(message, by: observer, .invalidSignature)
        XCTAssertThrowsError(try bob.process(message)) { XCTAssertEqual($0 as? GroupError, .invalidMembershipTag) }
        observer = try observer.validateAndApply(commit: try GroupFixtures.publicMessage(try bob.update().commit))
        XCTAssertEqual(observer.epoch, 2)
    }

    func testStaleEpoch() throws {
        let (alice, bob, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        let first = try alice.update()
        let stale = try bob.update()
        let next = try observer.validateAndApply(commit: first.commit)
        XCTAssertThrowsError(try next.validateAndApply(commit: stale.commit)) {
            XCTAssertEqual($0 as? GroupError, .wrongEpoch(expected: 2, actual: 1))
        }
        var carol = first.group
        XCTAssertThrowsError(try carol.process(stale.commit)) {
            XCTAssertEqual($0 as? GroupError, .wrongEpoch(expected: 2, actual: 1))
        }
    }

    func testInvalidKeyPackages() throws {
        let (alice, _, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        let good = try GroupFixtures.keyPackage("dave", suite: suite)

        var badSignature = good.keyPackage
        badSignature.signature[0] ^= 1
        assertRejected(try craft(Commit(proposals: [.proposal(.add(badSignature))]), by: alice), by: observer,
                       .invalidKeyPackage(.invalidKeyPackageSignature))
        XCTAssertThrowsError(try alice.add(keyPackages: [badSignature])) {
            XCTAssertEqual($0 as? GroupError, .invalidKeyPackage(.invalidKeyPackageSignature))
        }

        let otherSuite = try GroupFixtures.keyPackage("erin", suite: .mls128DHKEMX25519ChaCha20Poly1305SHA256Ed25519)
        assertRejected(try craft(Commit(proposals: [.proposal(.add(otherSuite.keyPackage))]), by: alice), by: observer,
                       .invalidKeyPackage(.cipherSuiteMismatch(expected: 1, actual: 3)))

        var sameKeys = good.keyPackage
        sameKeys.initKey = sameKeys.leafNode.encryptionKey
        try sameKeys.sign(with: good.signingKey, suite: suite)
        assertRejected(try craft(Commit(proposals: [.proposal(.add(sameKeys))]), by: alice), by: observer,
                       .invalidKeyPackage(.initKeyEqualsEncryptionKey))

        let expired = try GroupFixtures.keyPackage("frank", suite: suite, lifetime: Lifetime(notBefore: 0, notAfter: 100))
        XCTAssertThrowsError(try observer.validateAndApply(
            commit: try craft(Commit(proposals: [.proposal(.add(expired.keyPackage))]), by: alice), now: 1_000)) {
            XCTAssertEqual($0 as? GroupError, .invalidKeyPackage(.lifetimeNotValidNow))
        }
    }

    func testTrustedKeyPackageRefsSkipOnlyThoseSignatures() throws {
        let (alice, _, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        var forged = try GroupFixtures.keyPackage("dave", suite: suite).keyPackage
        forged.signature[0] ^= 1
        let message = try craft(Commit(proposals: [.proposal(.add(forged))]), by: alice)
        assertRejected(message, by: observer, .invalidKeyPackage(.invalidKeyPackageSignature))
        let next = try observer.validateAndApply(commit: message, trustedKeyPackageRefs: [forged.reference(suite: suite)])
        XCTAssertEqual(next.lastCommit?.added.map(\.keyPackageRef), [forged.reference(suite: suite)])
        var sameKeys = forged
        sameKeys.initKey = sameKeys.leafNode.encryptionKey
        let other = try craft(Commit(proposals: [.proposal(.add(sameKeys))]), by: alice)
        XCTAssertThrowsError(try observer.validateAndApply(commit: other, trustedKeyPackageRefs: [sameKeys.reference(suite: suite)])) {
            XCTAssertEqual($0 as? GroupError, .invalidKeyPackage(.initKeyEqualsEncryptionKey))
        }
    }

    func testProposalListRules() throws {
        let (alice, bob, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        let dave = try GroupFixtures.keyPackage("dave", suite: suite).keyPackage
        let path = try GroupFixtures.publicMessage(try alice.update().commit)
        guard case .commit(let withPath) = path.content.content, let alicePath = withPath.path else { return XCTFail("no path") }

        assertRejected(try craft(Commit(proposals: [.proposal(.remove(removed: 7))], path: alicePath), by: alice),
                       by: observer, .invalidProposalList(.removeOfBlankLeaf(7)))
        assertRejected(try craft(Commit(proposals: [.proposal(.remove(removed: 0))], path: alicePath), by: alice),
                       by: observer, .invalidProposalList(.committerRemoved))
        assertRejected(try craft(Commit(proposals: [.proposal(.remove(removed: 1)), .proposal(.remove(removed: 1))],
                                        path: alicePath), by: alice),
                       by: observer, .invalidProposalList(.multipleChangesToLeaf(1)))
        assertRejected(try craft(Commit(proposals: [.proposal(.add(dave)), .proposal(.add(dave))]), by: alice),
                       by: observer, .invalidProposalList(.duplicateAdd))
        assertRejected(try craft(Commit(proposals: [.proposal(.update(bob.tree.leafNode(at: 0)!))], path: alicePath), by: alice),
                       by: observer, .invalidProposalList(.updateByCommitter))
        assertRejected(try craft(Commit(proposals: [.proposal(.externalInit(kemOutput: [1, 2]))], path: alicePath), by: alice),
                       by: observer, .senderNotAllowed(.member(leafIndex: 0), .externalInit))
        assertRejected(try craft(Commit(proposals: [.proposal(.remove(removed: 2))]), by: alice), by: observer, .pathRequired)
        assertRejected(try craft(Commit(proposals: []), by: alice), by: observer, .pathRequired)
    }

    func testUnknownProposalReference() throws {
        let (alice, _, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        let ref = SecureRandom.bytes(32)
        assertRejected(try craft(Commit(proposals: [.reference(ref)]), by: alice), by: observer, .unknownProposalReference(ref))
    }

    func testCommitFromNonMemberLeaf() throws {
        let (alice, _, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        let message = try craft(Commit(proposals: []), by: alice, sender: .member(leafIndex: 9))
        assertRejected(message, by: observer, .unknownSender(.member(leafIndex: 9)))
    }

    func testPathWithBrokenParentHash() throws {
        let (_, bob, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        let message = try GroupFixtures.publicMessage(try bob.update().commit)
        guard case .commit(var commit) = message.content.content, var path = commit.path else { return XCTFail("no path") }
        path.nodes[0].encryptionKey = try suite.generateHPKEKeyPair().publicKey
        commit.path = path
        let forged = try craft(commit, by: bob)
        XCTAssertThrowsError(try observer.validateAndApply(commit: forged)) { error in
            guard case .tree(.invalidParentHash) = error as? GroupError else { return XCTFail("\(error)") }
        }
    }

    func testConfirmationTagMismatchRefusedByMember() throws {
        let (alice, bob, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        let message = try GroupFixtures.publicMessage(try alice.update().commit)
        guard case .commit(let commit) = message.content.content else { return XCTFail("not a commit") }
        let forged = try craft(commit, by: alice, confirmationTag: SecureRandom.bytes(32))
        var receiver = bob
        XCTAssertThrowsError(try receiver.process(forged)) { XCTAssertEqual($0 as? GroupError, .invalidConfirmationTag) }
        XCTAssertEqual(receiver.epoch, bob.epoch, "a refused commit leaves the state unchanged")
        // The observer cannot check the MAC: it accepts, and only members notice.
        XCTAssertNoThrow(try observer.validateAndApply(commit: forged))
    }

    func testOwnCommitIsNotProcessed() throws {
        let (alice, _, _, _) = try GroupFixtures.threeMembers(suite: suite)
        var member = alice
        XCTAssertThrowsError(try member.process(try alice.update().commit)) { XCTAssertEqual($0 as? GroupError, .ownCommit) }
    }

    func testWrongGroupAndSerializedGarbage() throws {
        let (alice, _, _, observer) = try GroupFixtures.threeMembers(suite: suite)
        var message = try GroupFixtures.publicMessage(try alice.update().commit)
        message.content.groupID = [1, 2, 3]
        assertRejected(message, by: observer, .wrongGroupID)
        let bytes = observer.serialize()
        XCTAssertThrowsError(try PublicGroup(serialized: Array(bytes.dropLast(3))))
        XCTAssertThrowsError(try PublicGroup(serialized: bytes + [0]))
        XCTAssertThrowsError(try PublicGroup(serialized: [0x4d, 0x4c]))
        XCTAssertThrowsError(try Group(restoring: Array(alice.persist().prefix(40))))
    }
}

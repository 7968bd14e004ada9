import MLS
import XCTest

/// Clients with real keys for the group tests.
enum GroupFixtures {
    static func signer(_ suite: CipherSuite) throws -> SignaturePrivateKey {
        try suite.signatureScheme.generatePrivateKey()
    }

    static func keyPackage(_ name: String, suite: CipherSuite, lifetime: Lifetime = Lifetime(notBefore: 0, notAfter: .max)) throws -> KeyPackageBundle {
        try KeyPackageBundle.generate(
            suite: suite, credential: .basic(identity: Array(name.utf8)), signingKey: try signer(suite), lifetime: lifetime)
    }

    static func create(_ name: String, suite: CipherSuite) throws -> Group {
        try Group.create(suite: suite, credential: .basic(identity: Array(name.utf8)), signingKey: try signer(suite))
    }

    /// Alice creates a group and adds Bob and Carol in one commit; the PublicGroup follows.
    static func threeMembers(suite: CipherSuite) throws -> (alice: Group, bob: Group, carol: Group, observer: PublicGroup) {
        var alice = try create("alice", suite: suite)
        var observer = try PublicGroup(groupInfo: try alice.makeGroupInfo())
        let bobKP = try keyPackage("bob", suite: suite)
        let carolKP = try keyPackage("carol", suite: suite)
        let output = try alice.add(keyPackages: [bobKP.keyPackage, carolKP.keyPackage])
        observer = try observer.validateAndApply(commit: output.commit)
        alice = output.group
        let welcome = try XCTUnwrap(output.welcome)
        let bob = try Group.join(welcome: welcome, keyPackage: bobKP)
        let carol = try Group.join(welcome: welcome, keyPackage: carolKP)
        return (alice, bob, carol, observer)
    }

    /// Every member and the observer agree on the epoch and tree hash; members on the authenticator.
    static func assertAgree(_ groups: [Group], _ observer: PublicGroup, file: StaticString = #filePath, line: UInt = #line) {
        guard let first = groups.first else { return }
        for group in groups {
            XCTAssertEqual(group.epoch, first.epoch, file: file, line: line)
            XCTAssertEqual(group.tree.treeHash, first.tree.treeHash, file: file, line: line)
            XCTAssertEqual(group.epochAuthenticator, first.epochAuthenticator, file: file, line: line)
            XCTAssertEqual(group.groupContext, first.groupContext, file: file, line: line)
        }
        XCTAssertEqual(observer.epoch, first.epoch, file: file, line: line)
        XCTAssertEqual(observer.treeHash, first.tree.treeHash, file: file, line: line)
        XCTAssertEqual(observer.groupContext, first.groupContext, file: file, line: line)
    }

    static func publicMessage(_ message: MLSMessage) throws -> PublicMessage {
        guard case .publicMessage(let publicMessage) = message.body else {
            XCTFail("not a PublicMessage")
            throw GroupError.unexpectedMessage("test")
        }
        return publicMessage
    }
}

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

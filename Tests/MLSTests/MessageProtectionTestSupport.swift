import MLS
import Primitives
import XCTest

/// A small group's epoch as seen by one sender: keys, context and a helper to frame content.
struct FramingFixture {
    let suite: CipherSuite
    let context: GroupContext
    let signingKey: SignaturePrivateKey
    let encryptionSecret: [UInt8]
    let senderDataSecret: [UInt8]
    let membershipKey: [UInt8]
    let sender: UInt32 = 2
    let leafCount: UInt32 = 4

    init(suite: CipherSuite = .mls128DHKEMX25519AES128GCMSHA256Ed25519, epoch: UInt64 = 7) throws {
        self.suite = suite
        context = GroupContext(
            cipherSuite: suite.rawValue, groupID: Array("framing group".utf8), epoch: epoch,
            treeHash: SecureRandom.bytes(suite.nh), confirmedTranscriptHash: SecureRandom.bytes(suite.nh))
        signingKey = try suite.signatureScheme.generatePrivateKey()
        encryptionSecret = SecureRandom.bytes(suite.nh)
        senderDataSecret = SecureRandom.bytes(suite.nh)
        membershipKey = SecureRandom.bytes(suite.nh)
    }

    var publicKey: [UInt8] { signingKey.publicKey.bytes }

    func tree() throws -> SecretTree {
        try SecretTree(suite: suite, encryptionSecret: encryptionSecret, leafCount: leafCount)
    }

    func framed(_ content: Content, sender: Sender? = nil, authenticatedData: [UInt8] = Array("aad".utf8)) -> FramedContent {
        FramedContent(
            groupID: context.groupID, epoch: context.epoch, sender: sender ?? .member(leafIndex: self.sender),
            authenticatedData: authenticatedData, content: content)
    }

    /// The sender's key for its own leaf only.
    var lookup: (UInt32) -> [UInt8]? {
        let key = publicKey
        let leaf = sender
        return { $0 == leaf ? key : nil }
    }

    static let proposal = Content.proposal(.remove(removed: 1))
    static let commit = Content.commit(Commit(proposals: [.proposal(.remove(removed: 3))]))
    static let application = Content.application(Array("hello, group".utf8))
}

/// Asserts that `body` throws exactly `expected`.
func assertThrows<E: Error & Equatable, T>(
    _ expected: E, file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> T
) {
    do {
        _ = try body()
        XCTFail("expected \(expected), got no error", file: file, line: line)
    } catch let error as E {
        XCTAssertEqual(error, expected, file: file, line: line)
    } catch {
        XCTFail("expected \(expected), got \(error)", file: file, line: line)
    }
}

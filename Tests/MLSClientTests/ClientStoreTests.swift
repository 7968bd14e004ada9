import Basics
import Foundation
import MLS
@testable import MLSClient
import XCTest

/// The state directory: identities, key packages and groups survive a round trip; secrets are
/// 0600; malformed and hostile input is refused.
final class ClientStoreTests: XCTestCase {
    var store: MLSClientStore!

    override func setUp() {
        store = MLSClientStore(directory: FileManager.default.temporaryDirectory.appendingPathComponent("store-" + UUID().uuidString))
    }

    override func tearDown() { try? FileManager.default.removeItem(at: store.directory) }

    /// MQTT's QoS 1 may deliver a message again: the record takes each digest in once, remembers
    /// the newest `receivedMemory`, and round-trips through its JSON (older files have none).
    func testReceivedDigests_SkipARedelivery_AndAreBounded() throws {
        var record = ConvoRecord(convoId: "0a0b")
        XCTAssertTrue(record.takeIn(digest: "aa"))
        XCTAssertFalse(record.takeIn(digest: "aa"), "a redelivery is skipped")
        for index in 0..<ConvoRecord.receivedMemory { XCTAssertTrue(record.takeIn(digest: "d\(index)")) }
        XCTAssertEqual(record.receivedDigests?.count, ConvoRecord.receivedMemory)
        XCTAssertTrue(record.takeIn(digest: "aa"), "the oldest digest was forgotten")
        let decoded = try JSONDecoder().decode(ConvoRecord.self, from: JSONEncoder().encode(record))
        XCTAssertEqual(decoded, record)
        let old = try JSONDecoder().decode(ConvoRecord.self, from: Data(#"{"convoId":"0a0b","lastSeq":0,"sentMessageIds":[],"active":true}"#.utf8))
        XCTAssertNil(old.receivedDigests)
    }

    func testIdentityRoundTripAndPermissions() throws {
        XCTAssertFalse(store.hasIdentity)
        XCTAssertThrowsError(try store.loadIdentity())
        let identity = try MLSClientIdentity.generate()
        XCTAssertTrue(identity.did.hasPrefix("did:plc:"))
        XCTAssertEqual(identity.did.count, 32)
        try store.saveIdentity(identity)
        XCTAssertEqual(try store.loadIdentity(), identity)
        let attributes = try FileManager.default.attributesOfItem(atPath: store.identityFile.path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual(try identity.signingKey().publicKey.bytes, try store.loadIdentity().signingKey().publicKey.bytes)
        XCTAssertNotNil(try identity.tokenProvider(serviceDID: "did:web:x"))
        let document = try JSONSerialization.jsonObject(with: Data(try identity.didDocument().utf8)) as? [String: Any]
        XCTAssertEqual(document?["id"] as? String, identity.did)
    }

    func testExternalIdentityHasNoLocalKey() throws {
        let identity = try MLSClientIdentity.generate(did: "did:web:alice.example.com", externalToken: "tok")
        XCTAssertNil(try identity.atprotoKey())
        XCTAssertThrowsError(try identity.didDocument())
        XCTAssertThrowsError(try MLSClientIdentity.generate(did: "did:example:x", externalToken: "t"))
    }

    func testMalformedIdentityFileIsAStorageError() throws {
        try store.ensureDirectory(store.directory)
        try Data("{\"did\": 5}".utf8).write(to: store.identityFile)
        XCTAssertThrowsError(try store.loadIdentity()) { error in
            guard case .storage = error as? MLSClientError else { return XCTFail("got \(error)") }
        }
        try Data("{".utf8).write(to: store.identityFile)
        XCTAssertThrowsError(try store.loadIdentity())
    }

    func testKeyPackageAndGroupRoundTrip() throws {
        let identity = try MLSClientIdentity.generate()
        let key = try identity.signingKey()
        let suite = try identity.suite
        let bundle = try KeyPackageBundle.generate(suite: suite, credential: identity.credential, signingKey: key,
                                                   lifetime: Lifetime(notBefore: 0, notAfter: .max))
        try store.saveKeyPackage(bundle)
        XCTAssertEqual(store.keyPackageCount(), 1)
        let loaded = try XCTUnwrap(try store.keyPackage(ref: bundle.ref, signingKey: key))
        XCTAssertEqual(loaded.keyPackage, bundle.keyPackage)
        XCTAssertEqual(loaded.initPrivateKey, bundle.initPrivateKey)
        XCTAssertNil(try store.keyPackage(ref: [1, 2, 3], signingKey: key))
        store.deleteKeyPackage(ref: bundle.ref)
        XCTAssertEqual(store.keyPackageCount(), 0)

        let group = try Group.create(suite: suite, credential: identity.credential, signingKey: key)
        let convo = Hex.encode(group.groupID)
        try store.saveGroup(group, convoId: convo)
        XCTAssertEqual(try store.loadGroup(convoId: convo).epochAuthenticator, group.epochAuthenticator)
        XCTAssertThrowsError(try store.loadGroup(convoId: "00")) { error in
            guard case .unknownConvo = error as? MLSClientError else { return XCTFail("got \(error)") }
        }
    }

    func testConvoIdsThatCouldEscapeTheDirectoryAreRefused() {
        for id in ["../identity", "", "ab/cd", "zz", String(repeating: "a", count: 129)] {
            XCTAssertThrowsError(try store.loadRecord(convoId: id), id)
            XCTAssertFalse(store.hasGroup(convoId: id))
        }
    }

    func testTruncatedGroupFileIsAnMLSError() throws {
        let identity = try MLSClientIdentity.generate()
        let group = try Group.create(suite: try identity.suite, credential: identity.credential, signingKey: try identity.signingKey())
        let bytes = group.persist()
        try store.write(Array(bytes.prefix(bytes.count / 2)), try store.groupFile("ab", ".group"))
        XCTAssertThrowsError(try store.loadGroup(convoId: "ab")) { error in
            guard case .mls = error as? MLSClientError else { return XCTFail("got \(error)") }
        }
    }

    func testTranscriptAppends() throws {
        let first = ChatEntry(kind: .message, seq: 1, epoch: 1, sender: "did:plc:a", text: "hi\nthere")
        let second = ChatEntry(kind: .event, seq: nil, epoch: 2, sender: "did:plc:b", text: "joined", own: true)
        try store.appendTranscript([first], convoId: "ab")
        try store.appendTranscript([second], convoId: "ab")
        XCTAssertEqual(try store.transcript(convoId: "ab"), [first, second])
        XCTAssertEqual(try store.transcript(convoId: "cd"), [])
    }
}

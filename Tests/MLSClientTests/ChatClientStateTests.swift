import Basics
import ChatProtocol
import Foundation
import MLSClient
import XCTest

/// A chat device saved and restored between runs (what the CLI does after every command), against
/// the real service: the restored client joins with a KeyPackage made before the save, reads what
/// was sent after the restore, sends on from where its ratchets were, and keeps what it had read
/// but not handed out.
final class ChatClientStateTests: XCTestCase {
    var deployment: LocalDeployment!

    override func setUpWithError() throws { deployment = try LocalDeployment() }
    override func tearDown() { deployment?.shutdown() }

    /// A new user (init through the CLI, registered at the dev PLC) with one chat device.
    func newDevice(_ user: String) async throws -> ChatClient {
        try await deployment.run(["init", "--plc", deployment.plcURL], as: user)
        let identity = try MLSClientStore(directory: URL(fileURLWithPath: deployment.directory(user))).loadIdentity()
        let key = try ChatDeviceKey(did: try DID(identity.did))
        return ChatClient(device: key, api: try api(user))
    }

    func api(_ user: String) throws -> ChatAPI {
        let identity = try MLSClientStore(directory: URL(fileURLWithPath: deployment.directory(user))).loadIdentity()
        return try ChatAPI(identity: identity, baseURL: deployment.serverURL, serviceDID: LocalDeployment.serviceDID)
    }

    /// `client`'s state through a file, in a new client of the same device with a new API.
    func restarted(_ client: ChatClient, _ user: String) throws -> ChatClient {
        let file = URL(fileURLWithPath: deployment.directory(user)).appendingPathComponent("chat-state.json")
        try ChatClientState(of: client).save(to: file)
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        XCTAssertEqual(mode, 0o600, "the state holds private keys")
        let restored = ChatClient(device: client.device, api: try api(user))
        try XCTUnwrap(try ChatClientState.load(from: file)).restore(into: restored)
        return restored
    }

    func testRestoredDeviceJoinsReadsAndSendsOn() async throws {
        var alice = try await newDevice("alice")
        var bob = try await newDevice("bob")
        try alice.enroll(packages: 2)
        try bob.enroll(packages: 2)
        XCTAssertNil(try ChatClientState.load(from: URL(fileURLWithPath: deployment.directory("bob") + "/none.json")))

        let (conversation, _) = try alice.create(inviting: [bob.device.did.rawValue], title: "kept")
        try bob.accept(conversation)

        // Both restart: bob before his Welcome (its KeyPackage's private keys are in the state),
        // alice with the group and metadata she fulfils with.
        alice = try restarted(alice, "alice")
        bob = try restarted(bob, "bob")
        XCTAssertEqual(bob.authGeneration, 1)
        let recovery = try XCTUnwrap(try alice.inventory().recoveries.first { $0["requesterDeviceId"]?.uuid == bob.device.deviceID })
        try alice.fulfil(recovery)
        let welcome = try XCTUnwrap(try bob.inventory().welcomes.first)
        XCTAssertEqual(try bob.join(welcome), conversation)
        XCTAssertEqual(bob.conversations[conversation]?.title, "kept")

        // bob restarts and reads a message sent after the restore; his reply decrypts for alice.
        bob = try restarted(bob, "bob")
        try alice.send(conversation, text: "after the restore")
        XCTAssertEqual(try bob.read(conversation).map(\.text), ["after the restore"])
        try bob.send(conversation, text: "from the restored bob")
        XCTAssertEqual(try alice.read(conversation).map(\.text), ["from the restored bob"])

        // Read but not handed out (bob's send reads the log first) survives a restart, once.
        try alice.send(conversation, text: "kept unread")
        try bob.send(conversation, text: "one more")
        bob = try restarted(bob, "bob")
        XCTAssertEqual(try bob.read(conversation).map(\.text), ["kept unread"])
        XCTAssertEqual(try bob.read(conversation).map(\.text), [])

        // Sending on after a restart uses fresh ratchet generations: alice decrypts both.
        try bob.send(conversation, text: "and on")
        XCTAssertEqual(try alice.read(conversation).map(\.text), ["one more", "and on"])
    }
}

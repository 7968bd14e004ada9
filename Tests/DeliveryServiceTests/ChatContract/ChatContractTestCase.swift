import ChatProtocol
import Foundation
import MLSClient
import Store
import TestSupport
import XCTest

/// Tests of the `blue.catbird.chat.*` contract against the real service: devices are `ChatClient`s
/// (the client library's, over XRPC with real service-auth tokens), every answer read back against
/// the lexicon by the client.
class ChatContractTestCase: ServiceTestCase {
    /// A device of a new or given account.
    func device(of identity: TestIdentity? = nil, capture: ChatCapture? = nil) throws -> (ChatClient, TestIdentity) {
        try service.chatDevice(of: identity, capture: capture)
    }

    /// An enrolled device.
    func enrolled(_ identity: TestIdentity? = nil, packages: Int = 3, capture: ChatCapture? = nil) throws -> (ChatClient, TestIdentity) {
        try service.enrolledChatDevice(identity, packages: packages, capture: capture)
    }

    /// alice's device in a group where bob's device holds a leaf too.
    func pairWithIdentity() throws -> (alice: ChatClient, bob: ChatClient, bobIdentity: TestIdentity, conversation: ChatUUID) {
        let (alice, _) = try enrolled()
        let (bob, bobIdentity) = try enrolled()
        let (conversation, _) = try alice.create(inviting: [bobIdentity.did.rawValue])
        try bob.accept(conversation)
        try alice.fulfil(try recovery(for: bob, in: conversation, seenBy: alice))
        try join(bob)
        return (alice, bob, bobIdentity, conversation)
    }

    /// The open recovery request of `requester` in `conversation`, as `fulfiller` finds it in its inbox.
    func recovery(for requester: ChatClient, in conversation: ChatUUID, seenBy fulfiller: ChatClient,
                  file: StaticString = #filePath, line: UInt = #line) throws -> ChatValue {
        let inbox = try fulfiller.inventory().recoveries
        let found = inbox.first {
            $0["conversationId"]?.uuid == conversation && $0["requesterDeviceId"]?.uuid == requester.device.deviceID && $0["status"]?.text == "open"
        }
        return try XCTUnwrap(found, "no open recovery of \(requester.device.deviceID) in the inbox", file: file, line: line)
    }

    /// `requester`'s pending Welcome, joined.
    @discardableResult
    func join(_ requester: ChatClient, file: StaticString = #filePath, line: UInt = #line) throws -> ChatUUID {
        let welcome = try XCTUnwrap(try requester.inventory().welcomes.first, "no pending Welcome", file: file, line: line)
        return try requester.join(welcome)
    }

    /// The refusal code of `body`, failing when it succeeds.
    func refusal(_ status: Int? = nil, _ body: () throws -> Any, file: StaticString = #filePath, line: UInt = #line) -> String? {
        do {
            _ = try body()
            XCTFail("expected a refusal", file: file, line: line)
            return nil
        } catch MLSAPIError.http(let got, let name, _) {
            if let status { XCTAssertEqual(got, status, file: file, line: line) }
            return name
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
            return nil
        }
    }

    /// Rows of a chat table (to show a refusal stored nothing).
    func count(_ table: String) throws -> Int {
        let database = try Database(url: try service.databaseURL, poolSize: 1)
        defer { database.close() }
        return try database.transaction { try $0.query("SELECT count(*) AS n FROM \(table)").first!.int("n") }
    }
}

extension ServiceHarness {
    /// A chat device of a new or given account, calling this service.
    func chatDevice(of identity: TestIdentity? = nil, capture: ChatCapture? = nil) throws -> (ChatClient, TestIdentity) {
        let identity = identity ?? makeUser()
        let audience = ServiceHarness.serviceDID + "#atproto_mls"
        let api = ChatAPI(client: MLSAPIClient(configuration: .init(baseURL: baseURL, serviceDID: audience), tokenProvider: nil), capture: capture) { nsid in
            identity.token(audience: audience, nsid: nsid)
        }
        return (ChatClient(device: try ChatDeviceKey(did: identity.did), api: api), identity)
    }

    /// An enrolled chat device.
    func enrolledChatDevice(_ identity: TestIdentity? = nil, packages: Int = 3, capture: ChatCapture? = nil) throws -> (ChatClient, TestIdentity) {
        let (client, identity) = try chatDevice(of: identity, capture: capture)
        try client.enroll(packages: packages)
        return (client, identity)
    }
}

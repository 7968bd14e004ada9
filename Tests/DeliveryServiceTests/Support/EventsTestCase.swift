import DeliveryService
import Foundation
import XCTest

/// A test case class sharing one service whose ticket key is known (so tests can mint tickets),
/// with rate limits off and a small per-user socket limit.
class EventsTestCase: XCTestCase {
    static let ticketKeyHex = String(repeating: "5a", count: 32)
    static let socketLimit = 3

    nonisolated(unsafe) private static var harnesses: [ObjectIdentifier: Result<ServiceHarness, Error>] = [:]

    override class func setUp() {
        super.setUp()
        harnesses[ObjectIdentifier(self)] = Result {
            try ServiceHarness(environment: [
                "SUBSCRIPTION_TICKET_KEY": ticketKeyHex, "RATE_LIMIT_ENABLED": "0",
                "EVENTS_MAX_SOCKETS_PER_USER": String(socketLimit),
            ])
        }
    }

    override class func tearDown() {
        if case .success(let harness) = harnesses.removeValue(forKey: ObjectIdentifier(self)) { harness.shutdown() }
        super.tearDown()
    }

    var service: ServiceHarness {
        get throws {
            guard let result = Self.harnesses[ObjectIdentifier(type(of: self))] else {
                throw XCTestError(.failureWhileWaiting, userInfo: ["reason": "service not started"])
            }
            return try result.get()
        }
    }

    /// A ticket from getSubscriptionTicket (all conversations, or `convoID`).
    func ticket(_ user: MLSTestUser, convoID: String? = nil, file: StaticString = #filePath, line: UInt = #line) throws -> String {
        var body: [String: Any] = [:]
        if let convoID { body["convoId"] = convoID }
        let reply = try service.call("blue.catbird.mls.getSubscriptionTicket", as: user.identity, json: body)
        XCTAssertEqual(reply.status, 200, "\(reply.json)", file: file, line: line)
        return try XCTUnwrap(reply.json["ticket"] as? String, file: file, line: line)
    }

    /// An open subscription on `port` (the main node by default).
    func subscribe(_ user: MLSTestUser, convoID: String? = nil, cursor: String? = nil, port: Int? = nil,
                   file: StaticString = #filePath, line: UInt = #line) throws -> EventStreamClient {
        let client = try EventStreamClient(port: port ?? service.app.port, ticket: try ticket(user, convoID: convoID),
                                           cursor: cursor)
        XCTAssertEqual(client.handshake.status, 101, "\(client.handshake.json)", file: file, line: line)
        return client
    }

    /// Alice and Bob in one conversation, both with group state.
    func pair() throws -> (flow: ChatFlow, alice: MLSTestUser, bob: MLSTestUser, convo: String) {
        let flow = ChatFlow(service: try service)
        let alice = flow.user(), bob = flow.user()
        try flow.publishKeyPackage(bob)
        let convo = try flow.createConvo(alice, with: [bob])
        try flow.join(bob, convo)
        return (flow, alice, bob, convo)
    }

    /// Sends `count` messages from `user`; returns their message seqs.
    func send(_ flow: ChatFlow, _ user: MLSTestUser, _ convo: String, count: Int, label: String) throws -> [Int] {
        try (0..<count).map { index in
            let reply = try flow.send(user, convo, "\(label) \(index)")
            XCTAssertEqual(reply.status, 200, "\(reply.json)")
            return try XCTUnwrap(reply.json["seq"] as? Int)
        }
    }

    static func isMessage(_ event: [String: Any]) -> Bool {
        event["$type"] as? String == "blue.catbird.mls.subscribeConvoEvents#messageEvent"
    }

    static func isApplicationMessage(_ event: [String: Any]) -> Bool {
        isMessage(event) && event["messageType"] as? String == "app"
    }
}

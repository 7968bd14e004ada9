import XCTest

/// Tests over conversations whose members all joined, refusals read as XRPC errors: what
/// IntegrityTests and SealedCommitTests share.
class ChatTestCase: ServiceTestCase {
    struct Chat {
        let flow: ChatFlow
        let users: [MLSTestUser]
        let convo: String
    }

    /// `count` users; the first creates the conversation with the others, who join. `sealed`: the
    /// conversation has sealed handshakes, and every member frames its own as PrivateMessages.
    func chat(_ count: Int, sealed: Bool = false) throws -> Chat {
        var flow = ChatFlow(service: try service)
        flow.sealed = sealed
        let users = (0..<count).map { _ in flow.user() }
        for user in users.dropFirst() { try flow.publishKeyPackage(user) }
        let convo = try flow.createConvo(users[0], with: Array(users.dropFirst()))
        for user in users.dropFirst() { try flow.join(user, convo) }
        return Chat(flow: flow, users: users, convo: convo)
    }

    func call(_ method: String, as user: MLSTestUser, _ body: [String: Any]) throws -> ServiceHarness.Reply {
        try service.call("blue.catbird.mls." + method, as: user.identity, json: body)
    }

    /// The reply is the XRPC error `status` `name`, and its message names `words` (if given).
    func expect(_ reply: ServiceHarness.Reply, _ status: Int, _ name: String, saying words: String? = nil,
                file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(reply.status, status, "\(reply.json)", file: file, line: line)
        XCTAssertEqual(reply.error, name, file: file, line: line)
        if let words {
            XCTAssertTrue((reply.json["message"] as? String ?? "").contains(words), "\(reply.json)", file: file, line: line)
        }
    }
}

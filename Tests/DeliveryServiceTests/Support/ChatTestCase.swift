import XCTest

/// Tests over conversations whose members all joined, refusals read as XRPC errors: what
/// IntegrityTests and SealedCommitTests share.
class ChatTestCase: ServiceTestCase {
    /// `count` users in one conversation (`ChatFlow.chat`).
    func chat(_ count: Int, sealed: Bool = false) throws -> Chat {
        try ChatFlow(service: try service).chat(count, sealed: sealed)
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

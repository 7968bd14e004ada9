import ChatProtocol
import Dispatch
import Foundation
import HTTP
import MLSClient
import Primitives
import Synchronization
import XCTest

/// sendMessage's group commit (`appendChatMessages`): concurrent messages of several devices share
/// batches and get exactly the answers of the unbatched path: dense seqs, one entry per message
/// id, a repeat answered byte for byte as the first time, every reader able to verify and decrypt.
final class ChatMessageBatchTests: ChatContractTestCase {
    func testConcurrentMessagesAreStoredOnceEachWithDenseSeqs() throws {
        let (alice, _) = try enrolled()
        let (bob, bobIdentity) = try enrolled()
        let (carol, carolIdentity) = try enrolled()
        let (conversation, _) = try alice.create(inviting: [bobIdentity.did.rawValue, carolIdentity.did.rawValue])
        try bob.accept(conversation)
        try alice.fulfil(try recovery(for: bob, in: conversation, seenBy: alice))
        try join(bob)
        try carol.accept(conversation)
        try alice.fulfil(try recovery(for: carol, in: conversation, seenBy: alice))
        try join(carol)
        // One message each first: the service has then seen every device's key (the batched path).
        try alice.send(conversation, text: "warm up")
        try bob.send(conversation, text: "warm up")
        _ = try carol.read(conversation)

        let nsid = ChatAPI.nsid("sendMessage")
        var requests: [[UInt8]] = []
        var tokens: [String] = []
        for sender in [alice, bob] {
            try sender.sync(conversation)
            let prior = try sender.coordinates(conversation)
            for index in 0..<25 {
                let request = try sender.seal("\(sender.device.did) \(index)", in: conversation, at: prior)
                requests.append(ChatJSON.render(request.input(for: nsid)))
                tokens.append(try sender.api.token(nsid))
                tokens.append(try sender.api.token(nsid))
            }
        }
        // Every request twice: the repeat must get the first answer, byte for byte.
        let work = requests.indices.map { ($0, requests[$0], tokens[2 * $0]) }
            + requests.indices.map { ($0, requests[$0], tokens[2 * $0 + 1]) }
        let replies = Mutex<[Int: ServiceHarness.Reply]>([:])
        let url = try service.baseURL + "/xrpc/" + nsid
        let http = HTTPClient(timeout: 30, maxBodySize: 1 << 20, allowPrivateAddresses: true)
        DispatchQueue.concurrentPerform(iterations: work.count) { index in
            let (_, json, token) = work[index]
            let response = try? http.send(method: "POST", url, headers: [("Authorization", "Bearer " + token), ("Content-Type", "application/json")],
                                          body: json)
            replies.withLock { $0[index] = response.map { ServiceHarness.Reply(status: $0.status, headers: $0.headers, body: $0.body) } }
        }
        let answered = replies.withLock { $0 }
        XCTAssertEqual(answered.count, work.count)
        var seqs: [UInt64] = []
        for index in requests.indices {
            let first = try XCTUnwrap(answered[index]), repeated = try XCTUnwrap(answered[index + requests.count])
            XCTAssertEqual(first.status, 200, "\(first.json)")
            XCTAssertEqual(repeated.status, 200, "\(repeated.json)")
            XCTAssertEqual(first.body, repeated.body, "a repeat is answered as the first time")
            seqs.append(try XCTUnwrap((first.json["entry"] as? [String: Any])?["seq"] as? UInt64))
        }
        let start = try XCTUnwrap(seqs.min())
        XCTAssertEqual(seqs.sorted(), Array(start..<(start + UInt64(requests.count))), "dense, each once")

        // carol reads them all, each verified and decrypted.
        let texts = try carol.read(conversation).map(\.text)
        XCTAssertEqual(texts.count, requests.count)
        XCTAssertEqual(Set(texts).count, requests.count)
    }
}

import Foundation
import Lexicon
@testable import MLSClient
import XCTest

/// What each method puts on the wire: verb, path, parameters, JSON body, idempotency keys, and
/// pagination across pages.
final class MethodCallTests: XCTestCase {
    var server: ScriptedServer!
    var client: MLSAPIClient!

    override func setUpWithError() throws {
        server = try ScriptedServer()
        client = MLSAPIClient(configuration: .init(baseURL: server.baseURL, retry: .none), tokenProvider: { _ in "t" })
    }

    override func tearDown() { server.stop() }

    func convo(_ id: String) -> String {
        #"{"id":"\#(id)","groupId":"\#(id)","creator":"did:plc:a","members":[],"epoch":0,"cipherSuite":"1","createdAt":"t"}"#
    }

    func testProceduresPostJSONWithAnIdempotencyKey() async throws {
        let nsid = "blue.catbird.mls.removeMember"
        server.script(nsid, .init(status: 200, body: #"{"ok":true,"newEpoch":3}"#))
        let output = try await client.removeMember(RemoveMemberInput(convoId: "ab", targetDid: "did:plc:b", commit: [7]))
        XCTAssertEqual(output.newEpoch, 3)
        let seen = try XCTUnwrap(server.requests(nsid).first)
        XCTAssertEqual(seen.method, "POST")
        XCTAssertEqual(seen.header("Content-Type"), "application/json")
        XCTAssertEqual(seen.json["targetDid"] as? String, "did:plc:b")
        XCTAssertEqual(seen.json["commit"] as? [String: String], ["$bytes": "Bw"])
        XCTAssertEqual((seen.json["idempotencyKey"] as? String)?.count, 36)
    }

    func testGivenIdempotencyKeyIsKept() async throws {
        let nsid = "blue.catbird.mls.commitGroupChange"
        server.script(nsid, .init(status: 200, body: #"{"newEpoch":8}"#))
        _ = try await client.commitGroupChange(CommitGroupChangeInput(convoId: "ab", commit: [1], idempotencyKey: "mine"))
        XCTAssertEqual(server.requests(nsid).first?.json["idempotencyKey"] as? String, "mine")
    }

    func testQueriesSendRepeatedParameters() async throws {
        let nsid = "blue.catbird.mls.getKeyPackages"
        server.script(nsid, .init(status: 200, body: #"{"keyPackages":[],"missing":["did:plc:a"]}"#))
        let output = try await client.getKeyPackages(dids: ["did:plc:a", "did:plc:b"], cipherSuite: "X")
        XCTAssertEqual(output.missing, ["did:plc:a"])
        let seen = try XCTUnwrap(server.requests(nsid).first)
        XCTAssertEqual(seen.method, "GET")
        XCTAssertEqual(seen.query, "dids=did%3Aplc%3Aa&dids=did%3Aplc%3Ab&cipherSuite=X")
        XCTAssertTrue(seen.body.isEmpty)
    }

    func testConvoPagesFollowTheCursorUntilItEnds() async throws {
        let nsid = "blue.catbird.mls.getConvos"
        server.script(nsid,
                      .init(status: 200, body: #"{"conversations":[\#(convo("a")),\#(convo("b"))],"cursor":"c1"}"#),
                      .init(status: 200, body: #"{"conversations":[\#(convo("c"))]}"#))
        let all = try await client.allConvos(pageSize: 2)
        XCTAssertEqual(all.map(\.id), ["a", "b", "c"])
        let queries = server.requests(nsid).map(\.query)
        XCTAssertEqual(queries, ["limit=2", "limit=2&cursor=c1"])
    }

    func testMessagePagesUseTheCursorAsSinceSeq() async throws {
        let nsid = "blue.catbird.mls.getMessages"
        func message(_ seq: Int) -> String {
            #"{"id":"m\#(seq)","convoId":"ab","sender":"did:plc:a","ciphertext":{"$bytes":"AQ"},"epoch":0,"seq":\#(seq),"createdAt":"t","messageType":"app"}"#
        }
        server.script(nsid,
                      .init(status: 200, body: #"{"messages":[\#(message(4)),\#(message(5))],"lastSeq":6,"cursor":"5"}"#),
                      .init(status: 200, body: #"{"messages":[\#(message(6))],"lastSeq":6}"#))
        let all = try await client.allMessages(convoId: "ab", sinceSeq: 3, pageSize: 2)
        XCTAssertEqual(all.map(\.seq), [4, 5, 6])
        XCTAssertEqual(server.requests(nsid).map(\.query),
                       ["convoId=ab&sinceSeq=3&limit=2", "convoId=ab&sinceSeq=5&limit=2"])
    }

    func testAStuckCursorEndsThePages() async throws {
        let nsid = "blue.catbird.mls.getConvos"
        server.script(nsid, .init(status: 200, body: #"{"conversations":[\#(convo("a"))],"cursor":"same"}"#))
        var iterator = client.convoPages().makeAsyncIterator()
        var pages = 0
        while try await iterator.next() != nil { pages += 1 }
        XCTAssertEqual(pages, 2)
    }

    func testOversizedBlobIsRefusedBeforeSending() async {
        do {
            _ = try await client.uploadBlob(convoId: "ab", data: [UInt8](repeating: 0, count: MLSAPIClient.maxBlobSize + 1))
            XCTFail("expected blobTooLarge")
        } catch {
            XCTAssertEqual(error, .blobTooLarge(size: MLSAPIClient.maxBlobSize + 1, limit: MLSAPIClient.maxBlobSize))
        }
        XCTAssertEqual(server.requests("blue.catbird.mls.uploadBlob").count, 0)
    }

    func testServiceBlobTooLargeMapsToBlobTooLarge() async throws {
        let nsid = "blue.catbird.mls.uploadBlob"
        server.script(nsid, .init(status: 413, body: #"{"error":"BlobTooLarge","message":"quota"}"#))
        do {
            _ = try await client.uploadBlob(convoId: "ab", data: [1, 2, 3])
            XCTFail("expected blobTooLarge")
        } catch {
            XCTAssertEqual(error, .blobTooLarge(size: 3, limit: MLSAPIClient.maxBlobSize))
        }
        let seen = try XCTUnwrap(server.requests(nsid).first)
        XCTAssertEqual(seen.query, "convoId=ab")
        XCTAssertEqual(seen.body, [1, 2, 3])
        XCTAssertEqual(seen.header("Content-Type"), "application/octet-stream")
    }

    func testSubscriptionIsNotSupported() {
        XCTAssertThrowsError(try client.subscribeConvoEvents(ticket: "x")) { error in
            guard case .notSupported = error as? MLSAPIError else { return XCTFail("got \(error)") }
        }
    }
}

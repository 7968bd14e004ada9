import ATProto
import Foundation
import HTTP
@testable import MLSClient
import Primitives
import Synchronization
import TestSupport
import XCTest

/// Retries against a real loopback server: 503 then 200, 429 with Retry-After, 400 never retried;
/// waits are recorded instead of slept, so no test depends on the clock.
final class RetryPolicyTests: XCTestCase {
    final class SleepRecorder: Sendable {
        let delays = Mutex<[Double]>([])
        var recorded: [Double] { delays.withLock { $0 } }
        var sleep: @Sendable (Double) async -> Void { { [self] seconds in delays.withLock { $0.append(seconds) } } }
    }

    var server: ScriptedServer!
    let recorder = SleepRecorder()
    let epochNSID = "blue.catbird.mls.getEpoch"

    override func setUpWithError() throws { server = try ScriptedServer() }
    override func tearDown() { server.stop() }

    func client(maxAttempts: Int = 4, tokens: MLSTokenProvider? = { nsid in "token-for-\(nsid)" }) -> MLSAPIClient {
        let policy = RetryPolicy(maxAttempts: maxAttempts, baseDelay: 0.5, maxDelay: 4, jitter: { 1 }, sleep: recorder.sleep)
        return MLSAPIClient(configuration: .init(baseURL: server.baseURL, timeout: 5, retry: policy), tokenProvider: tokens)
    }

    let epochOK = ScriptedServer.Canned(status: 200, body: #"{"convoId":"ab","currentEpoch":4}"#)

    func testServiceUnavailableThenSuccessIsRetried() async throws {
        server.script(epochNSID, .init(status: 503, body: #"{"error":"ServiceUnavailable","message":"later"}"#), epochOK)
        let output = try await client().getEpoch(convoId: "ab")
        XCTAssertEqual(output.currentEpoch, 4)
        XCTAssertEqual(server.requests(epochNSID).count, 2)
        XCTAssertEqual(recorder.recorded, [0.5])
    }

    func testBackoffDoublesUpToTheLimitAndGivesUp() async throws {
        server.script(epochNSID, .init(status: 500, body: #"{"error":"InternalServerError","message":"boom"}"#))
        do {
            _ = try await client(maxAttempts: 5).getEpoch(convoId: "ab")
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error, .http(status: 500, error: "InternalServerError", message: "boom"))
        }
        XCTAssertEqual(server.requests(epochNSID).count, 5)
        XCTAssertEqual(recorder.recorded, [0.5, 1, 2, 4])
    }

    func testJitterScalesTheWaitBetweenHalfAndFull() {
        let low = RetryPolicy(baseDelay: 1, jitter: { 0 }).delay(afterAttempt: 2, error: .http(status: 502, error: nil, message: nil), retryAfter: nil)
        let high = RetryPolicy(baseDelay: 1, jitter: { 0.999 }).delay(afterAttempt: 2, error: .http(status: 502, error: nil, message: nil), retryAfter: nil)
        XCTAssertEqual(low, 1)
        XCTAssertEqual(try XCTUnwrap(high), 2, accuracy: 0.01)
    }

    func testTooManyRequestsHonoursRetryAfter() async throws {
        server.script(epochNSID, .init(status: 429, headers: [("Retry-After", "3")], body: #"{"error":"RateLimitExceeded","message":"slow"}"#), epochOK)
        let output = try await client().getEpoch(convoId: "ab")
        XCTAssertEqual(output.currentEpoch, 4)
        XCTAssertEqual(server.requests(epochNSID).count, 2)
        XCTAssertEqual(recorder.recorded, [3])
    }

    func testRetryAfterBeyondTheCapIsNotWaitedOut() async {
        server.script(epochNSID, .init(status: 429, headers: [("Retry-After", "3600")], body: #"{"error":"RateLimitExceeded","message":"slow"}"#), epochOK)
        do {
            _ = try await client().getEpoch(convoId: "ab")
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error.status, 429)
            XCTAssertEqual(error.xrpcError, "RateLimitExceeded")
        }
        XCTAssertEqual(server.requests(epochNSID).count, 1)
        XCTAssertEqual(recorder.recorded, [])
    }

    func testClientErrorsAreNeverRetried() async {
        for (status, name) in [(400, "InvalidRequest"), (401, "BadJwt"), (403, "NotMember"), (404, "ConvoNotFound"), (409, "EpochMismatch")] {
            server.script(epochNSID, .init(status: status, body: #"{"error":"\#(name)","message":"no"}"#), epochOK)
            let before = server.requests(epochNSID).count
            do {
                _ = try await client().getEpoch(convoId: "ab")
                XCTFail("expected \(status)")
            } catch {
                XCTAssertEqual(error, .http(status: status, error: name, message: "no"))
            }
            XCTAssertEqual(server.requests(epochNSID).count, before + 1, "status \(status) must not be retried")
        }
        XCTAssertEqual(recorder.recorded, [])
    }

    func testNonJSONErrorBodyStillGivesTheStatus() async {
        server.script(epochNSID, .init(status: 418, body: "teapot"))
        do {
            _ = try await client().getEpoch(convoId: "ab")
            XCTFail("expected an error")
        } catch {
            XCTAssertEqual(error, .http(status: 418, error: nil, message: nil))
        }
    }

    func testConnectionRefusedIsANetworkErrorRetriedThenReported() async throws {
        let (fd, port) = try Self.closedLoopbackPort()
        _ = fd
        let policy = RetryPolicy(maxAttempts: 3, baseDelay: 0.1, jitter: { 1 }, sleep: recorder.sleep)
        let client = MLSAPIClient(configuration: .init(baseURL: "http://127.0.0.1:\(port)", timeout: 2, retry: policy),
                                  tokenProvider: { _ in "t" })
        do {
            _ = try await client.getEpoch(convoId: "ab")
            XCTFail("expected a network error")
        } catch {
            guard case .network(.connectFailed) = error else { return XCTFail("got \(error)") }
        }
        XCTAssertEqual(recorder.recorded.count, 2)
    }

    func testUndecodableSuccessIsADecodingError() async {
        server.script(epochNSID, .init(status: 200, body: #"{"convoId":"ab"}"#))
        do {
            _ = try await client().getEpoch(convoId: "ab")
            XCTFail("expected a decoding error")
        } catch {
            guard case .decoding = error else { return XCTFail("got \(error)") }
        }
        XCTAssertEqual(server.requests(epochNSID).count, 1)
    }

    func testRetryAfterParsing() {
        XCTAssertEqual(RetryPolicy.parseRetryAfter("120"), 120)
        XCTAssertNil(RetryPolicy.parseRetryAfter("-1"))
        XCTAssertNil(RetryPolicy.parseRetryAfter("soon"))
        XCTAssertNil(RetryPolicy.parseRetryAfter(nil))
        let now = Date(timeIntervalSince1970: 1_445_412_480)
        XCTAssertEqual(RetryPolicy.parseRetryAfter("Wed, 21 Oct 2015 07:28:30 GMT", now: now), 30)
        XCTAssertEqual(RetryPolicy.parseRetryAfter("Wed, 21 Oct 2015 07:00:00 GMT", now: now), 0)
    }

    /// A port nothing listens on any more: a listener bound by the kernel, then closed.
    static func closedLoopbackPort() throws -> (Int32, UInt16) {
        let (fd, port) = try LoopbackHTTPServer.listenOnLoopback()
        close(fd)
        return (fd, port)
    }
}

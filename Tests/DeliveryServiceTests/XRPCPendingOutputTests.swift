@testable import ATProto
import Basics
import Dispatch
@testable import DeliveryService
import Foundation
@testable import HTTP
import Synchronization
import XCTest

/// A handler's pending output (`XRPCOutput.pending`, sendMessage's batched path) through the router
/// without sockets: the answer goes through the resumption once the work completes, after the
/// middleware steps (metrics, the deferred replay record) ran on it; the work starts only once that
/// way back is wired, so what the work does after completing never holds its answer back.
final class XRPCPendingOutputTests: XCTestCase {
    static let alice = try! DID("did:plc:ewvi7nxzyoun6zhxrhs64oiz")
    static let nsid = "blue.catbird.mls.later"

    /// Where the test completes the pending work from, and what it saw.
    final class Work: Sendable {
        let complete = Mutex<(@Sendable (XRPCPendingOutput.Outcome) -> Void)?>(nil)
        let started = DispatchSemaphore(value: 0)
        let settle = Atomic<Bool>(false)

        func finish(_ outcome: XRPCPendingOutput.Outcome) {
            let complete = self.complete.withLock { $0 }
            complete!(outcome)
        }
    }

    /// What the token record (AUTH.md check 9) saw: a second record of one jti is a replay.
    final class Replays: Sendable {
        let recorded = Mutex<[String]>([])

        func record(_ claim: ReplayClaim) throws(AuthError) {
            let fresh = recorded.withLock { seen in
                guard !seen.contains(claim.jti) else { return false }
                seen.append(claim.jti)
                return true
            }
            guard fresh else { throw AuthError(name: AuthError.badJwt, message: "replayed") }
        }
    }

    /// A router with one authenticated method whose output is pending until `work.finish`, and
    /// whose token is recorded in the handler (as sendMessage's) unless `work.settle` says the
    /// work recorded it.
    func router(_ work: Work, replays: Replays, metrics: ServiceMetrics, afterCompleting: (@Sendable () -> Void)? = nil) -> XRPCRouter {
        var method = XRPCMethod(Self.nsid, .procedure) { context in
            let replay = context.deferredReplay
            return .pending(XRPCPendingOutput { complete in
                work.complete.withLock { $0 = { outcome in
                    if work.settle.load(ordering: .relaxed) { replay?.settle() }
                    complete(outcome)
                } }
                work.started.signal()
                if let afterCompleting {
                    work.finish(.success(.json(["now": true])))
                    afterCompleting()
                }
            })
        }
        method.recordsReplayInHandler = true
        let checks = ServiceAuthChecks(
            check: { header, _ throws(AuthError) in
                guard let header, header.hasPrefix("Bearer ") else { throw AuthError(name: AuthError.badJwt, message: "no token") }
                return .verified(ReplayClaim(did: Self.alice, jti: String(header.dropFirst(7)), until: Date().addingTimeInterval(60)))
            },
            fetch: { _, _, _ in .refused },
            record: { claim throws(AuthError) in try replays.record(claim) })
        return XRPCRouter(methods: [method], serviceAuth: checks, log: Log(minimum: .error), metrics: metrics)
    }

    func request(jti: String) -> HTTPRequest {
        var headers = HTTPHeaders()
        headers.add("Authorization", "Bearer \(jti)")
        return HTTPRequest(head: HTTPRequestHead(method: .post, target: "/xrpc/" + Self.nsid, headers: headers),
                           remoteAddress: "192.0.2.1")
    }

    /// Where a set-aside request's answers land: a resumption that records them (running the
    /// request again is a failure here).
    final class Answers: Sendable {
        let list = Mutex<[HTTPResponse]>([])
        let arrived = DispatchSemaphore(value: 0)

        var statuses: [Int] { list.withLock { $0.map(\.status) } }

        func resumption() -> HTTPResumption {
            HTTPResumption(attempt: 0, again: { XCTFail("a pending answer never runs the request again") }, answer: { response in
                self.list.withLock { $0.append(response) }
                self.arrived.signal()
            })
        }
    }

    func errorName(_ response: HTTPResponse) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return object?["error"] as? String
    }

    func testPendingOutput_AnswersThroughTheResumption_OnceItsWorkCompletes_CountedOnce() {
        let work = Work(), replays = Replays(), metrics = ServiceMetrics(nsids: [Self.nsid])
        work.settle.store(true, ordering: .relaxed)
        let router = router(work, replays: replays, metrics: metrics)
        let answers = Answers()
        XCTAssertNil(router.respond(to: request(jti: "one"), resumption: answers.resumption()))
        XCTAssertEqual(work.started.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(answers.statuses.count, 0)
        XCTAssertEqual(metrics.requests(nsid: Self.nsid, status: 200), 0)
        DispatchQueue.global().async { work.finish(.success(.json(["seq": 7]))) }
        XCTAssertEqual(answers.arrived.wait(timeout: .now() + 10), .success)
        let response = answers.list.withLock { $0 }
        XCTAssertEqual(response.map(\.status), [200])
        XCTAssertEqual(String(decoding: response[0].body, as: UTF8.self), #"{"seq":7}"#)
        XCTAssertEqual(metrics.requests(nsid: Self.nsid, status: 200), 1)
        // The work said it recorded the token: the router did not record it again.
        XCTAssertEqual(replays.recorded.withLock { $0 }, [])
    }

    func testPendingFailure_IsAnsweredAsTheHandlersThrow_AndAnUnsettledTokenIsRecordedThen() {
        let work = Work(), replays = Replays(), metrics = ServiceMetrics(nsids: [Self.nsid])
        let router = router(work, replays: replays, metrics: metrics)
        let answers = Answers()
        XCTAssertNil(router.respond(to: request(jti: "two"), resumption: answers.resumption()))
        XCTAssertEqual(work.started.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(replays.recorded.withLock { $0 }, [], "the token is the handler's to record until its work ends")
        work.finish(.failure(XRPCError(409, .convoAlreadyExists, "exists")))
        XCTAssertEqual(answers.arrived.wait(timeout: .now() + 10), .success)
        let response = answers.list.withLock { $0[0] }
        XCTAssertEqual(response.status, 409)
        XCTAssertEqual(errorName(response), "ConvoAlreadyExists")
        XCTAssertEqual(replays.recorded.withLock { $0 }, ["two"])
        XCTAssertEqual(metrics.requests(nsid: Self.nsid, status: 409), 1)

        // The same token again: its unsettled record now finds the first, and the answer is 401
        // whatever the work said.
        XCTAssertNil(router.respond(to: request(jti: "two"), resumption: answers.resumption()))
        XCTAssertEqual(work.started.wait(timeout: .now() + 10), .success)
        work.finish(.success(.empty))
        XCTAssertEqual(answers.arrived.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(answers.statuses, [409, 401])
        XCTAssertEqual(metrics.requests(nsid: Self.nsid, status: 401), 1)
    }

    /// A handler that answered 503 may have committed the token's record with its write although
    /// its answer was lost (a failover): the record found afterwards is its own, and the 503 stands.
    func testUnavailable_StaysUnavailable_WhenTheTokensRecordIsFoundAlready() {
        let work = Work(), replays = Replays(), metrics = ServiceMetrics(nsids: [Self.nsid])
        let router = router(work, replays: replays, metrics: metrics)
        XCTAssertNoThrow(try replays.record(ReplayClaim(did: Self.alice, jti: "five", until: Date().addingTimeInterval(60))),
                         "the record the lost commit made")
        let answers = Answers()
        XCTAssertNil(router.respond(to: request(jti: "five"), resumption: answers.resumption()))
        XCTAssertEqual(work.started.wait(timeout: .now() + 10), .success)
        work.finish(.failure(XRPCError.unavailable))
        XCTAssertEqual(answers.arrived.wait(timeout: .now() + 10), .success)
        let response = answers.list.withLock { $0[0] }
        XCTAssertEqual(response.status, 503)
        XCTAssertEqual(response.headers["Retry-After"], "1")
        XCTAssertTrue(metrics.authFailures.snapshot.isEmpty, "no auth failure counted")
    }

    func testWorkThatGoesOnAfterCompleting_DoesNotHoldItsAnswer() {
        // As sendMessage's batch leader: it completes its own message, then runs the lane's next
        // batches on the same thread. The answer must not wait for that.
        let work = Work(), replays = Replays(), metrics = ServiceMetrics(nsids: [Self.nsid])
        let release = DispatchSemaphore(value: 0), returned = DispatchSemaphore(value: 0)
        let router = router(work, replays: replays, metrics: metrics) { _ = release.wait(timeout: .now() + 30) }
        let answers = Answers()
        let resumption = answers.resumption(), request = request(jti: "three")
        DispatchQueue.global().async {
            XCTAssertNil(router.respond(to: request, resumption: resumption))
            returned.signal()
        }
        XCTAssertEqual(answers.arrived.wait(timeout: .now() + 10), .success, "answered while the work still runs")
        XCTAssertEqual(returned.wait(timeout: .now()), .timedOut)
        XCTAssertEqual(answers.statuses, [200])
        release.signal()
        XCTAssertEqual(returned.wait(timeout: .now() + 10), .success)
    }

    func testWithoutAResumption_ThePendingOutputIsWaitedFor() {
        let work = Work(), replays = Replays(), metrics = ServiceMetrics(nsids: [Self.nsid])
        work.settle.store(true, ordering: .relaxed)
        let router = router(work, replays: replays, metrics: metrics)
        DispatchQueue.global().async {
            _ = work.started.wait(timeout: .now() + 10)
            work.finish(.success(.json(["late": true])))
        }
        let response = router.respond(to: request(jti: "four"))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(String(decoding: response.body, as: UTF8.self), #"{"late":true}"#)
        XCTAssertEqual(metrics.requests(nsid: Self.nsid, status: 200), 1)
    }
}

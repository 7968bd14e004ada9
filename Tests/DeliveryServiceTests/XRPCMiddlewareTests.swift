import ATProto
import Basics
@testable import DeliveryService
import HTTP
import Synchronization
import XCTest

/// The router's middleware chain without sockets: the order of its steps, that a handler's caller
/// is the DID the verifier returned and nothing else, and what each refusal looks like. (Service
/// auth itself, with real tokens, is tested in ATProtoTests and over the wire in the integration
/// tests.)
final class XRPCMiddlewareTests: XCTestCase {
    static let alice = try! DID("did:plc:ewvi7nxzyoun6zhxrhs64oiz")

    /// A verifier that accepts `Bearer good` as alice and counts its calls.
    final class Verifier: Sendable {
        let calls = Atomic<Int>(0)

        func verify(_ header: String?, _ nsid: String) throws(AuthError) -> DID {
            calls.add(1, ordering: .relaxed)
            guard header == "Bearer good" else {
                throw AuthError(name: AuthError.badJwtSignature, message: "bad token")
            }
            return XRPCMiddlewareTests.alice
        }
    }

    /// What the handlers saw, in order.
    final class Seen: Sendable {
        private let values = Mutex<[String]>([])
        func append(_ value: String) { values.withLock { $0.append(value) } }
        var all: [String] { values.withLock { $0 } }
    }

    let verifier = Verifier()
    let seen = Seen()

    func router(rateLimits: RateLimits? = nil, metrics: ServiceMetrics? = nil, verify: Bool = true) -> XRPCRouter {
        let seen = self.seen
        let methods = [
            XRPCMethod("blue.catbird.mls.whoami", .query) { context in
                seen.append(context.caller.rawValue)
                return .empty
            },
            XRPCMethod.unauthenticated("blue.catbird.mls.open", .query) { context in
                seen.append("open \(context.nsid)")
                return .empty
            },
            XRPCMethod("blue.catbird.mls.addMembers", .procedure) { _ in
                throw XRPCError(400, .invalidCommit, "no")
            },
        ]
        let verifier = self.verifier
        var authenticate: (@Sendable (String?, String) throws(AuthError) -> DID)?
        if verify { authenticate = { header, nsid throws(AuthError) in try verifier.verify(header, nsid) } }
        return XRPCRouter(methods: methods, authenticate: authenticate, log: Log(minimum: .error),
                          rateLimits: rateLimits, metrics: metrics)
    }

    func request(_ nsid: String, method: HTTPMethod = .get, authorization: String? = nil,
                 from address: String = "192.0.2.1") -> HTTPRequest {
        var headers = HTTPHeaders()
        if let authorization { headers.add("Authorization", authorization) }
        return HTTPRequest(head: HTTPRequestHead(method: method, target: "/xrpc/" + nsid, headers: headers),
                           remoteAddress: address)
    }

    func errorName(_ response: HTTPResponse) -> String? {
        let object = try? JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
        return object?["error"] as? String
    }

    func testHandler_SeesTheVerifiedCaller() {
        let response = router().respond(to: request("blue.catbird.mls.whoami", authorization: "Bearer good"))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(seen.all, [Self.alice.rawValue])
    }

    func testFailedAuth_Is401_AndTheHandlerNeverRuns() {
        let metrics = ServiceMetrics(nsids: ["blue.catbird.mls.whoami"])
        let router = router(metrics: metrics)
        let refused = router.respond(to: request("blue.catbird.mls.whoami", authorization: "Bearer forged"))
        XCTAssertEqual(refused.status, 401)
        XCTAssertEqual(errorName(refused), "BadJwtSignature")
        XCTAssertEqual(refused.headers["WWW-Authenticate"], "Bearer")
        let missing = router.respond(to: request("blue.catbird.mls.whoami"))
        XCTAssertEqual(missing.status, 401)
        XCTAssertEqual(seen.all, [])
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: metrics.authFailures.snapshot.map { ($0.label, $0.value) }),
                       ["BadJwtSignature": 2])
        XCTAssertEqual(metrics.requests(nsid: "blue.catbird.mls.whoami", status: 401), 2)
    }

    func testWithoutAVerifier_AuthenticatedMethodsAre401() {
        let response = router(verify: false).respond(to: request("blue.catbird.mls.whoami", authorization: "Bearer good"))
        XCTAssertEqual(response.status, 401)
        XCTAssertEqual(errorName(response), "AuthenticationRequired")
        XCTAssertEqual(seen.all, [])
    }

    func testUnauthenticatedMethod_RunsWithoutTheVerifier() {
        let response = router().respond(to: request("blue.catbird.mls.open"))
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(seen.all, ["open blue.catbird.mls.open"])
        XCTAssertEqual(verifier.calls.load(ordering: .relaxed), 0)
    }

    /// metrics → IP limit → method check → auth → DID limit → handler.
    func testOrder_IPLimitThenMethodThenAuthThenCallerLimit() {
        var configuration = RateLimitConfiguration()
        configuration.perIP = RateLimitRule(ratePerSecond: 0.001, burst: 3)
        configuration.perDID[.read] = RateLimitRule(ratePerSecond: 0.001, burst: 1)
        let metrics = ServiceMetrics(nsids: ["blue.catbird.mls.whoami", "blue.catbird.mls.addMembers"])
        let router = router(rateLimits: RateLimits(configuration: configuration, clock: { 0 }), metrics: metrics)

        // A wrong verb is refused before any token work.
        let wrongVerb = router.respond(to: request("blue.catbird.mls.whoami", method: .post, authorization: "Bearer good"))
        XCTAssertEqual(wrongVerb.status, 405)
        XCTAssertEqual(verifier.calls.load(ordering: .relaxed), 0)
        // The first call spends the caller's one read token; the second is refused after auth.
        XCTAssertEqual(router.respond(to: request("blue.catbird.mls.whoami", authorization: "Bearer good")).status, 200)
        let overDID = router.respond(to: request("blue.catbird.mls.whoami", authorization: "Bearer good"))
        XCTAssertEqual(overDID.status, 429)
        XCTAssertEqual(verifier.calls.load(ordering: .relaxed), 2)
        XCTAssertEqual(metrics.rateLimitedCount(scope: "read"), 1)
        // The address has spent its three tokens: even an unknown NSID is now refused before lookup.
        let overIP = router.respond(to: request("blue.catbird.mls.nothing"))
        XCTAssertEqual(overIP.status, 429)
        XCTAssertEqual(errorName(overIP), "RateLimitExceeded")
        XCTAssertEqual(metrics.rateLimitedCount(scope: "ip"), 1)
        XCTAssertEqual(metrics.requests(nsid: "_unknown", status: 429), 1)
        XCTAssertEqual(seen.all, [Self.alice.rawValue])
        // Another address is unaffected; an unknown NSID is 404.
        let unknown = router.respond(to: request("blue.catbird.mls.nothing", from: "192.0.2.2"))
        XCTAssertEqual(unknown.status, 404)
        XCTAssertEqual(errorName(unknown), "MethodNotImplemented")
    }

    func testCommitRejections_AreCountedByErrorName() {
        let metrics = ServiceMetrics(nsids: ["blue.catbird.mls.addMembers"])
        let response = router(metrics: metrics).respond(to: request("blue.catbird.mls.addMembers", method: .post, authorization: "Bearer good"))
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(errorName(response), "InvalidCommit")
        XCTAssertEqual(metrics.commitRejections.snapshot.map(\.label), ["InvalidCommit"])
        XCTAssertEqual(metrics.epochsAdvanced.value, 0)
    }

    func testErrorNames_AreDeclaredOnce() {
        let names = XRPCErrorName.all.map(\.rawValue)
        XCTAssertEqual(Set(names).count, names.count, "a name declared twice")
        XCTAssertTrue(names.allSatisfy { $0.first?.isUppercase == true && $0.allSatisfy(\.isLetter) })
    }
}

@testable import ATProto
import Basics
import Dispatch
@testable import DeliveryService
import Foundation
import HTTP
import Synchronization
import XCTest

/// `XRPCMethod.startsOnIOThread` through the real HTTP server: the handler starts on the I/O
/// thread, and nothing that may block runs there. The token's record after a refusal (a write),
/// the handler's `blocking` part, and a request set aside for its issuer's DID document all run
/// elsewhere (on workers).
final class XRPCIOThreadStartTests: XCTestCase {
    static let alice = try! DID("did:plc:ewvi7nxzyoun6zhxrhs64oiz")

    /// The steps in order, each with the thread it ran on: "io" for the server's one I/O thread
    /// (learnt from a plain route, which is answered there), "other" for any other. Threads are told
    /// apart by pthread id: Foundation's thread names read back unreliably on a thread's first use.
    final class Seen: Sendable {
        private let steps = Mutex<[(step: String, thread: UInt)]>([])
        private let ioThread = Mutex<UInt?>(nil)

        func noteIOThread() { ioThread.withLock { $0 = UInt(pthread_self()) } }

        func note(_ step: String) { steps.withLock { $0.append((step, UInt(pthread_self()))) } }

        var all: [String] {
            let io = ioThread.withLock { $0 }
            return steps.withLock { $0.map { "\($0.step)@\($0.thread == io ? "io" : "other")" } }
        }
    }

    /// Tokens "Bearer <jti>"; a jti starting with "fetch-" needs its issuer's document once.
    func startServer(_ seen: Seen, recordsReplayInHandler: Bool = true) throws -> String {
        func method(_ name: String, _ handler: @escaping @Sendable (AuthenticatedContext) throws -> XRPCOutput) -> XRPCMethod {
            var method = XRPCMethod("blue.catbird.mls.test.\(name)", .procedure, handler: handler)
            method.recordsReplayInHandler = recordsReplayInHandler
            method.startsOnIOThread = true
            return method
        }
        let methods = [
            method("refuse") { context in
                seen.note("handler onIOThread=\(context.isOnIOThread)")
                throw XRPCError.invalidRequest("no")
            },
            method("answer") { context in
                seen.note("handler onIOThread=\(context.isOnIOThread)")
                return .json(["ok": true])
            },
            method("block") { context in
                seen.note("handler onIOThread=\(context.isOnIOThread)")
                let replay = context.deferredReplay
                return try context.blocking {
                    seen.note("blocking")
                    replay?.settle()
                    return .json(["ok": true])
                }
            },
        ]
        let fetched = Mutex<Set<String>>([])
        let checks = ServiceAuthChecks(
            check: { header, _ throws(AuthError) in
                guard let header, header.hasPrefix("Bearer ") else { throw AuthError(name: AuthError.badJwt, message: "no token") }
                let jti = String(header.dropFirst(7))
                if jti.hasPrefix("fetch-"), !fetched.withLock({ $0.contains(jti) }) { return .needsKey(Self.alice, forced: false) }
                return .verified(ReplayClaim(did: Self.alice, jti: jti, until: Date().addingTimeInterval(60)))
            },
            fetch: { _, _, then in
                seen.note("fetch")
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.05) {
                    fetched.withLock { $0.formUnion(["fetch-1"]) }
                    then()
                }
                return .started
            },
            record: { _ throws(AuthError) in seen.note("record") })
        let plain: [String: @Sendable (HTTPRequest) -> HTTPResponse] = ["/io": { _ in
            seen.noteIOThread()
            return HTTPResponse(status: 200)
        }]
        let router = XRPCRouter(methods: methods, plainRoutes: plain, serviceAuth: checks, log: Log(minimum: .error))
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, ioThreads: 1, workerThreads: 2),
                                responder: router)
        try server.start()
        addTeardownBlock { server.shutdown() }
        XCTAssertEqual(try HTTPClient(timeout: 5, allowPrivateAddresses: true).get("http://127.0.0.1:\(server.port)/io").status, 200)
        return "http://127.0.0.1:\(server.port)/xrpc/blue.catbird.mls.test."
    }

    func call(_ base: String, _ name: String, jti: String) throws -> Int {
        try HTTPClient(timeout: 5, allowPrivateAddresses: true)
            .send(method: "POST", base + name, headers: [("Authorization", "Bearer \(jti)"), ("Content-Type", "application/json")],
                  body: Array("{}".utf8)).status
    }

    func testRefusal_StartsOnTheIOThread_AndRecordsTheTokenOnAWorker() throws {
        let seen = Seen()
        let base = try startServer(seen)
        XCTAssertEqual(try call(base, "refuse", jti: "a"), 400)
        XCTAssertEqual(seen.all, ["handler onIOThread=true@io", "record@other"])
    }

    func testAnswerGivenAtOnce_IsSentFromAWorker_AfterTheTokenRecord() throws {
        let seen = Seen()
        let base = try startServer(seen)
        XCTAssertEqual(try call(base, "answer", jti: "b"), 200)
        XCTAssertEqual(seen.all, ["handler onIOThread=true@io", "record@other"])
    }

    func testBlockingPart_RunsOnAWorker() throws {
        let seen = Seen()
        let base = try startServer(seen)
        XCTAssertEqual(try call(base, "block", jti: "c"), 200)
        // The blocking part recorded the token itself (settled): no record on the way back.
        XCTAssertEqual(seen.all, ["handler onIOThread=true@io", "blocking@other"])
    }

    func testRequestWaitingForADIDDocument_RunsAgainOnAWorker() throws {
        let seen = Seen()
        let base = try startServer(seen)
        XCTAssertEqual(try call(base, "block", jti: "fetch-1"), 200)
        XCTAssertEqual(seen.all, ["fetch@io", "handler onIOThread=false@other", "blocking@other"])
    }

    func testMethodThatRecordsItsTokenBeforeTheHandler_NeverStartsOnTheIOThread() throws {
        let seen = Seen()
        let base = try startServer(seen, recordsReplayInHandler: false)
        XCTAssertEqual(try call(base, "answer", jti: "d"), 200)
        XCTAssertEqual(seen.all, ["record@other", "handler onIOThread=false@other"])
    }
}

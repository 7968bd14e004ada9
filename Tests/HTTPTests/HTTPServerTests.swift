import Dispatch
import Foundation
import Synchronization
import XCTest
@testable import HTTP

/// Starts the real server on 127.0.0.1, port 0, and speaks raw HTTP to it.
final class HTTPServerTests: XCTestCase {
    /// The threads that answered inline and blocking requests.
    final class ThreadLog: Sendable {
        private let threads = Mutex<(inline: Set<UInt>, blocking: Set<UInt>)>(([], []))

        func record(blocking: Bool) {
            let id = UInt(pthread_self())
            threads.withLock { if blocking { $0.blocking.insert(id) } else { $0.inline.insert(id) } }
        }

        var inline: Set<UInt> { threads.withLock { $0.inline } }
        var blocking: Set<UInt> { threads.withLock { $0.blocking } }
    }

    /// Paths under /block run on the worker pool; /block/slow sleeps first; /small accepts 16 bytes.
    /// The body echoes method, path and the request body.
    struct EchoResponder: HTTPResponder {
        var slowStarted: DispatchSemaphore?
        var log = ThreadLog()

        func maxBodySize(for head: HTTPRequestHead) -> Int {
            head.path == "/small" ? 16 : -1
        }

        func mayBlock(_ head: HTTPRequestHead) -> Bool {
            head.path.hasPrefix("/block")
        }

        func respond(to request: HTTPRequest) -> HTTPResponse {
            if request.path.hasPrefix("/block/slow") {
                slowStarted?.signal()
                usleep(300_000)
            }
            log.record(blocking: mayBlock(request.head))
            if request.path == "/large" {
                return HTTPResponse(status: 200, body: HTTPServerTests.largeBody)
            }
            if request.path == "/highwater" {
                return HTTPResponse(status: 200, body: Array(HTTPServerTests.largeBody[0..<ConnectionTransport.Limits().outputHighWater]))
            }
            let text = "\(request.method) \(request.path) " + String(decoding: request.body, as: UTF8.self)
            return HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array(text.utf8))
        }
    }

    /// 4 MiB, more than the loopback socket buffers hold, in a pattern that shows misordered bytes.
    static let largeBody = [UInt8](unsafeUninitializedCapacity: 4 << 20) { buffer, count in
        for index in 0..<buffer.count { buffer[index] = UInt8(truncatingIfNeeded: index % 251) }
        count = buffer.count
    }

    private func startServer(
        responder: any HTTPResponder = EchoResponder(),
        _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }
    ) throws -> HTTPServer {
        try startLoopbackServer(for: self, responder: responder, configure)
    }

    private func get(_ path: String, extra: String = "") -> String { getRequest(path, extra: extra) }

    // MARK: Basics

    func testEphemeralPort_IsExposed() throws {
        let server = try startServer()
        XCTAssertGreaterThan(server.port, 0)
        XCTAssertNotEqual(server.port, 8080)
    }

    func testBothListenerModes_ServeRequests() throws {
        for reusePort in [false, true] {
            let server = try startServer { $0.reusePort = reusePort; $0.ioThreads = 3 }
            let clients = try (0..<6).map { _ in try RawClient(port: server.port) }
            for (index, client) in clients.enumerated() {
                client.send(get("/mode/\(index)"))
                XCTAssertEqual(try client.readResponse().bodyText, "GET /mode/\(index) ")
            }
            server.shutdown()
        }
    }

    func testInvalidListenAddress_Throws() {
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "not-an-address", port: 0), responder: EchoResponder())
        XCTAssertThrowsError(try server.start()) { XCTAssertEqual($0 as? SocketError, .invalidAddress("not-an-address")) }
        XCTAssertEqual(server.port, 0)
    }

    func testPortInUse_Throws() throws {
        let first = try startServer()
        let second = HTTPServer(configuration: HTTPServerConfiguration(port: first.port), responder: EchoResponder())
        XCTAssertThrowsError(try second.start()) { XCTAssertEqual($0 as? SocketError, .failed(call: "bind", code: EADDRINUSE)) }
    }

    func testSharedListener_SpreadsConnectionsOverTheLoops() throws {
        let responder = EchoResponder()
        let server = try startServer(responder: responder) { $0.reusePort = false; $0.ioThreads = 2 }
        // Opened one after another, each wakes whichever loop is idle; without the hand-over, one
        // loop would serve them all.
        let clients = try (0..<8).map { _ in try RawClient(port: server.port) }
        for (index, client) in clients.enumerated() {
            client.send(get("/c\(index)"))
            XCTAssertEqual(try client.readResponse().bodyText, "GET /c\(index) ")
        }
        XCTAssertEqual(responder.log.inline.count, 2, "inline requests were answered by both I/O threads")
    }

    func testKeepAlive_ServesSeveralRequestsOnOneConnection() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        for index in 0..<5 {
            client.send(get("/r\(index)"))
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.bodyText, "GET /r\(index) ")
            XCTAssertNil(response.header("connection"))
            XCTAssertNotNil(response.header("date"))
        }
    }

    func testPipelinedRequests_AreAnsweredInOrder_AcrossTheWorkerPool() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        let paths = ["/a", "/block/slow", "/b", "/block/c", "/d"]
        client.send(paths.map { get($0) }.joined())
        for path in paths {
            let response = try client.readResponse()
            XCTAssertEqual(response.status, 200)
            XCTAssertEqual(response.bodyText, "GET \(path) ")
        }
    }

    func testConnectionClose_ClosesAfterTheResponse() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send(get("/x", extra: "Connection: close\r\n") + get("/never"))
        let response = try client.readResponse()
        XCTAssertEqual(response.header("connection"), "close")
        XCTAssertEqual(response.bodyText, "GET /x ")
        XCTAssertTrue(try client.isClosedByPeer())
    }

    func testHTTP10_ClosesUnlessKeepAliveIsAsked() throws {
        let server = try startServer()
        let plain = try RawClient(port: server.port)
        plain.send("GET /old HTTP/1.0\r\n\r\n")
        XCTAssertEqual(try plain.readResponse().header("connection"), "close")
        XCTAssertTrue(try plain.isClosedByPeer())

        let kept = try RawClient(port: server.port)
        kept.send("GET /old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        XCTAssertEqual(try kept.readResponse().header("connection"), "keep-alive")
        kept.send("GET /again HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
        XCTAssertEqual(try kept.readResponse().bodyText, "GET /again ")
    }

    func testHEAD_HasLengthButNoBody() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send("HEAD /h HTTP/1.1\r\nHost: t\r\n\r\n" + get("/after"))
        let head = try client.readResponse(toHEAD: true)
        XCTAssertEqual(head.header("content-length"), "HEAD /h ".utf8.count.description)
        XCTAssertEqual(try client.readResponse().bodyText, "GET /after ")
    }

    func testLargeResponses_SurviveASlowReader() throws {
        let expected = Self.largeBody
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send(get("/large") + get("/large") + get("/after"))
        // Let the server fill the socket buffer and wait for writability.
        usleep(200_000)
        for _ in 0..<2 {
            let response = try client.readResponse()
            XCTAssertEqual(response.body.count, expected.count)
            XCTAssertTrue(response.body == expected)
        }
        XCTAssertEqual(try client.readResponse().bodyText, "GET /after ")
    }

    /// The slow-reader stall, made deterministic: a response of exactly the output high-water mark
    /// stops the pipeline, and the loopback socket takes all of it in the flush that follows.
    func testPipelinedRequest_BehindAResponseThatFillsTheOutputQueue_IsAnswered() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send(get("/highwater") + get("/after"))
        let response = try client.readResponse()
        XCTAssertEqual(response.body.count, ConnectionTransport.Limits().outputHighWater)
        XCTAssertEqual(try client.readResponse().bodyText, "GET /after ")
    }

    /// The header timeout measures the client's delay, not ours: a request that waits behind a
    /// response the client is slow to read is answered normally, however long that takes.
    func testPipelinedRequest_HeldBehindASlowRead_IsNotTimedOut() throws {
        let server = try startServer { $0.headerReadTimeout = 0.2 }
        let client = try RawClient(port: server.port)
        client.send(get("/large") + get("/after"))
        // Several header timeouts pass while the server waits for us to read.
        usleep(1_000_000)
        XCTAssertEqual(try client.readResponse().body.count, Self.largeBody.count)
        let after = try client.readResponse()
        XCTAssertEqual(after.status, 200)
        XCTAssertEqual(after.bodyText, "GET /after ")
    }

    func testHalfClosedClient_GetsAnswersToEveryRequestItSent() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send(get("/block/one") + get("/two") + get("/block/three"))
        client.shutdownWrite()
        for path in ["/block/one", "/two", "/block/three"] {
            XCTAssertEqual(try client.readResponse().bodyText, "GET \(path) ")
        }
        XCTAssertTrue(try client.isClosedByPeer())
    }

    func testHalfClosedClient_StillGetsItsResponse() throws {
        let server = try startServer()
        for path in ["/inline", "/block/x"] {
            let client = try RawClient(port: server.port)
            client.send(get(path))
            client.shutdownWrite()
            XCTAssertEqual(try client.readResponse().bodyText, "GET \(path) ")
            XCTAssertTrue(try client.isClosedByPeer())
        }
    }

    // MARK: Bodies

    func testContentLengthAndChunkedBodies_ReachTheResponder() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send("POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello")
        XCTAssertEqual(try client.readResponse().bodyText, "POST /p hello")
        client.send("POST /block/p HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nT: 1\r\n\r\n")
        XCTAssertEqual(try client.readResponse().bodyText, "POST /block/p abcde")
    }

    func testBodyOverTheResponderLimit_Is413AndCloses() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send("POST /small HTTP/1.1\r\nHost: t\r\nContent-Length: 17\r\n\r\n" + String(repeating: "x", count: 17))
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 413)
        XCTAssertTrue(response.bodyText.contains(#""error":"PayloadTooLarge""#))
        XCTAssertEqual(response.header("connection"), "close")
        XCTAssertTrue(try client.isClosedByPeer())

        let chunked = try RawClient(port: server.port)
        chunked.send("POST /small HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n0123456789abcdef\r\n1\r\n")
        XCTAssertEqual(try chunked.readResponse().status, 413)
        XCTAssertTrue(try chunked.isClosedByPeer())
    }

    func testDefaultBodyLimit_AppliesWhenTheResponderDefers() throws {
        let server = try startServer { $0.defaultMaxBodySize = 100 }
        let client = try RawClient(port: server.port)
        client.send("POST /big HTTP/1.1\r\nHost: t\r\nContent-Length: 101\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 413)
    }

    func testExpectContinue_SendsContinueOnlyForAcceptableBodies() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send("POST /p HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 4\r\n\r\n")
        let interim = try client.readResponse()
        XCTAssertEqual(interim.status, 100)
        client.send("body")
        XCTAssertEqual(try client.readResponse().bodyText, "POST /p body")

        let refused = try RawClient(port: server.port)
        refused.send("POST /small HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 1000\r\n\r\n")
        XCTAssertEqual(try refused.readResponse().status, 413)
        XCTAssertTrue(try refused.isClosedByPeer())

        let unknown = try RawClient(port: server.port)
        unknown.send("POST /p HTTP/1.1\r\nHost: t\r\nExpect: teapot\r\nContent-Length: 1\r\n\r\n")
        XCTAssertEqual(try unknown.readResponse().status, 417)
    }

    // MARK: Errors

    func testGarbage_Is400AndCloses() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send("\u{16}\u{03}\u{01}\u{02}\u{00}binary junk\r\n\r\n")
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 400)
        XCTAssertEqual(response.header("content-type"), "application/json")
        XCTAssertTrue(response.bodyText.contains(#""error":"InvalidRequest""#))
        XCTAssertTrue(try client.isClosedByPeer())
    }

    func testSmuggledFraming_Is400() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send("POST / HTTP/1.1\r\nHost: t\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 400)
        XCTAssertTrue(try client.isClosedByPeer())
    }

    func testUnsupportedVersion_Is505() throws {
        let server = try startServer()
        let client = try RawClient(port: server.port)
        client.send("GET / HTTP/2.0\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try client.readResponse().status, 505)
    }

    func testOversizedHeaders_Are431() throws {
        let server = try startServer { $0.maxHeaderBytes = 1024 }
        let client = try RawClient(port: server.port)
        client.send(get("/", extra: "X-Big: " + String(repeating: "b", count: 2000) + "\r\n"))
        let response = try client.readResponse()
        XCTAssertEqual(response.status, 431)
        XCTAssertTrue(response.bodyText.contains("RequestHeaderFieldsTooLarge"))
        XCTAssertTrue(try client.isClosedByPeer())
    }

    func testRandomBytesFromTheNetwork_LeaveTheServerServing() throws {
        let server = try startServer { $0.headerReadTimeout = 0.3; $0.bodyReadTimeout = 0.3; $0.idleTimeout = 0.3 }
        var generator = SystemRandomNumberGenerator()
        let seeds = ["GET / HTTP/1.1\r\nHost: t\r\n\r\n", "POST /block/x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"]
        for round in 0..<40 {
            var bytes = Array(seeds[round % 2].utf8)
            for _ in 0..<4 {
                bytes[Int.random(in: 0..<bytes.count, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if round.isMultiple(of: 5) { bytes = (0..<200).map { _ in UInt8.random(in: 0...255, using: &generator) } }
            let client = try RawClient(port: server.port)
            client.send(bytes)
            // Whatever the answer, the server ends the exchange: a response, a close, or both.
            _ = try client.readUntilClosedOrIdle()
        }
        let client = try RawClient(port: server.port)
        client.send(get("/alive"))
        XCTAssertEqual(try client.readResponse().bodyText, "GET /alive ")
    }

    // MARK: Timeouts and limits

    func testSlowHeaders_AreCutOffByTheHeaderTimeout() throws {
        let server = try startServer { $0.headerReadTimeout = 0.5 }
        let client = try RawClient(port: server.port)
        // Dribble a head that never ends, one byte every 50 ms, until the server gives up.
        let dribble = Array("GET /slow HTTP/1.1\r\nHost: t\r\nX-Slow: ".utf8) + Array(repeating: UInt8(ascii: "s"), count: 400)
        var closed = false
        for byte in dribble {
            if !client.send([byte]) {
                closed = true
                break
            }
            usleep(50_000)
            if client.isReadable() {
                XCTAssertEqual(try client.readResponse().status, 408)
                closed = try client.isClosedByPeer()
                break
            }
        }
        XCTAssertTrue(closed, "the server kept a dribbling client open")
    }

    func testSilentConnection_IsClosedByTheHeaderTimeout() throws {
        let server = try startServer { $0.headerReadTimeout = 0.3 }
        let client = try RawClient(port: server.port)
        XCTAssertTrue(try client.isClosedByPeer())
    }

    func testSlowBody_IsCutOffByTheBodyTimeout() throws {
        let server = try startServer { $0.bodyReadTimeout = 0.3 }
        let client = try RawClient(port: server.port)
        client.send("POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 100\r\n\r\npartial")
        XCTAssertEqual(try client.readResponse().status, 408)
        XCTAssertTrue(try client.isClosedByPeer())
    }

    func testIdleConnection_IsClosedAfterTheIdleTimeout() throws {
        let server = try startServer { $0.idleTimeout = 0.3 }
        let client = try RawClient(port: server.port)
        client.send(get("/once"))
        XCTAssertEqual(try client.readResponse().status, 200)
        XCTAssertTrue(try client.isClosedByPeer())
    }

    func testActiveConnection_OutlivesTheIdleTimeout() throws {
        let server = try startServer { $0.idleTimeout = 1 }
        let client = try RawClient(port: server.port)
        // Requests keep coming at a quarter of the idle timeout, for twice its length.
        for index in 0..<8 {
            client.send(get("/tick/\(index)"))
            XCTAssertEqual(try client.readResponse().bodyText, "GET /tick/\(index) ")
            usleep(250_000)
        }
    }

    func testConnectionsBeyondTheLimit_Get503() throws {
        let server = try startServer { $0.maxConnections = 2 }
        let first = try RawClient(port: server.port)
        let second = try RawClient(port: server.port)
        for client in [first, second] {
            client.send(get("/hold"))
            XCTAssertEqual(try client.readResponse().status, 200)
        }
        let third = try RawClient(port: server.port)
        let refused = try third.readResponse()
        XCTAssertEqual(refused.status, 503)
        XCTAssertTrue(try third.isClosedByPeer())

        // The held connections still work.
        first.send(get("/still"))
        XCTAssertEqual(try first.readResponse().bodyText, "GET /still ")
    }

    func testConnectionsPerAddress_AreLimited() throws {
        let server = try startServer { $0.maxConnectionsPerIP = 2 }
        let first = try RawClient(port: server.port)
        var second: RawClient? = try RawClient(port: server.port)
        for client in [first, second!] {
            client.send(get("/hold"))
            XCTAssertEqual(try client.readResponse().status, 200)
        }
        let third = try RawClient(port: server.port)
        XCTAssertEqual(try third.readResponse().status, 503)
        XCTAssertTrue(try third.isClosedByPeer())

        // Another address has its own allowance.
        let elsewhere = try RawClient(port: server.port, sourceAddress: "127.0.0.2")
        elsewhere.send(get("/other"))
        XCTAssertEqual(try elsewhere.readResponse().bodyText, "GET /other ")
        XCTAssertEqual(server.connectionCount, 3)

        // A freed slot is usable again.
        second = nil
        XCTAssertTrue(eventually { server.connectionCount == 2 })
        let fourth = try RawClient(port: server.port)
        fourth.send(get("/again"))
        XCTAssertEqual(try fourth.readResponse().bodyText, "GET /again ")
        XCTAssertNil(second)
    }

    // MARK: Worker pool and shutdown

    func testBlockingHandlers_ServeConcurrentClients() throws {
        let responder = EchoResponder()
        let server = try startServer(responder: responder) { $0.workerThreads = 8 }
        let port = server.port
        let failures = Mutex(0)
        DispatchQueue.concurrentPerform(iterations: 16) { index in
            do {
                let client = try RawClient(port: port)
                for round in 0..<3 {
                    let path = round == 1 ? "/block/slow/\(index)" : "/block/\(index)/\(round)"
                    client.send("POST \(path) HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\n\(index % 10)\(round)")
                    let response = try client.readResponse()
                    if response.bodyText != "POST \(path) \(index % 10)\(round)" { failures.withLock { $0 += 1 } }
                }
            } catch {
                failures.withLock { $0 += 1 }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, 0)
        // Slow handlers overlapped on several workers.
        XCTAssertGreaterThan(responder.log.blocking.count, 1)
    }

    func testBlockingAndInlineRequests_RunOnDifferentThreads() throws {
        let responder = EchoResponder()
        let server = try startServer(responder: responder)
        let client = try RawClient(port: server.port)
        for index in 0..<10 {
            client.send(get(index.isMultiple(of: 2) ? "/block/\(index)" : "/inline/\(index)"))
            XCTAssertEqual(try client.readResponse().status, 200)
        }
        XCTAssertFalse(responder.log.inline.isEmpty)
        XCTAssertFalse(responder.log.blocking.isEmpty)
        XCTAssertTrue(responder.log.inline.isDisjoint(with: responder.log.blocking))
    }

    func testShutdown_FinishesInFlightRequestsThenStops() throws {
        let started = DispatchSemaphore(value: 0)
        let server = try startServer(responder: EchoResponder(slowStarted: started))
        let port = server.port
        let idle = try RawClient(port: port)
        idle.send(get("/warm"))
        XCTAssertEqual(try idle.readResponse().status, 200)

        let busy = try RawClient(port: port)
        busy.send(get("/block/slow"))
        XCTAssertEqual(started.wait(timeout: .now() + 5), .success)
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            server.shutdown()
            stopped.signal()
        }
        let response = try busy.readResponse()
        XCTAssertEqual(response.status, 200)
        XCTAssertEqual(response.bodyText, "GET /block/slow ")
        XCTAssertEqual(response.header("connection"), "close")
        XCTAssertTrue(try busy.isClosedByPeer())
        XCTAssertTrue(try idle.isClosedByPeer())
        XCTAssertEqual(stopped.wait(timeout: .now() + 10), .success)
        XCTAssertThrowsError(try RawClient(port: port))
    }
}

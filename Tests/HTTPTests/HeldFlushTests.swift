import Dispatch
import Foundation
import XCTest
@testable import HTTP

/// Answers written at the end of a loop's round (`IOLoop.holdsFlushes`): one I/O thread is stalled
/// by an inline request while many clients send theirs, so the next round carries all of them, more
/// than `IOLoop.maxHeldFlushes`, and every answer must still reach its client whole and in order.
final class HeldFlushTests: XCTestCase {
    /// `/stall` sleeps inline (holding the loop); `/block…` runs on the worker pool; every answer
    /// echoes method, path and body.
    struct StallingResponder: HTTPResponder {
        func mayBlock(_ head: HTTPRequestHead) -> Bool { head.path.hasPrefix("/block") }

        func respond(to request: HTTPRequest) -> HTTPResponse {
            if request.path == "/stall" { usleep(200_000) }
            let text = "\(request.method) \(request.path) " + String(decoding: request.body, as: UTF8.self)
            return HTTPResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Array(text.utf8))
        }
    }

    func testAnswersHeldToTheEndOfARound_AllArrive_InOrder() throws {
        let server = try startLoopbackServer(for: self, responder: StallingResponder(), ioThreads: 1, workerThreads: 2)
        let clientCount = IOLoop.maxHeldFlushes * 3
        let clients = try (0..<clientCount).map { _ in try RawClient(port: server.port) }
        // Every connection is open on the loop before it stalls.
        for client in clients {
            client.send(getRequest("/warm"))
            XCTAssertEqual(try client.readResponse().bodyText, "GET /warm ")
        }
        let staller = try RawClient(port: server.port)
        staller.send(getRequest("/stall"))
        usleep(50_000)
        // While the loop sleeps: pipelined pairs, bodies, a close, a HEAD and worker-pool requests.
        for (index, client) in clients.enumerated() {
            switch index % 5 {
            case 0: client.send(getRequest("/a\(index)") + getRequest("/b\(index)"))
            case 1: client.send("POST /p\(index) HTTP/1.1\r\nHost: test\r\nContent-Length: 5\r\n\r\nhello")
            case 2: client.send(getRequest("/c\(index)", extra: "Connection: close\r\n"))
            case 3: client.send("HEAD /h\(index) HTTP/1.1\r\nHost: test\r\n\r\n" + getRequest("/after\(index)"))
            default: client.send(getRequest("/block/\(index)"))
            }
        }
        XCTAssertEqual(try staller.readResponse().bodyText, "GET /stall ")
        for (index, client) in clients.enumerated() {
            switch index % 5 {
            case 0:
                XCTAssertEqual(try client.readResponse().bodyText, "GET /a\(index) ")
                XCTAssertEqual(try client.readResponse().bodyText, "GET /b\(index) ")
            case 1:
                XCTAssertEqual(try client.readResponse().bodyText, "POST /p\(index) hello")
            case 2:
                let response = try client.readResponse()
                XCTAssertEqual(response.bodyText, "GET /c\(index) ")
                XCTAssertEqual(response.header("connection"), "close")
                XCTAssertTrue(try client.isClosedByPeer())
            case 3:
                let head = try client.readResponse(toHEAD: true)
                XCTAssertEqual(head.header("content-length"), "HEAD /h\(index) ".utf8.count.description)
                XCTAssertEqual(try client.readResponse().bodyText, "GET /after\(index) ")
            default:
                XCTAssertEqual(try client.readResponse().bodyText, "GET /block/\(index) ")
            }
        }
        // The loop still answers at once afterwards.
        clients[0].send(getRequest("/again"))
        XCTAssertEqual(try clients[0].readResponse().bodyText, "GET /again ")
    }
}

import Dispatch
import Foundation
import Synchronization
import XCTest
@testable import HTTP

/// WebSocket connections on the real server, driven by a raw-socket client.
final class WebSocketServerTests: XCTestCase {
    /// Echoes messages; "close:<code>" makes the server close with that code; records what happened.
    final class EchoHandler: WebSocketHandler {
        let opened = Mutex<Int>(0)
        let closeCodes = Mutex<[UInt16]>([])
        let closed = DispatchSemaphore(value: 0)

        func didOpen(connection: WebSocketConnection) {
            opened.withLock { $0 += 1 }
        }

        func didReceive(text: String, connection: WebSocketConnection) {
            if text.hasPrefix("close:"), let code = UInt16(text.dropFirst(6)) {
                connection.close(code: WebSocketCloseCode(rawValue: code), reason: "asked")
            } else {
                connection.send(text: text)
            }
        }

        func didReceive(binary: [UInt8], connection: WebSocketConnection) {
            connection.send(binary: binary)
        }

        func didClose(code: WebSocketCloseCode, connection: WebSocketConnection) {
            closeCodes.withLock { $0.append(code.rawValue) }
            closed.signal()
        }

        func waitForClose(file: StaticString = #filePath, line: UInt = #line) -> UInt16? {
            guard closed.wait(timeout: .now() + 5) == .success else {
                XCTFail("didClose not called", file: file, line: line)
                return nil
            }
            return closeCodes.withLock { $0.last }
        }
    }

    /// /ws and /block/ws accept (the latter decided on the worker pool), /private refuses with 403,
    /// anything else is an ordinary request.
    struct Responder: HTTPResponder {
        let handler: any WebSocketHandler

        func mayBlock(_ head: HTTPRequestHead) -> Bool { head.path.hasPrefix("/block") }

        func webSocketUpgrade(for request: HTTPRequest) -> WebSocketUpgrade? {
            switch request.path {
            case "/ws", "/block/ws": .accept(handler, headers: ["Sec-WebSocket-Protocol": "chat"])
            case "/private": .reject(HTTPResponse(status: 403))
            default: nil
            }
        }

        func respond(to request: HTTPRequest) -> HTTPResponse {
            HTTPResponse(status: 200, body: Array("plain \(request.path)".utf8))
        }
    }

    private func startServer(handler: any WebSocketHandler, _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }) throws -> HTTPServer {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, ioThreads: 2, workerThreads: 2)
        configure(&configuration)
        let server = HTTPServer(configuration: configuration, responder: Responder(handler: handler))
        try server.start()
        addTeardownBlock { server.shutdown() }
        return server
    }

    func testHandshake_Switches_AndEchoesTextAndBinary() throws {
        let handler = EchoHandler()
        let server = try startServer(handler: handler)
        var clients: [WebSocketTestClient] = []
        for path in ["/ws", "/block/ws"] {
            let client = try WebSocketTestClient(port: server.port, path: path)
            clients.append(client)
            XCTAssertEqual(client.handshake.status, 101)
            XCTAssertEqual(client.handshake.header("Sec-WebSocket-Accept"), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
            XCTAssertEqual(client.handshake.header("Upgrade")?.lowercased(), "websocket")
            XCTAssertEqual(client.handshake.header("Sec-WebSocket-Protocol"), "chat")
            client.send(text: "hello ☃")
            XCTAssertEqual(try client.readFrame(), WebSocketFrame(opcode: .text, payload: Array("hello ☃".utf8)))
            let binary = (0..<70_000).map { UInt8(truncatingIfNeeded: $0) }
            client.send(.binary, binary)
            XCTAssertEqual(try client.readFrame(), WebSocketFrame(opcode: .binary, payload: binary))
        }
        XCTAssertTrue(eventually { server.webSocketCount == 2 })
    }

    func testRefusedAndOrdinaryUpgrades_StayHTTP() throws {
        let server = try startServer(handler: EchoHandler())
        let refused = try WebSocketTestClient(port: server.port, path: "/private")
        XCTAssertEqual(refused.handshake.status, 403)
        refused.raw.send("GET /after HTTP/1.1\r\nHost: t\r\n\r\n")
        XCTAssertEqual(try refused.raw.readResponse().bodyText, "plain /after")
        let ignored = try WebSocketTestClient(port: server.port, path: "/other")
        XCTAssertEqual(ignored.handshake.status, 200)
        let badVersion = try RawClient(port: server.port)
        badVersion.send("GET /ws HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(WebSocketTestClient.key)\r\nSec-WebSocket-Version: 7\r\n\r\n")
        let response = try badVersion.readResponse()
        XCTAssertEqual(response.status, 426)
        XCTAssertEqual(response.header("Sec-WebSocket-Version"), "13")
        XCTAssertEqual(server.webSocketCount, 0)
    }

    func testFragmentedMessage_WithPingInBetween() throws {
        let server = try startServer(handler: EchoHandler())
        let client = try WebSocketTestClient(port: server.port)
        client.send(.text, Array("frag".utf8), fin: false)
        client.send(.ping, [7, 8])
        client.send(.continuation, Array("men".utf8), fin: false)
        client.send(.continuation, Array("ted".utf8))
        XCTAssertEqual(try client.readFrame(), WebSocketFrame(opcode: .pong, payload: [7, 8]))
        XCTAssertEqual(try client.readFrame(), WebSocketFrame(opcode: .text, payload: Array("fragmented".utf8)))
    }

    func testClientClose_IsEchoed_AndReported() throws {
        let handler = EchoHandler()
        let server = try startServer(handler: handler)
        let client = try WebSocketTestClient(port: server.port)
        client.sendClose(WebSocketCloseCode(rawValue: 4001))
        XCTAssertEqual(try client.readCloseCode(), 4001)
        XCTAssertTrue(try client.raw.isClosedByPeer())
        client.raw.shutdownWrite()
        XCTAssertEqual(handler.waitForClose(), 4001)
        XCTAssertTrue(eventually { server.webSocketCount == 0 })
    }

    func testServerClose_WaitsForThePeersCloseFrame() throws {
        let handler = EchoHandler()
        let server = try startServer(handler: handler)
        let client = try WebSocketTestClient(port: server.port)
        client.send(text: "close:4002")
        XCTAssertEqual(try client.readCloseCode(), 4002)
        client.sendClose(WebSocketCloseCode(rawValue: 4002))
        XCTAssertTrue(try client.raw.isClosedByPeer())
        client.raw.shutdownWrite()
        XCTAssertEqual(handler.waitForClose(), 4002)
    }

    func testServerClose_GivesUpAfterTheCloseTimeout() throws {
        let handler = EchoHandler()
        let server = try startServer(handler: handler) { $0.webSocket.closeTimeout = 0.2 }
        let client = try WebSocketTestClient(port: server.port)
        client.send(text: "close:1000")
        XCTAssertEqual(try client.readCloseCode(), 1000)
        XCTAssertTrue(try client.raw.isClosedByPeer())
        XCTAssertEqual(handler.waitForClose(), 1000)
    }

    func testProtocolViolations_CloseWithTheirCodes() throws {
        let handler = EchoHandler()
        let server = try startServer(handler: handler) { $0.webSocket.maxMessageSize = 1024 }
        let cases: [(WebSocketTestClient) -> Void] = [
            { $0.send(.text, Array("plain".utf8), masked: false) },
            { $0.send(.binary, [UInt8](repeating: 1, count: 2000)) },
            { $0.send(.text, [0x68, 0xC3, 0x28]) },
            { $0.raw.send([0xC1, 0x80, 0, 0, 0, 0]) },
            { $0.send(.continuation, [1]) },
        ]
        for (index, (violation, code)) in zip(cases, [1002, 1009, 1007, 1002, 1002] as [UInt16]).enumerated() {
            let client = try WebSocketTestClient(port: server.port)
            violation(client)
            XCTAssertEqual(try client.readCloseCode(), code, "case \(index)")
            XCTAssertTrue(try client.raw.isClosedByPeer(), "case \(index)")
            // Our FIN ends the server's lingering close at once.
            client.raw.shutdownWrite()
            XCTAssertEqual(handler.waitForClose(), code, "case \(index)")
        }
    }

    func testServerPings_AndDropsAPeerThatNeverAnswers() throws {
        let handler = EchoHandler()
        let server = try startServer(handler: handler) { $0.webSocket.pingInterval = 0.1; $0.webSocket.pongTimeout = 1 }
        let polite = try WebSocketTestClient(port: server.port)
        for _ in 0..<3 {
            let ping = try polite.readFrame()
            XCTAssertEqual(ping.opcode, .ping)
            polite.send(.pong, ping.payload)
        }
        polite.send(text: "still here")
        var frame = try polite.readFrame()
        while frame.opcode == .ping { frame = try polite.readFrame() }
        XCTAssertEqual(frame, WebSocketFrame(opcode: .text, payload: Array("still here".utf8)))

        let silent = try WebSocketTestClient(port: server.port)
        XCTAssertEqual(try silent.readFrame().opcode, .ping)
        XCTAssertEqual(handler.waitForClose(), 1006)
        XCTAssertTrue(try silent.raw.readUntilClosed().allSatisfy { _ in true })
    }

    func testSlowConsumer_IsClosedWith1008_WithBoundedBuffering() throws {
        final class Flooder: WebSocketHandler {
            let result = Mutex<(sent: Int, refusedAt: Int?, maxBuffered: Int)>((0, nil, 0))
            let closedWith = Mutex<UInt16?>(nil)
            let done = DispatchSemaphore(value: 0)

            func didOpen(connection: WebSocketConnection) {
                let chunk = [UInt8](repeating: 0x5A, count: 64 * 1024)
                Thread.detachNewThread { [self] in
                    // 256 MiB would be sent if nothing pushed back.
                    for index in 0..<4096 {
                        let accepted = connection.send(binary: chunk)
                        result.withLock { $0.maxBuffered = Swift.max($0.maxBuffered, connection.bufferedAmount) }
                        if !accepted {
                            result.withLock { $0.refusedAt = index }
                            break
                        }
                        result.withLock { $0.sent += 1 }
                    }
                }
            }

            func didClose(code: WebSocketCloseCode, connection: WebSocketConnection) {
                closedWith.withLock { $0 = code.rawValue }
                done.signal()
            }
        }
        let flooder = Flooder()
        let server = try startServer(handler: flooder) { $0.webSocket.maxBufferedOutput = 1 << 20; $0.webSocket.closeTimeout = 0.3 }
        let client = try WebSocketTestClient(port: server.port, receiveBufferSize: 64 * 1024)
        XCTAssertEqual(client.handshake.status, 101)
        XCTAssertEqual(flooder.done.wait(timeout: .now() + 10), .success)
        XCTAssertEqual(flooder.closedWith.withLock { $0 }, 1008)
        let result = flooder.result.withLock { $0 }
        XCTAssertNotNil(result.refusedAt)
        XCTAssertLessThanOrEqual(result.maxBuffered, 1 << 20)
        XCTAssertLessThan(result.sent, 4096)
    }

    func testPingFlood_FromAPeerThatDoesNotRead_IsCutOffWith1008() throws {
        let handler = EchoHandler()
        let server = try startServer(handler: handler) { $0.webSocket.maxBufferedOutput = 64 * 1024; $0.webSocket.closeTimeout = 0.3 }
        let client = try WebSocketTestClient(port: server.port, receiveBufferSize: 4096)
        let ping = WebSocketFrame.encode(opcode: .ping, payload: [UInt8](repeating: 7, count: 125), maskingKey: [1, 2, 3, 4])
        // 16 MiB of pongs would be owed; the server must stop well before.
        let flood = Array([[UInt8]](repeating: ping, count: 512).joined())
        let raw = client.raw
        Thread.detachNewThread {
            for _ in 0..<256 where raw.send(flood) {}
        }
        XCTAssertEqual(handler.waitForClose(), 1008)
    }

    func testShutdown_ClosesWebSocketsWith1001() throws {
        let handler = EchoHandler()
        let server = try startServer(handler: handler)
        let client = try WebSocketTestClient(port: server.port)
        client.send(text: "hi")
        XCTAssertEqual(try client.readFrame().payload, Array("hi".utf8))
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            server.shutdown()
            stopped.signal()
        }
        XCTAssertEqual(try client.readCloseCode(), 1001)
        client.sendClose(.goingAway)
        client.raw.shutdownWrite()
        XCTAssertEqual(stopped.wait(timeout: .now() + 5), .success)
        XCTAssertEqual(handler.waitForClose(), 1001)
    }
}

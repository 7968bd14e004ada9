import Foundation
import Synchronization
import XCTest
@testable import HTTP

/// A protocol other than HTTP on the server's loops (`StreamListener`): a line protocol whose session
/// echoes, pauses, posts to itself from another thread, keeps a deadline and says goodbye on drain.
final class StreamListenerTests: XCTestCase {
    /// Counts of what the sessions saw, shared with the test.
    final class Record: Sendable {
        let opened = Atomic<Int>(0)
        let closed = Atomic<Int>(0)
    }

    struct LineService: StreamService {
        let record: Record
        let tickAfter: UInt64

        func open(_ connection: StreamConnectionHandle, remoteAddress: String, now: UInt64) -> any StreamSession {
            record.opened.add(1, ordering: .relaxed)
            return LineSession(connection: connection, record: record, tickAfter: tickAfter)
        }
    }

    /// `echo X` → `X`; `pause` stops reading until a message another thread posts 200 ms later;
    /// `push` makes another thread post `pushed`; `quit` → `bye`, then close; a `tick` line when the
    /// deadline set at open passes; `drain` then close when the server stops.
    final class LineSession: StreamSession {
        let connection: StreamConnectionHandle
        let record: Record
        let tickAfter: UInt64
        var pending: [UInt8] = []

        init(connection: StreamConnectionHandle, record: Record, tickAfter: UInt64) {
            self.connection = connection
            self.record = record
            self.tickAfter = tickAfter
        }

        func opened(io: inout StreamIO) {
            io.send(Array("hello\n".utf8))
            if tickAfter > 0 { io.setDeadline(io.now + tickAfter) }
        }

        func received(_ bytes: UnsafeRawBufferPointer, io: inout StreamIO) {
            pending.append(contentsOf: bytes)
            while let end = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<end], as: UTF8.self)
                pending.removeFirst(end + 1)
                switch line {
                case "pause":
                    io.pauseReading()
                    let connection = connection
                    DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { connection.post("resume") }
                    // The rest is held by the transport until the session resumes.
                    io.send(Array("paused \(pending.count)\n".utf8))
                    return
                case "push":
                    let connection = connection
                    DispatchQueue.global().async { connection.post("pushed") }
                case "quit":
                    io.send(Array("bye\n".utf8))
                    io.closeAfterSending()
                    return
                default:
                    io.send(Array((line.hasPrefix("echo ") ? String(line.dropFirst(5)) : "?" + line).utf8) + [10])
                }
            }
        }

        func posted(_ message: any Sendable, io: inout StreamIO) {
            guard let text = message as? String else { return }
            if text == "resume" {
                io.send(Array("resumed\n".utf8))
                io.resumeReading()
            } else {
                io.send(Array((text + "\n").utf8))
            }
        }

        func deadlineReached(io: inout StreamIO) {
            io.send(Array("tick\n".utf8))
        }

        func draining(io: inout StreamIO) {
            io.send(Array("drain\n".utf8))
            io.closeAfterSending()
        }

        func closed(now: UInt64) {
            record.closed.add(1, ordering: .relaxed)
        }
    }

    private func startServer(record: Record, tickAfter: UInt64 = 0) throws -> HTTPServer {
        let configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0, ioThreads: 2, workerThreads: 2, shutdownGracePeriod: 2)
        let server = HTTPServer(configuration: configuration, responder: HTTPServerTests.EchoResponder(),
                                streams: [StreamListener(port: 0, tls: false, service: LineService(record: record, tickAfter: tickAfter))])
        try server.start()
        return server
    }

    func testEcho_AndTheHTTPListenerStillAnswers() throws {
        let record = Record()
        let server = try startServer(record: record)
        defer { server.shutdown() }
        XCTAssertNotEqual(server.streamPort(0), 0)
        XCTAssertNotEqual(server.streamPort(0), server.port)
        let client = try RawClient(port: server.streamPort(0))
        XCTAssertEqual(try client.readLine(), "hello\n")
        client.send("echo one\necho two\n")
        XCTAssertEqual(try client.readLine(), "one\n")
        XCTAssertEqual(try client.readLine(), "two\n")
        let http = try RawClient(port: server.port)
        http.send("GET /x HTTP/1.1\r\nHost: a\r\n\r\n")
        XCTAssertEqual(try http.readResponse().status, 200)
    }

    func testPausedInput_IsHeldAndDeliveredAfterResume_InOrder() throws {
        let record = Record()
        let server = try startServer(record: record)
        defer { server.shutdown() }
        let client = try RawClient(port: server.streamPort(0))
        _ = try client.readLine()
        client.send("pause\necho a\n")
        XCTAssertTrue(try client.readLine().hasPrefix("paused"))
        client.send("echo b\n")
        XCTAssertEqual(try client.readLine(), "resumed\n")
        XCTAssertEqual(try client.readLine(), "a\n")
        XCTAssertEqual(try client.readLine(), "b\n")
    }

    func testPostedMessages_ReachTheSessionOnItsThread() throws {
        let record = Record()
        let server = try startServer(record: record)
        defer { server.shutdown() }
        let client = try RawClient(port: server.streamPort(0))
        _ = try client.readLine()
        client.send("push\n")
        XCTAssertEqual(try client.readLine(), "pushed\n")
    }

    func testCloseAfterSending_DeliversTheLastBytesThenEOF_AndClosedIsCalledOnce() throws {
        let record = Record()
        let server = try startServer(record: record)
        defer { server.shutdown() }
        let client = try RawClient(port: server.streamPort(0))
        _ = try client.readLine()
        client.send("quit\necho ignored\n")
        XCTAssertEqual(try client.readLine(), "bye\n")
        XCTAssertTrue(try client.isClosedByPeer())
        let deadline = Date().addingTimeInterval(5)
        while record.closed.load(ordering: .relaxed) < 1, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(record.closed.load(ordering: .relaxed), 1)
    }

    func testTheSessionDeadline_Fires() throws {
        let record = Record()
        let server = try startServer(record: record, tickAfter: 100_000_000)
        defer { server.shutdown() }
        let client = try RawClient(port: server.streamPort(0))
        XCTAssertEqual(try client.readLine(), "hello\n")
        XCTAssertEqual(try client.readLine(), "tick\n")
    }

    func testPeerClose_EndsTheSession() throws {
        let record = Record()
        let server = try startServer(record: record)
        defer { server.shutdown() }
        do {
            let client = try RawClient(port: server.streamPort(0))
            _ = try client.readLine()
        }
        let deadline = Date().addingTimeInterval(5)
        while record.closed.load(ordering: .relaxed) < 1, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        XCTAssertEqual(record.closed.load(ordering: .relaxed), 1)
        XCTAssertEqual(server.connectionCount, 0)
    }

    func testShutdown_LetsTheSessionSayGoodbye() throws {
        let record = Record()
        let server = try startServer(record: record)
        let client = try RawClient(port: server.streamPort(0))
        _ = try client.readLine()
        let stopped = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            server.shutdown()
            stopped.signal()
        }
        XCTAssertEqual(try client.readLine(), "drain\n")
        XCTAssertTrue(try client.isClosedByPeer())
        XCTAssertEqual(stopped.wait(timeout: .now() + 5), .success)
    }

    // MARK: The machine alone

    func testMachine_HoldsInputWhilePaused_AndHandsItOverOnResume() {
        var machine = StreamConnectionMachine(limits: ConnectionTransport.Limits(readAheadLimit: 100), isTLS: false, now: 0)
        var actions: [StreamConnectionMachine.Action] = []
        machine.handle(.sessionActed(.init(pause: true)), now: 0, into: &actions)
        machine.handle(.ready(.readable), now: 0, into: &actions)
        XCTAssertEqual(actions.last, .read)
        actions = []
        machine.handle(.read(.bytes(60, short: false)), now: 0, into: &actions)
        XCTAssertEqual(actions.last, .read, "under the read-ahead limit reading goes on")
        actions = []
        machine.handle(.read(.bytes(60, short: false)), now: 0, into: &actions)
        XCTAssertEqual(actions, [], "paused with 120 bytes held: nothing to do")
        machine.handle(.sessionActed(.init(pause: false)), now: 0, into: &actions)
        XCTAssertEqual(actions, [.deliverInput])
        actions = []
        machine.handle(.sessionActed(.init(consumedInput: true)), now: 0, into: &actions)
        XCTAssertEqual(actions, [.read], "the socket may hold more")
    }

    func testMachine_DeadlineAndClose() {
        var machine = StreamConnectionMachine(limits: ConnectionTransport.Limits(), isTLS: false, now: 0)
        var actions: [StreamConnectionMachine.Action] = []
        machine.handle(.sessionActed(.init(deadline: .some(50))), now: 0, into: &actions)
        XCTAssertEqual(actions, [.setTimer(50)])
        actions = []
        machine.handle(.tick, now: 49, into: &actions)
        XCTAssertEqual(actions, [])
        machine.handle(.tick, now: 50, into: &actions)
        XCTAssertEqual(actions, [.setTimer(nil), .sessionDeadline])
        actions = []
        machine.handle(.sessionActed(.init(unsent: 10, close: true)), now: 60, into: &actions)
        XCTAssertEqual(actions, [.flush])
        actions = []
        machine.handle(.flushed(.drained, progressed: true), now: 60, into: &actions)
        XCTAssertEqual(actions, [.shutdownWrite, .setTimer(60 + ConnectionTransport.Limits().lingerTime)], "lingering after the last byte")
    }

    func testMachine_DrainWhileHandshaking_Closes() {
        var machine = StreamConnectionMachine(limits: ConnectionTransport.Limits(), isTLS: true, now: 0)
        var actions: [StreamConnectionMachine.Action] = []
        machine.handle(.drain, now: 1, into: &actions)
        XCTAssertEqual(actions, [.close])
    }
}

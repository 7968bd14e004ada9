/// The I/O-thread state of one WebSocket connection: parser, message assembly, close handshake,
/// ping timers, and the link to the handler and the thread-safe `WebSocketConnection`.
final class WebSocketSession {
    enum State: Equatable {
        case open
        /// The server sent a close frame and waits for the peer's (RFC 6455 §7.1.2).
        case closeSent
        /// Both close frames were exchanged, or the connection is being failed; no more frames are read.
        case closed
    }

    let handler: any WebSocketHandler
    let connection: WebSocketConnection
    var parser: WebSocketFrameParser
    var assembler: WebSocketMessageAssembler
    var state: State = .open
    /// The code `didClose` reports; nil until a close handshake starts.
    var closeCode: WebSocketCloseCode?
    var nextPing: UInt64 = 0
    var pongDeadline: UInt64 = 0
    var closeDeadline: UInt64 = 0
    /// Bytes at the head of the output queue written before the switch (the 101 head), which the
    /// connection's buffered count never included.
    private var uncountedOutput: Int
    private var finished = false

    init(handler: any WebSocketHandler, connection: WebSocketConnection, configuration: WebSocketConfiguration, uncountedOutput: Int) {
        self.handler = handler
        self.connection = connection
        parser = WebSocketFrameParser(maxPayloadSize: configuration.maxMessageSize)
        assembler = WebSocketMessageAssembler(maxMessageSize: configuration.maxMessageSize)
        self.uncountedOutput = uncountedOutput
    }

    /// `count` bytes of output reached the socket.
    func wrote(_ count: Int) {
        let uncounted = Swift.min(count, uncountedOutput)
        uncountedOutput -= uncounted
        connection.release(count - uncounted)
    }

    /// The TCP connection is gone: tell the handler once.
    func finish(loop: IOLoop) {
        guard !finished else { return }
        finished = true
        _ = connection.markClosing()
        loop.shared.webSocketClosed()
        handler.didClose(code: closeCode ?? .abnormalClosure, connection: connection)
    }
}

extension HTTPConnection {
    // MARK: Opening handshake

    /// A GET asking for a WebSocket: refuse a malformed handshake, else ask the responder.
    func beginUpgrade(_ request: HTTPRequest, keepAlive: Bool, loop: IOLoop) {
        let head = request.head
        switch WebSocketHandshake.validate(head) {
        case let .failure(refusal):
            send(refusal.response, method: head.method, version: head.version, keepAlive: keepAlive, loop: loop)
        case let .success(key):
            if loop.responder.mayBlock(head) {
                awaitingWorker = true
                inFlight = (head.method, head.version, keepAlive)
                upgradeRequest = head
                loop.submitUpgrade(request, key: key, from: self)
                return
            }
            switch IOLoop.decideUpgrade(request, key: key, responder: loop.responder) {
            case let .webSocketAccepted(handler, headers, key):
                switchToWebSocket(head, key: key, handler: handler, headers: headers, loop: loop)
            case let .response(response):
                send(response, method: head.method, version: head.version, keepAlive: keepAlive, loop: loop)
            case .webSocket, .resumeBody:
                break
            }
        }
    }

    /// The worker pool accepted the upgrade this connection was waiting for.
    func deliverUpgrade(_ handler: any WebSocketHandler, headers: HTTPHeaders, key: String, loop: IOLoop) {
        guard awaitingWorker, let head = upgradeRequest else { return }
        awaitingWorker = false
        inFlight = nil
        upgradeRequest = nil
        switchToWebSocket(head, key: key, handler: handler, headers: headers, loop: loop)
        flush(loop: loop)
    }

    private func switchToWebSocket(_ head: HTTPRequestHead, key: String, handler: any WebSocketHandler, headers: HTTPHeaders, loop: IOLoop) {
        enqueue(WebSocketHandshake.switchingProtocolsHead(key: key, headers: headers, date: loop.dateCache.current()))
        let configuration = loop.configuration.webSocket
        let connection = WebSocketConnection(
            request: head, remoteAddress: remoteAddress, maxBufferedOutput: configuration.maxBufferedOutput,
            handle: loop.handle, descriptor: socket.descriptor, serial: serial
        )
        let session = WebSocketSession(handler: handler, connection: connection, configuration: configuration, uncountedOutput: outputBytes)
        if configuration.pingInterval > 0 { session.nextPing = loop.now &+ MonotonicClock.nanoseconds(configuration.pingInterval) }
        webSocket = session
        phase = .webSocket
        deadline = 0
        loop.shared.webSocketOpened()
        handler.didOpen(connection: connection)
        if loop.isDraining { startWebSocketClose(.goingAway, reason: "server shutting down", loop: loop) }
    }

    // MARK: Input

    func webSocketReceived(_ count: Int, loop: IOLoop) {
        guard let session = webSocket, session.state != .closed else { return }
        if pending.isEmpty {
            let consumed = loop.receiveBuffer.withBytes(count: count) { processWebSocket($0, loop: loop) }
            if !isClosed, webSocket?.state != .closed, consumed < count {
                loop.receiveBuffer.withBytes(count: count) { pending.append(contentsOf: $0[consumed...]) }
            }
        } else {
            loop.receiveBuffer.withBytes(count: count) { pending.append(contentsOf: $0) }
            processWebSocketPending(loop: loop)
        }
        flush(loop: loop)
    }

    func processWebSocketPending(loop: IOLoop) {
        guard !pending.isEmpty else { return }
        let consumed = pending.withUnsafeBytes { processWebSocket($0, loop: loop) }
        if isClosed || webSocket?.state == .closed {
            pending = []
        } else if consumed > 0 {
            pending.removeFirst(consumed)
        }
    }

    /// Parses and dispatches every complete frame in `bytes`; returns the bytes consumed.
    private func processWebSocket(_ bytes: UnsafeRawBufferPointer, loop: IOLoop) -> Int {
        var offset = 0
        while !isClosed, let session = webSocket, session.state != .closed {
            do throws(WebSocketProtocolError) {
                let (consumed, frame) = try session.parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
                guard let frame else { break }
                offset += consumed
                if let event = try session.assembler.receive(frame) { dispatch(event, session: session, loop: loop) }
            } catch {
                // RFC 6455 §7.1.7: fail the connection with the matching status code.
                startWebSocketClose(error.closeCode, reason: "", loop: loop)
                session.state = .closed
                closeWhenFlushed = true
                return bytes.count
            }
        }
        return offset
    }

    private func dispatch(_ event: WebSocketEvent, session: WebSocketSession, loop: IOLoop) {
        switch event {
        case let .text(text):
            if session.state == .open { session.handler.didReceive(text: text, connection: session.connection) }
        case let .binary(bytes):
            if session.state == .open { session.handler.didReceive(binary: bytes, connection: session.connection) }
        case let .ping(payload):
            // RFC 6455 §5.5.2: answer with a pong carrying the same payload.
            guard session.state == .open else { return }
            let pong = WebSocketFrame.encode(opcode: .pong, payload: payload)
            // A peer that pings without reading must not grow our output past the limit either.
            guard session.connection.bufferedAmount + pong.count <= session.connection.maxBufferedOutput else {
                dropUnsentWebSocketOutput(session)
                startWebSocketClose(.policyViolation, reason: "send buffer full", loop: loop)
                return
            }
            enqueueFrame(pong, session: session)
        case .pong:
            session.pongDeadline = 0
        case let .close(code, _):
            if session.state == .open {
                // RFC 6455 §5.5.1: echo the status code, then the server closes the TCP connection first.
                _ = session.connection.markClosing()
                session.closeCode = code ?? .noStatusReceived
                let reply = code.map { WebSocketFrame.close(code: $0) } ?? WebSocketFrame(opcode: .close)
                enqueueFrame(reply.encoded(), session: session)
            }
            session.state = .closed
            closeWhenFlushed = true
        }
    }

    // MARK: Output

    /// Queues a frame the I/O thread produced itself; counted like the handler's sends.
    private func enqueueFrame(_ frame: [UInt8], session: WebSocketSession) {
        session.connection.account(frame.count)
        appendFrame(frame)
    }

    /// Appends to the last queued chunk when it is small and not partly written, so many small
    /// frames do not make a long chunk list.
    private func appendFrame(_ frame: [UInt8]) {
        if output.count >= 2, output[output.count - 1].count + frame.count <= 64 * 1024 {
            output[output.count - 1].append(contentsOf: frame)
            outputBytes += frame.count
        } else {
            enqueue(frame)
        }
    }

    /// A send, close or overflow from another thread.
    func webSocketOutbound(_ outbound: WebSocketOutbound, loop: IOLoop) {
        guard let session = webSocket else { return }
        switch outbound {
        case let .frame(bytes):
            guard session.state == .open, !closeWhenFlushed else {
                session.connection.release(bytes.count)
                return
            }
            appendFrame(bytes)
        case let .close(code, reason):
            startWebSocketClose(code, reason: reason, loop: loop)
        case .overflow:
            dropUnsentWebSocketOutput(session)
            startWebSocketClose(.policyViolation, reason: "send buffer full", loop: loop)
        }
        flush(loop: loop)
    }

    /// Discards queued frames that have not started going out; a partly written one stays so the
    /// stream of frames stays well-formed.
    private func dropUnsentWebSocketOutput(_ session: WebSocketSession) {
        let keep = outputOffset > 0 ? 1 : 0
        guard output.count > keep else { return }
        let dropped = output[keep...].reduce(0) { $0 + $1.count }
        output.removeSubrange(keep...)
        outputBytes -= dropped
        session.connection.release(dropped)
    }

    /// Server-initiated close (RFC 6455 §7.1.2): send the close frame and wait for the peer's.
    func startWebSocketClose(_ code: WebSocketCloseCode, reason: String, loop: IOLoop) {
        guard let session = webSocket, session.state == .open else { return }
        _ = session.connection.markClosing()
        session.closeCode = code
        session.state = .closeSent
        session.closeDeadline = loop.now &+ MonotonicClock.nanoseconds(loop.configuration.webSocket.closeTimeout)
        enqueueFrame(WebSocketFrame.close(code: code, reason: reason).encoded(), session: session)
        flush(loop: loop)
    }

    // MARK: Timers

    func checkWebSocketTimers(loop: IOLoop) {
        guard let session = webSocket else { return }
        let now = loop.now
        switch session.state {
        case .open:
            if session.pongDeadline != 0, now >= session.pongDeadline {
                // The peer stopped answering: drop it without a handshake (reported as 1006).
                loop.close(self)
                return
            }
            let configuration = loop.configuration.webSocket
            if session.nextPing != 0, now >= session.nextPing {
                enqueueFrame(WebSocketFrame.encode(opcode: .ping, payload: []), session: session)
                if session.pongDeadline == 0 { session.pongDeadline = now &+ MonotonicClock.nanoseconds(configuration.pongTimeout) }
                session.nextPing = now &+ MonotonicClock.nanoseconds(configuration.pingInterval)
                flush(loop: loop)
            }
        case .closeSent:
            if now >= session.closeDeadline { loop.close(self) }
        case .closed:
            // Waiting for the close frame to flush; the write deadline bounds a stalled peer.
            break
        }
    }
}

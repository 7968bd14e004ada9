/// The I/O-thread data of one WebSocket connection: parser, message assembly, and the link to the
/// handler and the thread-safe `WebSocketConnection`. Its control state (closing handshake, timers)
/// is `WebSocketControl`, inside the connection's machine.
final class WebSocketSession {
    let handler: any WebSocketHandler
    let connection: WebSocketConnection
    var parser: WebSocketFrameParser
    var assembler: WebSocketMessageAssembler
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
    func finish(code: WebSocketCloseCode, loop: IOLoop) {
        guard !finished else { return }
        finished = true
        _ = connection.markClosing()
        loop.shared.webSocketClosed()
        handler.didClose(code: code, connection: connection)
    }
}

/// WebSocket steps of the shell: the switch, one frame at a time, and frames queued for output.
extension HTTPConnection {
    // MARK: Opening handshake

    /// A valid handshake the responder may accept on this thread.
    func upgradeInline(keepAlive: Bool, loop: IOLoop) -> Event? {
        guard let request, let key = upgradeKey else { return nil }
        self.request = nil
        upgradeKey = nil
        switch IOLoop.decideUpgrade(request, responder: loop.responder, resumption: nil) {
        case let .accept(handler, headers)?:
            return switchToWebSocket(request.head, key: key, handler: handler, headers: headers, loop: loop)
        case let .respond(response)?:
            return send(response, method: answering.method, version: answering.version, keepAlive: keepAlive, loop: loop)
        case nil:
            return nil
        }
    }

    func submitUpgradeToWorker(loop: IOLoop) {
        guard let request, let key = upgradeKey else { return }
        self.request = nil
        upgradeKey = nil
        webSocketRequest = request.head
        loop.submitUpgrade(request, key: key, from: self)
    }

    /// The worker pool accepted the upgrade this connection was waiting for.
    func switchToAcceptedWebSocket(loop: IOLoop) -> Event? {
        guard let (handler, headers, key) = acceptedUpgrade, let head = webSocketRequest else { return nil }
        return switchToWebSocket(head, key: key, handler: handler, headers: headers, loop: loop)
    }

    private func switchToWebSocket(_ head: HTTPRequestHead, key: String, handler: any WebSocketHandler, headers: HTTPHeaders, loop: IOLoop) -> Event {
        enqueue(WebSocketHandshake.switchingProtocolsHead(key: key, headers: headers, date: loop.dateCache.current()))
        let configuration = loop.configuration.webSocket
        let connection = WebSocketConnection(
            request: head, remoteAddress: remoteAddress, maxBufferedOutput: configuration.maxBufferedOutput,
            handle: loop.handle, descriptor: socket.descriptor, serial: serial
        )
        webSocket = WebSocketSession(handler: handler, connection: connection, configuration: configuration, uncountedOutput: output.unsentBytes)
        webSocketRequest = nil
        loop.shared.webSocketOpened()
        handler.didOpen(connection: connection)
        return .switchedProtocols(unsent: output.unsentBytes)
    }

    // MARK: Input

    func webSocketParseStep(acceptsMessages: Bool, loop: IOLoop) -> Event {
        withInput(loop: loop) { bytes in
            let (consumed, input) = processFrame(bytes, acceptsMessages: acceptsMessages)
            return (consumed, .webSocketParsed(consumed: consumed, input))
        }
    }

    /// Parses one frame and hands a complete message to the handler when the machine accepts messages.
    private func processFrame(_ bytes: UnsafeRawBufferPointer, acceptsMessages: Bool) -> (Int, HTTPConnectionMachine.WebSocketInput) {
        guard let session = webSocket else { return (0, .needsMore) }
        do throws(WebSocketProtocolError) {
            let (consumed, frame) = try session.parser.parse(bytes)
            guard let frame else { return (consumed, .needsMore) }
            guard let event = try session.assembler.receive(frame) else { return (consumed, .message) }
            switch event {
            case let .text(text):
                if acceptsMessages { session.handler.didReceive(text: text, connection: session.connection) }
                return (consumed, .message)
            case let .binary(bytes):
                if acceptsMessages { session.handler.didReceive(binary: bytes, connection: session.connection) }
                return (consumed, .message)
            case let .ping(payload):
                let pongSize = WebSocketFrame.encode(opcode: .pong, payload: payload).count
                let fits = session.connection.bufferedAmount + pongSize <= session.connection.maxBufferedOutput
                return (consumed, .ping(payload, fits: fits))
            case .pong:
                return (consumed, .pong)
            case let .close(code, _):
                return (consumed, .close(code))
            }
        } catch {
            return (bytes.count, .failed(error.closeCode))
        }
    }

    // MARK: Output

    /// Queues a frame the I/O thread produced itself; counted like the handler's sends.
    func enqueueFrame(_ frame: [UInt8]) {
        webSocket?.connection.account(frame.count)
        appendFrame(frame)
    }

    func sendClose(_ frame: WebSocketFrame) {
        _ = webSocket?.connection.markClosing()
        enqueueFrame(frame.encoded())
    }

    /// Appends to the last queued chunk when it is small and not partly written, so many small
    /// frames do not make a long chunk list.
    func appendFrame(_ frame: [UInt8]) {
        output.appendCoalescing(frame, limit: 64 * 1024)
    }

    /// Discards queued frames that have not started going out; a partly written one stays so the
    /// stream of frames stays well-formed.
    func dropUnsentFrames() {
        let dropped = output.dropUnstarted()
        if dropped > 0 { webSocket?.connection.release(dropped) }
    }
}

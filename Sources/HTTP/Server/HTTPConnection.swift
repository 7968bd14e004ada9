/// One client connection, owned by one I/O thread: reading a head, reading a body, waiting for a
/// response, idle between requests, or lingering after the server decided to close.
///
/// Pipelined requests are answered in order because a connection works on one request at a time:
/// while a response is computed on the worker pool, later requests stay in `pending` unparsed.
final class HTTPConnection {
    enum Phase: Equatable {
        /// TLS handshake in progress (only on TLS connections).
        case handshaking
        case idle
        case readingHead
        case readingBody
        case responding
        case lingering
        /// Switched to WebSocket framing; timers live in `webSocket`.
        case webSocket
    }

    /// Stop reading ahead once this much unparsed input waits behind a request being answered.
    static let readAheadLimit = 64 * 1024
    /// Stop answering pipelined requests while this much output is unsent (slow reader).
    static let outputHighWater = 1 << 20
    /// How long a closing connection keeps draining input so the peer sees our last response, not a reset.
    static let lingerNanoseconds: UInt64 = 2_000_000_000

    let socket: Socket
    /// The TLS session on a TLS listener; nil for plain HTTP.
    let tls: TLSSession?
    let serial: UInt64
    let remoteAddress: String
    var parser: HTTPRequestParser

    var phase: Phase = .readingHead
    /// Deadline of the current phase (monotonic ns), 0 for none.
    var deadline: UInt64
    /// Deadline for unsent output to make progress, 0 when nothing is queued.
    var writeDeadline: UInt64 = 0
    private(set) var isClosed = false
    var awaitingWorker = false

    /// Unparsed input carried between reads (usually empty: input is parsed straight from the read buffer).
    var pending: [UInt8] = []
    var output: [[UInt8]] = []
    var outputOffset = 0
    var outputBytes = 0
    var head: HTTPRequestHead?
    var requestKeepAlive = true
    /// Method and keep-alive of the request being answered on the worker pool.
    var inFlight: (method: HTTPMethod, version: HTTPVersion, keepAlive: Bool)?
    var closeWhenFlushed = false
    /// Set once the connection switched protocols.
    var webSocket: WebSocketSession?
    /// The handshake request while the responder decides on the worker pool.
    var upgradeRequest: HTTPRequestHead?
    /// The body being streamed to a worker; nil once it ended.
    var bodyStream: HTTPBodyStream?
    /// The stream's consumer is behind: input is held back until it catches up.
    var bodyStreamPaused = false
    /// A file response still being sent, after everything in `output`.
    var fileBody: (file: HTTPFileBody, position: Int, remaining: Int)?
    private var peerClosed = false
    /// epoll reported the peer's FIN; the EOF may still be behind unread data.
    private var peerHungUp = false
    var readPaused = false
    private var receivedAny = false

    init(socket: Socket, tls: TLSSession? = nil, serial: UInt64, remoteAddress: String, parser: HTTPRequestParser, headerDeadline: UInt64) {
        self.socket = socket
        self.tls = tls
        self.serial = serial
        self.remoteAddress = remoteAddress
        self.parser = parser
        deadline = headerDeadline
        if tls != nil { phase = .handshaking }
    }

    private var hasUnsentOutput: Bool {
        !output.isEmpty || fileBody != nil || (tls?.hasUnsentCiphertext ?? false)
    }

    var isIdle: Bool { phase == .idle && output.isEmpty && fileBody == nil && !awaitingWorker }

    /// Input may be parsed now: no response is awaited, or the awaited one is consuming a body stream.
    private var canParse: Bool { (!awaitingWorker || bodyStream != nil) && !bodyStreamPaused }

    // MARK: Events

    func handle(events: UInt32, loop: IOLoop) {
        if events & Epoll.error != 0 {
            loop.close(self)
            return
        }
        if events & (Epoll.peerHangUp | Epoll.hangUp) != 0 { peerHungUp = true }
        if events & (Epoll.readable | Epoll.peerHangUp | Epoll.hangUp) != 0 {
            readAvailable(loop: loop)
        }
        if !isClosed, events & Epoll.writable != 0, hasUnsentOutput {
            flush(loop: loop)
            if !isClosed, output.isEmpty { resumeInput(loop: loop) }
        }
    }

    /// Edge-triggered: read until the socket is drained, unless we are holding input back.
    func readAvailable(loop: IOLoop) {
        while !isClosed {
            if phase == .lingering {
                discardInput(loop: loop)
                return
            }
            if (awaitingWorker || outputBytes >= Self.outputHighWater), pending.count >= Self.readAheadLimit {
                readPaused = true
                return
            }
            let result: IOResult
            if let tls {
                result = loop.receiveBuffer.read(from: socket, through: tls, scratch: loop.cipherBuffer)
                if phase == .handshaking, tls.handshakeComplete {
                    phase = .readingHead
                    deadline = loop.now &+ loop.headerReadTimeout
                }
            } else {
                result = loop.receiveBuffer.read(from: socket)
            }
            switch result {
            case let .bytes(count):
                received(count, loop: loop)
                // A short read drained the socket and new data will raise a new edge; but after the
                // peer's FIN (an edge already consumed) we read on to see the EOF. A TLS record is
                // shorter than the buffer without the socket being drained.
                if count < loop.receiveBuffer.capacity, !peerHungUp, tls == nil { return }
            case .wouldBlock:
                return
            case .closed:
                peerClosed = true
                peerDidClose(loop: loop)
                return
            case .failed:
                loop.close(self)
                return
            }
        }
    }

    private func received(_ count: Int, loop: IOLoop) {
        receivedAny = true
        // Input after a request that ends the connection is never parsed.
        if closeWhenFlushed { return }
        if webSocket != nil {
            webSocketReceived(count, loop: loop)
            return
        }
        if pending.isEmpty, canParse {
            let consumed = loop.receiveBuffer.withBytes(count: count) { process($0, loop: loop) }
            if !isClosed, phase != .lingering, consumed < count {
                loop.receiveBuffer.withBytes(count: count) { pending.append(contentsOf: $0[consumed...]) }
            }
        } else {
            loop.receiveBuffer.withBytes(count: count) { pending.append(contentsOf: $0) }
            processPending(loop: loop)
        }
        if webSocket != nil {
            processWebSocketPending(loop: loop)
        } else {
            settle(loop: loop)
        }
    }

    func processPending(loop: IOLoop) {
        if webSocket != nil {
            processWebSocketPending(loop: loop)
            return
        }
        guard !pending.isEmpty, canParse else { return }
        let consumed = pending.withUnsafeBytes { process($0, loop: loop) }
        if isClosed || phase == .lingering {
            pending = []
        } else if consumed > 0 {
            pending.removeFirst(consumed)
        }
    }

    /// Resumes parsing held-back input after a response went out.
    func resumeInput(loop: IOLoop) {
        guard !awaitingWorker, !closeWhenFlushed, fileBody == nil, outputBytes < Self.outputHighWater else { return }
        processPending(loop: loop)
        if readPaused, !isClosed, !awaitingWorker {
            readPaused = false
            readAvailable(loop: loop)
        }
        settle(loop: loop)
    }

    private func peerDidClose(loop: IOLoop) {
        if bodyStream != nil {
            // The body can never complete; the consumer learns it and nobody waits for an answer.
            abortBodyStream(.clientDisconnected)
            loop.close(self)
            return
        }
        // A half-closed peer still gets the response it is waiting for.
        if awaitingWorker || !output.isEmpty || fileBody != nil {
            closeWhenFlushed = true
        } else {
            loop.close(self)
        }
    }

    private func discardInput(loop: IOLoop) {
        while true {
            // Lingering TLS connections skip decryption: the input is thrown away either way.
            switch loop.cipherBuffer.read(from: socket) {
            case .bytes: continue
            case .wouldBlock: return
            case .closed, .failed:
                loop.close(self)
                return
            }
        }
    }

    // MARK: Requests

    /// Parses and answers as many complete requests as `bytes` holds; returns the bytes consumed.
    private func process(_ bytes: UnsafeRawBufferPointer, loop: IOLoop) -> Int {
        var offset = 0
        while true {
            offset += processUntilOutputIsHigh(UnsafeRawBufferPointer(rebasing: bytes[offset...]), loop: loop)
            let stoppedForOutput = fileBody != nil || outputBytes >= Self.outputHighWater
            flush(loop: loop)
            // The pipeline stopped for output and this flush sent all of it: no writability event
            // will come to resume the held requests (edge-triggered epoll reports writability only
            // after a write hit EAGAIN), so go on here.
            guard stoppedForOutput, !isClosed, output.isEmpty, fileBody == nil, offset < bytes.count else { return offset }
        }
    }

    private func processUntilOutputIsHigh(_ bytes: UnsafeRawBufferPointer, loop: IOLoop) -> Int {
        var offset = 0
        while !isClosed, canParse, !closeWhenFlushed, webSocket == nil, fileBody == nil, outputBytes < Self.outputHighWater {
            let step: (consumed: Int, event: HTTPRequestParser.Event?)
            do {
                step = try parser.parse(UnsafeRawBufferPointer(rebasing: bytes[offset...]))
            } catch {
                reject(error, loop: loop)
                return bytes.count
            }
            offset += step.consumed
            guard let event = step.event else { break }
            switch event {
            case let .head(head):
                do {
                    try begin(head, bodyBytesWaiting: offset < bytes.count, loop: loop)
                } catch {
                    reject(error, loop: loop)
                    return bytes.count
                }
            case let .bodyPart(part):
                if let bodyStream, !bodyStream.push(part) { bodyStreamPaused = true }
            case let .body(body):
                if let bodyStream {
                    bodyStream.finish()
                    self.bodyStream = nil
                } else {
                    complete(body: body, loop: loop)
                }
            }
        }
        return offset
    }

    private func begin(_ head: HTTPRequestHead, bodyBytesWaiting: Bool, loop: IOLoop) throws(HTTPParserError) {
        self.head = head
        requestKeepAlive = parser.keepAlive
        guard parser.hasBody else { return }
        phase = .readingBody
        deadline = loop.now &+ loop.bodyReadTimeout
        let handling = loop.responder.bodyHandling(for: head)
        if case let .stream(maxSize) = handling {
            try parser.setMaxBodySize(maxSize)
            parser.streamBody()
        } else {
            let limit = loop.responder.maxBodySize(for: head)
            try parser.setMaxBodySize(limit < 0 ? loop.configuration.defaultMaxBodySize : limit)
        }
        // RFC 9110 §10.1.1: 100 Continue only once the body is known to be acceptable, and not
        // when the client already started sending it.
        if parser.expectsContinue, !bodyBytesWaiting {
            enqueue(HTTPResponseWriter.continueHead)
        }
        if handling != .buffered { startBodyStream(head, loop: loop) }
    }

    private func complete(body: [UInt8], loop: IOLoop) {
        guard let head else { return }
        self.head = nil
        let keepAlive = requestKeepAlive && !loop.isDraining
        let request = HTTPRequest(head: head, body: body, remoteAddress: remoteAddress)
        // Leaving .responding later restarts the idle clock from this request.
        phase = .responding
        deadline = 0
        if head.method == .get, WebSocketHandshake.isUpgradeRequest(head) {
            beginUpgrade(request, keepAlive: keepAlive, loop: loop)
            return
        }
        if loop.responder.mayBlock(head) {
            awaitingWorker = true
            inFlight = (head.method, head.version, keepAlive)
            loop.submit(request, from: self)
        } else {
            let response = loop.responder.respond(to: request)
            send(response, method: head.method, version: head.version, keepAlive: keepAlive, loop: loop)
        }
    }

    /// The worker pool finished the request this connection was waiting for.
    func deliver(_ response: HTTPResponse, loop: IOLoop) {
        guard awaitingWorker, let inFlight else { return }
        awaitingWorker = false
        self.inFlight = nil
        upgradeRequest = nil
        // A response before the end of a streamed body: the rest of the body is never read, so
        // the connection cannot carry another request.
        let bodyUnread = bodyStream != nil
        if bodyUnread {
            bodyStream?.fail(.clientDisconnected)
            bodyStream = nil
            bodyStreamPaused = false
        }
        send(response, method: inFlight.method, version: inFlight.version,
             keepAlive: inFlight.keepAlive && !loop.isDraining && !bodyUnread, loop: loop)
        flush(loop: loop)
        if !isClosed { resumeInput(loop: loop) }
    }

    func send(_ response: HTTPResponse, method: HTTPMethod, version: HTTPVersion, keepAlive: Bool, loop: IOLoop) {
        let responderCloses = response.headers.contains { $0.name.equalsIgnoringASCIICase("connection") && $0.value.equalsIgnoringASCIICase("close") }
        let persist = keepAlive && !responderCloses
        let head = HTTPResponseWriter.head(
            for: response, keepAlive: persist, announceKeepAlive: persist && version == .http1_0, date: loop.dateCache.current()
        )
        enqueue(head)
        // RFC 9110 §9.3.2: a response to HEAD carries the GET's fields but no content.
        if method != .head, HTTPStatus.allowsBody(response.status) {
            if let file = response.bodyFile {
                if file.length > 0 { fileBody = (file, file.offset, file.length) }
            } else {
                enqueue(response.body)
            }
        }
        if !persist { closeWhenFlushed = true }
    }

    /// A malformed or refused request: answer with the mapped status and close (RFC 9112 §9.6).
    private func reject(_ error: HTTPParserError, loop: IOLoop) {
        head = nil
        abortBodyStream(error == .payloadTooLarge ? .payloadTooLarge : .malformed)
        send(error.response, method: .get, version: .http1_1, keepAlive: false, loop: loop)
        flush(loop: loop)
    }

    // MARK: Output

    func enqueue(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        output.append(bytes)
        outputBytes += bytes.count
    }

    func flush(loop: IOLoop) {
        while !isClosed {
            if output.isEmpty {
                guard fileBody != nil else { break }
                if sendFileBody(loop: loop) { continue }
                return
            }
            let result = if let tls {
                tls.write(output[...], firstOffset: outputOffset, to: socket)
            } else {
                socket.write(output[...], firstOffset: outputOffset)
            }
            switch result {
            case var .bytes(written):
                outputBytes -= written
                webSocket?.wrote(written)
                while written > 0 {
                    let left = output[0].count - outputOffset
                    if written >= left {
                        written -= left
                        output.removeFirst()
                        outputOffset = 0
                    } else {
                        outputOffset += written
                        written = 0
                    }
                }
                writeDeadline = 0
            case .wouldBlock:
                if writeDeadline == 0 { writeDeadline = loop.now &+ loop.idleTimeout }
                return
            case .closed, .failed:
                loop.close(self)
                return
            }
        }
        if let tls, !isClosed {
            switch tls.flush(to: socket) {
            case .wouldBlock:
                if writeDeadline == 0 { writeDeadline = loop.now &+ loop.idleTimeout }
                return
            case .closed, .failed:
                loop.close(self)
                return
            case .bytes:
                break
            }
        }
        writeDeadline = 0
        if !isClosed, closeWhenFlushed, !awaitingWorker { beginLingeringClose(loop: loop) }
    }

    /// Half-closes and drains input for a bounded time, so the peer reads our last response before EOF.
    private func beginLingeringClose(loop: IOLoop) {
        guard phase != .lingering else { return }
        if peerClosed {
            loop.close(self)
            return
        }
        tls?.shutdown(to: socket)
        socket.shutdownWrite()
        phase = .lingering
        deadline = loop.now &+ Self.lingerNanoseconds
        // Input still buffered is discarded by the next read; the peer's FIN raises a new edge.
    }

    // MARK: Phases and timeouts

    /// Moves to the phase the parser and queues imply; a deadline starts when its phase begins.
    func settle(loop: IOLoop) {
        guard !isClosed, phase != .lingering, phase != .handshaking, phase != .webSocket else { return }
        if awaitingWorker, bodyStream != nil {
            // Streaming: the body timeout measures silence, and not while we hold the client back.
            phase = .readingBody
            deadline = bodyStreamPaused ? 0 : loop.now &+ loop.bodyReadTimeout
        } else if awaitingWorker {
            phase = .responding
            deadline = 0
        } else if parser.isAwaitingHead {
            if !pending.isEmpty {
                if phase != .readingHead {
                    phase = .readingHead
                    deadline = loop.now &+ loop.headerReadTimeout
                }
            } else if phase != .idle, phase != .readingHead || receivedAny {
                phase = .idle
                deadline = loop.now &+ loop.idleTimeout
            }
            if loop.isDraining, isIdle { loop.close(self) }
        } else if phase != .readingBody {
            phase = .readingBody
            deadline = loop.now &+ loop.bodyReadTimeout
        }
    }

    /// Called by the loop's periodic sweep.
    func checkTimeouts(loop: IOLoop) {
        let now = loop.now
        if writeDeadline != 0, now >= writeDeadline {
            loop.close(self)
            return
        }
        if phase == .webSocket {
            checkWebSocketTimers(loop: loop)
            return
        }
        guard deadline != 0, now >= deadline else { return }
        // A response still being written is governed by the write deadline alone.
        if phase == .idle, !output.isEmpty || fileBody != nil { return }
        switch phase {
        case .handshaking, .idle, .lingering, .responding, .webSocket:
            loop.close(self)
        case .readingHead where pending.isEmpty:
            // Connected but never sent a byte of this request.
            loop.close(self)
        case .readingHead, .readingBody:
            deadline = 0
            head = nil
            abortBodyStream(.timedOut)
            send(
                .error(status: 408, error: "RequestTimeout", message: "request not received in time"),
                method: .get, version: .http1_1, keepAlive: false, loop: loop
            )
            flush(loop: loop)
        }
    }

    /// Graceful shutdown: idle connections close now, busy ones after their current response.
    func beginDraining(loop: IOLoop) {
        if webSocket != nil {
            startWebSocketClose(.goingAway, reason: "server shutting down", loop: loop)
            return
        }
        if isIdle || phase == .handshaking || (phase == .readingHead && pending.isEmpty && output.isEmpty) {
            loop.close(self)
        }
    }

    func markClosed(loop: IOLoop) {
        isClosed = true
        bodyStream?.fail(.clientDisconnected)
        bodyStream = nil
        fileBody = nil
        if let webSocket { webSocket.finish(loop: loop) }
    }
}

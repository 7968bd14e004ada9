/// HTTP/1.1 steps of the shell: one parser step at a time, answers inline or on the worker pool,
/// and the responses written into the output queue.
extension HTTPConnection {
    typealias ParseResult = HTTPConnectionMachine.ParseResult

    // MARK: Parsing

    func parseStep(loop: IOLoop) -> Event {
        withInput(loop: loop) { bytes in
            let (consumed, result) = parse(bytes, loop: loop)
            return (consumed, .parsed(consumed: consumed, result))
        }
    }

    private func parse(_ bytes: UnsafeRawBufferPointer, loop: IOLoop) -> (Int, ParseResult) {
        let step: (consumed: Int, event: HTTPRequestParser.Event?)
        do {
            step = try parser.parse(bytes)
        } catch {
            return (bytes.count, .failed(error))
        }
        switch step.event {
        case nil:
            return (step.consumed, .needsMore)
        case let .head(head):
            do {
                return (step.consumed, .head(try begin(head, bodyBytesWaiting: step.consumed < bytes.count, loop: loop)))
            } catch {
                return (bytes.count, .failed(error))
            }
        case let .bodyPart(part):
            return (step.consumed, .bodyPart(accepted: bodyStream?.push(part) ?? true))
        case let .body(body):
            return (step.consumed, .requestEnd(route(body: body, loop: loop)))
        }
    }

    /// A head arrived: ask the responder how its body is read.
    private func begin(_ head: HTTPRequestHead, bodyBytesWaiting: Bool, loop: IOLoop) throws(HTTPParserError) -> HTTPConnectionMachine.HeadInfo {
        self.head = head
        let keepAlive = parser.keepAlive
        guard parser.hasBody else { return .init(hasBody: false, keepAlive: keepAlive) }
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
        return .init(hasBody: true, streamed: handling != .buffered, sendContinue: parser.expectsContinue && !bodyBytesWaiting, keepAlive: keepAlive)
    }

    /// The request ended: keep it for its answer and say who computes that.
    private func route(body: [UInt8], loop: IOLoop) -> HTTPConnectionMachine.Route {
        // Taken, not copied: a copy of the head (and below of the request) retains each of its
        // strings and arrays once more, and releases them again when the field is cleared.
        guard bodyStream == nil, let head = self.head.take() else { return .streamed }
        answering = (head.method, head.version)
        let blocking = loop.responder.mayBlock(head)
        startsOnIOThread = blocking && loop.responder.startsOnIOThread(head)
        let upgrade = head.method == .get && WebSocketHandshake.isUpgradeRequest(head)
        let handshake = upgrade ? WebSocketHandshake.validate(head) : nil
        request = HTTPRequest(head: head, body: body, remoteAddress: remoteAddress)
        guard let handshake else { return blocking ? .worker : .inline }
        switch handshake {
        case let .failure(refusal):
            handshakeRefusal = refusal.response
            return .inline
        case let .success(key):
            upgradeKey = key
            return blocking ? .upgradeWorker : .upgradeInline
        }
    }

    // MARK: Answering

    func respondInline(keepAlive: Bool, loop: IOLoop) -> Event? {
        guard let request = request.take() else { return nil }
        let response = handshakeRefusal ?? loop.responder.respond(to: request)
        handshakeRefusal = nil
        return send(response, method: answering.method, version: answering.version, keepAlive: keepAlive, loop: loop)
    }

    func submitToWorker(loop: IOLoop) {
        guard let request = request.take() else { return }
        if startsOnIOThread {
            // The machine waits for the answer as for a worker's; it arrives the same way.
            startsOnIOThread = false
            loop.start(request, from: self)
        } else {
            loop.submit(request, from: self)
        }
    }

    func writeResponse(_ source: HTTPConnectionMachine.ResponseSource, keepAlive: Bool, loop: IOLoop) -> Event? {
        switch source {
        case .worker:
            guard let response = workerResponse else { return nil }
            webSocketRequest = nil
            return send(response, method: answering.method, version: answering.version, keepAlive: keepAlive, loop: loop)
        case let .rejection(error):
            head = nil
            return send(error.response, method: .get, version: .http1_1, keepAlive: keepAlive, loop: loop)
        case .timeout:
            head = nil
            let response = HTTPResponse.error(status: 408, error: "RequestTimeout", message: "request not received in time")
            return send(response, method: .get, version: .http1_1, keepAlive: keepAlive, loop: loop)
        }
    }

    /// Queues `response`; the machine learns the queue's size and whether the connection persists.
    func send(_ response: HTTPResponse, method: HTTPMethod, version: HTTPVersion, keepAlive: Bool, loop: IOLoop) -> Event {
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
        return .responseQueued(unsent: output.unsentBytes, file: fileBody != nil, persist: persist)
    }
}

/// Streamed request bodies and file response bodies.
extension HTTPConnection {
    /// Hands the request to the worker pool now; the body follows through the stream.
    func startBodyStream(_ head: HTTPRequestHead, loop: IOLoop) {
        let handle = loop.handle
        let descriptor = socket.descriptor
        let serial = serial
        let expected: Int? = if case let .length(length) = parser.framing { length } else { nil }
        let stream = HTTPBodyStream(expectedLength: expected) {
            handle.post(Completion(descriptor: descriptor, serial: serial, payload: .resumeBody))
        }
        bodyStream = stream
        awaitingWorker = true
        inFlight = (head.method, head.version, requestKeepAlive && !loop.isDraining)
        self.head = nil
        loop.submit(HTTPRequest(head: head, remoteAddress: remoteAddress), body: stream, from: self)
    }

    /// The stream's consumer caught up: parse held-back input and read the socket again.
    func resumeBodyStream(loop: IOLoop) {
        guard bodyStream != nil, bodyStreamPaused, !isClosed else { return }
        bodyStreamPaused = false
        processPending(loop: loop)
        if readPaused, !isClosed, !bodyStreamPaused {
            readPaused = false
            readAvailable(loop: loop)
        }
        settle(loop: loop)
    }

    /// Ends a streamed body early: the consumer's `read()` throws and its response is not awaited.
    func abortBodyStream(_ error: HTTPBodyStreamError) {
        guard let bodyStream else { return }
        bodyStream.fail(error)
        self.bodyStream = nil
        bodyStreamPaused = false
        awaitingWorker = false
        inFlight = nil
    }

    /// Sends the next part of a file response: by sendfile on a plain socket, or through `output`
    /// 64 KiB at a time under TLS. False when the socket is full or the connection closed.
    func sendFileBody(loop: IOLoop) -> Bool {
        guard let (file, position, remaining) = fileBody else { return true }
        if tls != nil {
            guard let chunk = file.read(at: position, maxCount: Swift.min(remaining, 64 * 1024)) else {
                // The file shrank under us: the promised Content-Length cannot be met.
                loop.close(self)
                return false
            }
            fileBody = chunk.count == remaining ? nil : (file, position + chunk.count, remaining - chunk.count)
            enqueue(chunk)
            return true
        }
        var offset = position
        switch socket.sendFile(file.descriptor, offset: &offset, count: Swift.min(remaining, 1 << 20)) {
        case let .bytes(count):
            fileBody = count == remaining ? nil : (file, offset, remaining - count)
            writeDeadline = 0
            return true
        case .wouldBlock:
            if writeDeadline == 0 { writeDeadline = loop.now &+ loop.idleTimeout }
            return false
        case .closed, .failed:
            loop.close(self)
            return false
        }
    }
}

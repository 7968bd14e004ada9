/// Streamed request bodies and file response bodies.
extension HTTPConnection {
    /// Hands the request to the worker pool now; the body follows through the stream.
    func startBodyStream(loop: IOLoop) {
        guard let head else { return }
        let handle = loop.handle
        let descriptor = socket.descriptor
        let serial = serial
        let expected: Int? = if case let .length(length) = parser.framing { length } else { nil }
        let stream = HTTPBodyStream(expectedLength: expected) {
            handle.post(Completion(descriptor: descriptor, serial: serial, payload: .resumeBody))
        }
        bodyStream = stream
        answering = (head.method, head.version)
        self.head = nil
        loop.submit(HTTPRequest(head: head, remoteAddress: remoteAddress), body: stream, from: self)
    }

    /// Sends the next part of a file response: by sendfile on a plain socket, or through `output`
    /// 64 KiB at a time under TLS.
    func sendFileBody(loop: IOLoop) -> IOResult {
        guard let (file, position, remaining) = fileBody else { return .bytes(0) }
        if tls != nil {
            guard let chunk = file.read(at: position, maxCount: Swift.min(remaining, 64 * 1024)) else {
                // The file shrank under us: the promised Content-Length cannot be met.
                return .failed(0)
            }
            fileBody = chunk.count == remaining ? nil : (file, position + chunk.count, remaining - chunk.count)
            enqueue(chunk)
            return .bytes(chunk.count)
        }
        var offset = position
        let result = socket.sendFile(file.descriptor, offset: &offset, count: Swift.min(remaining, 1 << 20))
        if case let .bytes(count) = result {
            fileBody = count == remaining ? nil : (file, offset, remaining - count)
        }
        return result
    }
}

import HTTP
import Synchronization

/// A method body handed over piece by piece as it arrives (uploadBlob), rather than buffered whole.
public struct XRPCStreamedBody: Sendable {
    /// The server refuses a body beyond this many bytes (413) and ends the stream with
    /// `.payloadTooLarge`; a method with its own smaller limit sets this one byte above it, so its
    /// own check (and error name) comes first.
    public let maxSize: Int
    public let handler: @Sendable (AuthenticatedContext, XRPCBodyReader) throws -> XRPCOutput

    public init(maxSize: Int, handler: @escaping @Sendable (AuthenticatedContext, XRPCBodyReader) throws -> XRPCOutput) {
        self.maxSize = maxSize
        self.handler = handler
    }
}

/// The body of a streamed method: `read()` returns the next piece (at most 64 KiB) or nil at
/// the end, and throws when the body cannot complete (client gone, timeout, too large, malformed).
public struct XRPCBodyReader {
    /// The declared Content-Length; nil for a chunked body.
    public let expectedLength: Int?
    private let next: () throws(HTTPBodyStreamError) -> [UInt8]?

    init(stream: HTTPBodyStream) {
        expectedLength = stream.expectedLength
        next = { () throws(HTTPBodyStreamError) in try stream.read() }
    }

    /// A body already in memory (a request that came without one, or a test), in 64 KiB pieces.
    init(bytes: [UInt8]) {
        expectedLength = bytes.count
        let position = Mutex(0)
        next = {
            position.withLock { offset -> [UInt8]? in
                guard offset < bytes.count else { return nil }
                let end = min(bytes.count, offset + 64 << 10)
                defer { offset = end }
                return Array(bytes[offset..<end])
            }
        }
    }

    public func read() throws(HTTPBodyStreamError) -> [UInt8]? { try next() }

    /// The whole body in memory, at most `limit` bytes: for a method that takes its body buffered
    /// but had it streamed so that its token was checked first.
    func readAll(limit: Int) throws(XRPCError) -> [UInt8] {
        var body: [UInt8] = []
        do throws(HTTPBodyStreamError) {
            while let piece = try read() {
                guard piece.count <= limit - body.count else { throw .payloadTooLarge }
                body += piece
            }
        } catch .payloadTooLarge {
            throw .payloadTooLarge("the body is larger than \(limit) bytes")
        } catch {
            throw .invalidRequest("request body incomplete")
        }
        return body
    }
}

extension XRPCMethod {
    /// An authenticated procedure whose body is streamed to `handler` (up to `maxStreamSize` bytes)
    /// instead of buffered; auth, limits and metrics run from the head before the body is read.
    public init(_ nsid: String, streamingUpTo maxStreamSize: Int,
                handler: @escaping @Sendable (AuthenticatedContext, XRPCBodyReader) throws -> XRPCOutput) {
        self.init(nsid, .procedure, maxBodySize: 0, mayBlock: true,
                  handler: .streamed(XRPCStreamedBody(maxSize: maxStreamSize, handler: handler)))
    }
}

extension XRPCRouter {
    /// Above this many body bytes (or with a body of unknown length), an authenticated method's
    /// token is checked from the head before the body is read.
    public static let authenticateBeforeBodyAbove = 64 << 10

    /// Streamed methods get their body as it arrives. So does an authenticated method with a large
    /// body (or a chunked one): it is dispatched from its head, its token checked first, so that a bad
    /// or missing token costs the client a 401 and a closed connection, not the service the body
    /// (uploadBlob's way, for every method). Every other request is buffered.
    public func bodyHandling(for head: HTTPRequestHead) -> HTTPBodyHandling {
        guard let method = method(for: head.path) else { return .buffered }
        if let streamed = method.streamedBody { return .stream(maxSize: streamed.maxSize) }
        guard method.auth == .required else { return .buffered }
        let declared = head.headers["Content-Length"].flatMap { Int($0) }
        if let declared, declared <= Self.authenticateBeforeBodyAbove { return .buffered }
        return .stream(maxSize: method.maxBodySize)
    }

    /// The server calls this (on a worker thread) once a streamed method's head arrived: the same
    /// path as buffered requests (IP limit, auth from the head's Authorization, DID limit,
    /// metrics, log) with the body left to the handler to read.
    public func respond(to request: HTTPRequest, body: HTTPBodyStream) -> HTTPResponse {
        Self.answer(dispatch(request, body: XRPCBodyReader(stream: body), resumption: nil))
    }

    /// The same, set aside while the caller's DID document is fetched (the body waits in the stream).
    public func respond(to request: HTTPRequest, body: HTTPBodyStream, resumption: HTTPResumption) -> HTTPResponse? {
        Self.answer(dispatch(request, body: XRPCBodyReader(stream: body), resumption: resumption), resumption: resumption)
    }
}

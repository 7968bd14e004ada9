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
    /// Streamed methods get their body as it arrives; every other request is buffered.
    public func bodyHandling(for head: HTTPRequestHead) -> HTTPBodyHandling {
        guard let streamed = method(for: head.path)?.streamedBody else { return .buffered }
        return .stream(maxSize: streamed.maxSize)
    }

    /// The server calls this (on a worker thread) once a streamed method's head arrived: the same
    /// path as buffered requests (IP limit, auth from the head's Authorization, DID limit,
    /// metrics, log) with the body left to the handler to read.
    public func respond(to request: HTTPRequest, body: HTTPBodyStream) -> HTTPResponse {
        dispatch(request, body: XRPCBodyReader(stream: body), resumption: nil).response
    }

    /// The same, set aside while the caller's DID document is fetched (the body waits in the stream).
    public func respond(to request: HTTPRequest, body: HTTPBodyStream, resumption: HTTPResumption) -> HTTPResponse? {
        let result = dispatch(request, body: XRPCBodyReader(stream: body), resumption: resumption)
        return result.isSetAside ? nil : result.response
    }
}

/// A response from a responder. The server adds Content-Length, Date and, when closing, Connection.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: HTTPHeaders
    public var body: [UInt8]
    /// When set, the body is this file range instead of `body` (downloads too large for memory).
    public var bodyFile: HTTPFileBody?

    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A response whose body is streamed from `file`; Content-Length is the range's length.
    public init(status: Int, headers: HTTPHeaders = HTTPHeaders(), file: HTTPFileBody) {
        self.status = status
        self.headers = headers
        body = []
        bodyFile = file
    }

    /// Bytes of content: the file range's length or the in-memory body's.
    public var contentLength: Int { bodyFile?.length ?? body.count }

    /// The XRPC-shaped JSON error the server itself sends: `{"error":"…","message":"…"}`.
    public static func error(status: Int, error: String, message: String) -> HTTPResponse {
        var body: [UInt8] = []
        body.append(contentsOf: #"{"error":""#.utf8)
        appendJSONEscaped(error, to: &body)
        body.append(contentsOf: #"","message":""#.utf8)
        appendJSONEscaped(message, to: &body)
        body.append(contentsOf: #""}"#.utf8)
        return HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: body)
    }

    private static func appendJSONEscaped(_ text: String, to body: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        for byte in text.utf8 {
            switch byte {
            case 0x22: body.append(contentsOf: [0x5C, 0x22])
            case 0x5C: body.append(contentsOf: [0x5C, 0x5C])
            case 0..<0x20: body.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: body.append(byte)
            }
        }
    }
}

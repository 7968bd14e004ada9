/// A complete HTTP/1.1 response, body already de-chunked.
public struct HTTPClientResponse: Sendable {
    public let status: Int
    /// Header fields in arrival order; names as sent.
    public let headers: [(String, String)]
    public let body: [UInt8]

    public init(status: Int, headers: [(String, String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first value of a header, matched case-insensitively (RFC 9110 §5.1).
    public func header(_ name: String) -> String? {
        let lowered = name.lowercased()
        return headers.first { $0.0.lowercased() == lowered }?.1
    }
}

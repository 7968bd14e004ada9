/// An outbound byte stream on the same parts as `HTTPClient` (non-blocking socket with poll(2)
/// deadlines, `TLSSession` in client mode with the RFC 6125 name check): for protocols other than
/// HTTP that the repository speaks as a client (MQTT). Not thread-safe: one thread at a time.
public final class ClientByteStream {
    private let connection: HTTPClientConnection

    private init(connection: HTTPClientConnection) {
        self.connection = connection
    }

    /// Connects to `host`:`port` (a name or an address; private addresses allowed or refused as
    /// `allowPrivateAddresses` says), with TLS when `tls`, verifying the server against the system
    /// trust store plus `trustAnchorPEM` when given. `timeout` bounds resolution, connect and handshake.
    public static func connect(host: String, port: Int, tls: Bool, timeout: Double = 10, allowPrivateAddresses: Bool = true,
                               trustAnchorPEM: [UInt8]? = nil) throws(HTTPClientError) -> ClientByteStream {
        guard (1...65_535).contains(port) else { throw .invalidURL("port \(port)") }
        let deadline = HTTPClientDeadline(seconds: timeout)
        let literal = host.contains(":") || HTTPClientURL.isDottedQuad(host)
        // Under the same deadline as connect and handshake (a name lookup that hangs is abandoned).
        let endpoints = try NameLookup.shared.resolve(host: host, port: UInt16(port), isLiteral: literal, deadline: deadline)
        let permitted = allowPrivateAddresses ? endpoints : endpoints.filter { $0.address.isPubliclyRoutable }
        guard !permitted.isEmpty else { throw .forbiddenAddress("\(host) resolves only to non-public addresses") }
        let connection = try HTTPClientConnection.connect(to: permitted, deadline: deadline)
        if tls {
            let context: ClientTLSContext
            do { context = try trustAnchorPEM.map(ClientTLSContext.init) ?? ClientTLSContext.shared.get() } catch {
                throw .tls("\(error)")
            }
            try connection.startTLS(context: context, host: host, hostIsIPLiteral: literal, deadline: deadline)
        }
        return ClientByteStream(connection: connection)
    }

    /// Writes everything within `timeout` seconds.
    public func write(_ bytes: [UInt8], timeout: Double = 10) throws(HTTPClientError) {
        try connection.writeAll(bytes, deadline: HTTPClientDeadline(seconds: timeout))
    }

    /// What arrives within `timeout` seconds (at most `maxCount` bytes); empty at the end of the
    /// stream; throws `.timeout` when nothing came.
    public func read(maxCount: Int = 64 * 1024, timeout: Double) throws(HTTPClientError) -> [UInt8] {
        try connection.read(maxCount: maxCount, deadline: HTTPClientDeadline(seconds: timeout))
    }
}

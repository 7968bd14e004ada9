/// A small blocking HTTP/1.1 client for fetching small documents (DID documents) from hosts that
/// outsiders choose. One request per connection, no redirects, a body size cap, one overall
/// timeout covering name lookup, connect, TLS and body, and an SSRF guard: the host is resolved
/// once, non-public addresses are refused unless allowed, and the connection goes to a vetted address.
public struct HTTPClient: Sendable {
    public let timeout: Double
    public let maxBodySize: Int
    public let allowPrivateAddresses: Bool
    public let userAgent: String
    /// One more trusted certificate besides the system store, so tests can run a TLS server.
    var extraTrustAnchorPEM: [UInt8]?
    /// The certificates trusted instead of the system's, when the client was made with some.
    private var trustedContext: ClientTLSContext?
    /// Where host names are looked up, within the request's deadline.
    var nameLookup = NameLookup.shared

    public init(timeout: Double = 3, maxBodySize: Int = 1 << 20, allowPrivateAddresses: Bool = false,
                userAgent: String = "catbird-mls") {
        self.timeout = timeout
        self.maxBodySize = maxBodySize
        self.allowPrivateAddresses = allowPrivateAddresses
        self.userAgent = userAgent
    }

    /// A client that trusts exactly `trustedCertificatesPEM` (PEM certificates) for https, instead of
    /// the system's store: a private or test host with its own CA.
    public init(timeout: Double = 3, maxBodySize: Int = 1 << 20, allowPrivateAddresses: Bool = false,
                userAgent: String = "catbird-mls", trustedCertificatesPEM: [UInt8]) throws(HTTPClientError) {
        self.init(timeout: timeout, maxBodySize: maxBodySize, allowPrivateAddresses: allowPrivateAddresses, userAgent: userAgent)
        do { trustedContext = try ClientTLSContext(trustedCertificatesPEM: trustedCertificatesPEM) } catch {
            throw .tls("\(error)")
        }
    }

    /// The origin of an http(s) URL (RFC 6454 §6.2): `scheme://host`, with `:port` unless it is the default.
    public static func origin(of url: String) throws(HTTPClientError) -> String {
        let url = try HTTPClientURL(url)
        return (url.scheme == .https ? "https://" : "http://") + url.hostHeader
    }

    /// Whether `url` is a destination this client would connect to: a well-formed http(s) URL whose
    /// host resolves (within the timeout) to addresses the SSRF guard permits. Throws the reason
    /// `send` would fail with before connecting.
    public func checkDestination(_ url: String) throws(HTTPClientError) {
        _ = try permittedEndpoints(try HTTPClientURL(url), deadline: HTTPClientDeadline(seconds: timeout))
    }

    private func permittedEndpoints(_ url: HTTPClientURL, deadline: HTTPClientDeadline) throws(HTTPClientError) -> [HTTPClientEndpoint] {
        // The lookup shares the deadline: a DNS server that never answers costs at most the budget.
        let endpoints = try nameLookup.resolve(host: url.host, port: url.port, isLiteral: url.hostIsIPLiteral, deadline: deadline)
        let permitted = allowPrivateAddresses ? endpoints : endpoints.filter { $0.address.isPubliclyRoutable }
        guard !permitted.isEmpty else {
            throw .forbiddenAddress("\(url.host) resolves only to non-public addresses")
        }
        return permitted
    }

    /// GET `url` (http or https). Non-2xx answers other than 3xx are returned for the caller to
    /// judge; 3xx throws `redirectRefused`.
    public func get(_ url: String) throws(HTTPClientError) -> HTTPClientResponse {
        try send(method: "GET", url, headers: [("Accept", "application/did+ld+json, application/json")])
    }

    /// Sends one request (`Connection: close`) with the given method, extra headers and body.
    public func send(method: String, _ url: String, headers: [(String, String)] = [],
                     body: [UInt8] = []) throws(HTTPClientError) -> HTTPClientResponse {
        let url = try HTTPClientURL(url)
        let deadline = HTTPClientDeadline(seconds: timeout)
        let hostIsIPLiteral = url.hostIsIPLiteral
        let permitted = try permittedEndpoints(url, deadline: deadline)
        _ = try deadline.remainingMilliseconds()
        let connection = try HTTPClientConnection.connect(to: permitted, deadline: deadline)
        if url.scheme == .https {
            let context: ClientTLSContext
            do {
                context = try trustedContext ?? extraTrustAnchorPEM.map(ClientTLSContext.init) ?? ClientTLSContext.shared.get()
            } catch {
                throw .tls("\(error)")
            }
            try connection.startTLS(context: context, host: url.host, hostIsIPLiteral: hostIsIPLiteral, deadline: deadline)
        }

        // RFC 9112 §3: request line and headers; `Connection: close` frames the exchange.
        var request = "\(method) \(url.target) HTTP/1.1\r\n"
            + "Host: \(url.hostHeader)\r\n"
            + "User-Agent: \(userAgent)\r\n"
            + "Accept-Encoding: identity\r\n"
        for (name, value) in headers where !value.contains("\r") && !value.contains("\n") {
            request += "\(name): \(value)\r\n"
        }
        if !body.isEmpty || method == "POST" || method == "PUT" { request += "Content-Length: \(body.count)\r\n" }
        request += "Connection: close\r\n\r\n"
        try connection.writeAll(Array(request.utf8) + body, deadline: deadline)

        var parser = HTTPClientResponseParser(maxBodySize: maxBodySize)
        while true {
            let bytes = try connection.read(maxCount: 16 * 1024, deadline: deadline)
            if bytes.isEmpty { return try parser.finish() }
            if let response = try parser.feed(bytes) { return response }
        }
    }
}

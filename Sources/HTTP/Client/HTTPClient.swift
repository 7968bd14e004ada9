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
    /// Where host names are looked up, within the request's deadline.
    var nameLookup = NameLookup.shared

    public init(timeout: Double = 3, maxBodySize: Int = 1 << 20, allowPrivateAddresses: Bool = false,
                userAgent: String = "catbird-mls") {
        self.timeout = timeout
        self.maxBodySize = maxBodySize
        self.allowPrivateAddresses = allowPrivateAddresses
        self.userAgent = userAgent
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
        // The lookup shares the deadline: a DNS server that never answers costs at most the budget.
        let endpoints = try nameLookup.resolve(host: url.host, port: url.port, isLiteral: hostIsIPLiteral, deadline: deadline)
        let permitted = allowPrivateAddresses ? endpoints : endpoints.filter { $0.address.isPubliclyRoutable }
        guard !permitted.isEmpty else {
            throw .forbiddenAddress("\(url.host) resolves only to non-public addresses")
        }
        _ = try deadline.remainingMilliseconds()
        let connection = try HTTPClientConnection.connect(to: permitted, deadline: deadline)
        if url.scheme == .https {
            let context: ClientTLSContext
            do {
                context = try extraTrustAnchorPEM.map(ClientTLSContext.init) ?? ClientTLSContext.shared.get()
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

import HTTP

/// The routes outside XRPC's method table: `_health`, `/metrics` and the service's did:web document.
enum PlainRoutes {
    static let version = "0.1.0"

    /// `GET /xrpc/_health` → `{"version": …, "database": "primary"}`; 503 with `database` saying
    /// what the service reaches instead (`standby`, `unavailable`) while it has no primary (API.md).
    static func health(_ monitor: HealthMonitor) -> @Sendable (HTTPRequest) -> HTTPResponse {
        let ok = JSONText.object(["version": version, "database": HealthMonitor.DatabaseState.primary.name])
        let standby = JSONText.object(["version": version, "database": HealthMonitor.DatabaseState.standby.name,
                                       "error": "DatabaseUnavailable", "message": "the database reached is a standby: no writes"])
        let down = JSONText.object(["version": version, "database": HealthMonitor.DatabaseState.unavailable.name,
                                    "error": "DatabaseUnavailable", "message": "the database does not answer"])
        return { _ in
            var headers = HTTPHeaders()
            headers.add("Content-Type", "application/json")
            switch monitor.databaseState {
            case .primary: return HTTPResponse(status: 200, headers: headers, body: ok)
            case .standby:
                headers.add("Retry-After", "1")
                return HTTPResponse(status: 503, headers: headers, body: standby)
            case .unavailable:
                headers.add("Retry-After", "1")
                return HTTPResponse(status: 503, headers: headers, body: down)
            }
        }
    }

    /// `GET /.well-known/did.json`: the service's did:web document with its `#atproto_mls` entry.
    static func didDocument(serviceDID: String, endpoint: String) -> @Sendable (HTTPRequest) -> HTTPResponse {
        var body: [UInt8] = Array("{\"@context\":[\"https://www.w3.org/ns/did/v1\"],\"id\":".utf8)
        JSONText.appendString(serviceDID, to: &body)
        body.append(contentsOf: Array(",\"service\":[{\"id\":\"#atproto_mls\",\"type\":\"AtprotoMlsService\",\"serviceEndpoint\":".utf8))
        JSONText.appendString(endpoint, to: &body)
        body.append(contentsOf: Array("}]}".utf8))
        let document = body
        return { _ in
            var headers = HTTPHeaders()
            headers.add("Content-Type", "application/json")
            return HTTPResponse(status: 200, headers: headers, body: document)
        }
    }

    /// `GET /metrics`: Prometheus text. With a token configured, only `Authorization: Bearer <token>`
    /// is answered; the comparison takes the same time wherever the first difference is.
    static func metrics(_ metrics: ServiceMetrics, token: String?) -> @Sendable (HTTPRequest) -> HTTPResponse {
        let expected = token.map { Array(("Bearer " + $0).utf8) }
        return { request in
            if let expected {
                let given = Array((request.headers["Authorization"] ?? "").utf8)
                var difference = given.count == expected.count ? 0 : 1
                for index in 0..<expected.count { difference |= Int(expected[index] ^ (index < given.count ? given[index] : 0)) }
                guard difference == 0 else {
                    return XRPCError(401, .authenticationRequired, "metrics need the bearer token",
                                     headers: [("WWW-Authenticate", "Bearer")]).response
                }
            }
            guard request.method == .get || request.method == .head else {
                return XRPCError(405, .invalidRequest, "/metrics takes GET").response
            }
            var headers = HTTPHeaders()
            headers.add("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            return HTTPResponse(status: 200, headers: headers, body: Array(metrics.render().utf8))
        }
    }
}

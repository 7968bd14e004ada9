import Foundation
import HTTP
import MLS

/// Set-up calls to the service over loopback, each as one user with a fresh token.
struct XRPCClient: Sendable {
    let baseURL: String
    let audience: String
    private let http = HTTPClient(timeout: 60, maxBodySize: 64 << 20, allowPrivateAddresses: true)

    init(baseURL: String, audience: String) {
        self.baseURL = baseURL
        self.audience = audience
    }

    /// POSTs `json` to `/xrpc/<nsid>`; returns the decoded reply, throwing on any status but 200.
    @discardableResult
    func call(_ nsid: String, as user: BenchUser, json: [String: Any]) throws -> [String: Any] {
        let body = Array(try JSONSerialization.data(withJSONObject: json))
        return try post(nsid, token: try user.token(audience: audience, nsid: nsid), body: body)
    }

    /// POSTs a prepared body with a prepared token.
    @discardableResult
    func post(_ nsid: String, token: String, body: [UInt8]) throws -> [String: Any] {
        let response = try http.send(method: "POST", baseURL + "/xrpc/" + nsid,
                                     headers: [("Authorization", "Bearer " + token), ("Content-Type", "application/json")],
                                     body: body)
        return try Self.decode(response, nsid)
    }

    /// GETs `/xrpc/<nsid>?<query>` (`query` already encoded); the decoded reply, throwing on any status but 200.
    @discardableResult
    func get(_ nsid: String, query: String = "", token: String) throws -> [String: Any] {
        let response = try http.send(method: "GET", baseURL + "/xrpc/" + nsid + (query.isEmpty ? "" : "?" + query),
                                     headers: [("Authorization", "Bearer " + token)])
        return try Self.decode(response, nsid)
    }

    private static func decode(_ response: HTTPClientResponse, _ nsid: String) throws -> [String: Any] {
        guard response.status == 200 else {
            throw BenchError.call(nsid: nsid, status: response.status, body: String(decoding: response.body, as: UTF8.self))
        }
        return (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any] ?? [:]
    }

    /// Publishes one KeyPackage for its owner.
    func publish(_ bundle: KeyPackageBundle, as user: BenchUser) throws {
        try call("blue.catbird.mls.publishKeyPackage", as: user, json: WireFormat.publishKeyPackageBody(bundle))
    }
}

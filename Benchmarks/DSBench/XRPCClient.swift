import Foundation
import HTTP
import MLS

enum BenchError: Error, CustomStringConvertible {
    case usage(String)
    case call(nsid: String, status: Int, body: String)
    case unexpected(String)

    var description: String {
        switch self {
        case .usage(let text): "usage: \(text)"
        case .call(let nsid, let status, let body): "\(nsid) answered \(status): \(body.prefix(300))"
        case .unexpected(let text): text
        }
    }
}

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

/// How MLS objects and ids travel in the JSON bodies (API.md).
enum WireFormat {
    /// `$bytes`: standard base64 without padding, as the AT Protocol data model writes it.
    static func bytes(_ message: MLSMessage) -> [String: String] {
        ["$bytes": base64(message.encoded())]
    }

    static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String(format: "%02x", $0) }.joined()
    }

    static func publishKeyPackageBody(_ bundle: KeyPackageBundle) -> [String: Any] {
        ["keyPackage": bytes(MLSMessage(body: .keyPackage(bundle.keyPackage))), "cipherSuite": BenchUser.suiteName]
    }

    /// A JSON text with no spaces or newlines, so it fits one field of a data line.
    static func compactJSON(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }
}

/// ULID-shaped message ids (26 Crockford base32 characters): the run's millisecond time, then a
/// counter, so every id of a run differs.
struct MessageIDs {
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    private let prefix = UInt64(Date().timeIntervalSince1970 * 1000)

    func id(_ index: Int) -> String {
        var out = [Character](repeating: "0", count: 26)
        var time = prefix
        for position in stride(from: 9, through: 0, by: -1) {
            out[position] = Self.alphabet[Int(time & 31)]
            time >>= 5
        }
        var counter = UInt64(index)
        for position in stride(from: 25, through: 10, by: -1) {
            out[position] = Self.alphabet[Int(counter & 31)]
            counter >>= 5
        }
        return String(out)
    }
}

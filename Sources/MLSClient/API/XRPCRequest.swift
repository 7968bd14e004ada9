import ATProto
import Foundation
import JSON

/// One XRPC call before it is sent: a query (GET with parameters) or a procedure (POST with a body).
public struct XRPCRequest: Sendable {
    public enum Kind: Sendable {
        case query
        case procedure(body: [UInt8], contentType: String)
    }

    public var nsid: String
    public var kind: Kind
    /// Query parameters in order; a repeated name is an array (`dids=a&dids=b`).
    public var parameters: [(String, String)]
    public var requiresAuth: Bool

    public init(nsid: String, kind: Kind, parameters: [(String, String)] = [], requiresAuth: Bool = true) {
        self.nsid = nsid
        self.kind = kind
        self.parameters = parameters
        self.requiresAuth = requiresAuth
    }

    public static func query(_ nsid: String, _ parameters: [(String, String)] = []) -> XRPCRequest {
        XRPCRequest(nsid: nsid, kind: .query, parameters: parameters)
    }

    /// A procedure whose body is `input` as JSON.
    public static func procedure<Input: Encodable>(_ nsid: String, _ input: Input) throws(MLSAPIError) -> XRPCRequest {
        let body: [UInt8]
        do { body = try StrictJSON.encode(input) } catch { throw .invalidRequest("cannot encode \(nsid) input: \(error)") }
        return XRPCRequest(nsid: nsid, kind: .procedure(body: body, contentType: "application/json"))
    }

    public var httpMethod: String {
        if case .procedure = kind { return "POST" }
        return "GET"
    }

    /// `<base>/xrpc/<nsid>?<query>` with RFC 3986 percent-encoding of names and values.
    public func url(base: String) -> String {
        var base = base
        while base.hasSuffix("/") { base.removeLast() }
        var url = base + "/xrpc/" + nsid
        if !parameters.isEmpty {
            url += "?" + parameters.map { Self.percentEncode($0.0) + "=" + Self.percentEncode($0.1) }.joined(separator: "&")
        }
        return url
    }

    /// Everything but RFC 3986 unreserved characters is escaped, `+` included (the service reads
    /// `+` as a space).
    static func percentEncode(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += String(format: "%%%02X", byte)
            }
        }
        return out
    }
}

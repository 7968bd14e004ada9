import ATProto
import ChatProtocol
import HTTP

/// An XRPC error: a status code and the body `{"error": name, "message": message}` (API.md, Conventions).
public struct XRPCError: Error, Sendable, Equatable {
    public var status: Int
    public var name: XRPCErrorName
    public var message: String
    public var headers: [(String, String)]

    public init(_ status: Int, _ name: XRPCErrorName, _ message: String, headers: [(String, String)] = []) {
        self.status = status
        self.name = name
        self.message = message
        self.headers = headers
    }

    public static func == (lhs: XRPCError, rhs: XRPCError) -> Bool {
        lhs.status == rhs.status && lhs.name == rhs.name && lhs.message == rhs.message
    }

    public static func invalidRequest(_ message: String) -> XRPCError { XRPCError(400, .invalidRequest, message) }
    public static func methodNotImplemented(_ nsid: String) -> XRPCError {
        XRPCError(404, .methodNotImplemented, "no method \(nsid)")
    }
    public static func notFound(_ name: XRPCErrorName, _ message: String) -> XRPCError { XRPCError(404, name, message) }
    public static func forbidden(_ name: XRPCErrorName, _ message: String) -> XRPCError { XRPCError(403, name, message) }
    public static func conflict(_ name: XRPCErrorName, _ message: String) -> XRPCError { XRPCError(409, name, message) }
    public static func payloadTooLarge(_ message: String) -> XRPCError { XRPCError(413, .payloadTooLarge, message) }
    public static let unavailable = XRPCError(503, .serviceUnavailable, "the database is unavailable, retry later",
                                              headers: [("Retry-After", "1")])
    public static let internalError = XRPCError(500, .internalServerError, "internal error")
    public static let authenticationRequired = XRPCError(401, .authenticationRequired, "authentication required")

    /// A service-auth failure (AUTH.md): 401 with `WWW-Authenticate: Bearer`, or 503 when the replay
    /// store is down.
    public init(_ error: AuthError) {
        self.init(error.status, XRPCErrorName(error), error.message,
                  headers: error.status == 503 ? [("Retry-After", "1")] : [("WWW-Authenticate", "Bearer")])
    }

    /// A refusal of the chat contract, with the status its code travels with (CHAT.md §1.3).
    public init(_ refusal: ChatRefusal) {
        self.init(refusal.code.status, XRPCErrorName(chat: refusal.code), refusal.message,
                  headers: refusal.retryAfter.map { [("Retry-After", String(max(1, $0)))] } ?? [])
    }

    /// The HTTP response carrying this error.
    public var response: HTTPResponse {
        var headers = HTTPHeaders()
        headers.add("Content-Type", "application/json")
        for (name, value) in self.headers { headers.add(name, value) }
        return HTTPResponse(status: status, headers: headers, body: JSONText.object(["error": name.rawValue, "message": message]))
    }
}

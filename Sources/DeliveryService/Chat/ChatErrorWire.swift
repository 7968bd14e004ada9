import ChatProtocol
import HTTP
import JSON

/// The chat contract's error wire (CHAT.md §1.3): a client acts on the code, so on
/// `blue.catbird.chat.*` routes the service's generic names become the contract's own: a token
/// that failed service auth is `NotAuthorized` (`AccountSessionExpired` when it expired), a rate
/// limit is `RateLimited` (429, Retry-After kept), a body over its limit `InvalidRequest`.
/// Infrastructure failures keep their status and name (503 `ServiceUnavailable`, 500
/// `InternalServerError`), as the contract's own server answers them.
struct ChatErrorWire: XRPCMiddleware {
    static let prefix = "blue.catbird.chat."

    func handle(_ request: HTTPRequest, _ context: XRPCRequestContext, next: XRPCNext) -> XRPCResult {
        let result = next(request, context)
        guard context.nsid.hasPrefix(Self.prefix) else { return result }
        return result.then(Self.rewrite)
    }

    @Sendable static func rewrite(_ result: XRPCResult) -> XRPCResult {
        guard let name = result.errorName, let code = code(for: name, status: result.response.status) else { return result }
        var rewritten = result
        let message = Self.message(of: result.response) ?? code.rawValue
        var error = XRPCError(code == .rateLimited ? 429 : (code.status == 401 ? 401 : result.response.status),
                              XRPCErrorName(chat: code), message)
        error.headers = result.response.headers.filter { !["content-type", "content-length"].contains($0.name.lowercased()) }
            .map { ($0.name, $0.value) }
        rewritten.response = error.response
        rewritten.errorName = error.name
        return rewritten
    }

    static func code(for name: XRPCErrorName, status: Int) -> ChatErrorCode? {
        switch name {
        case .rateLimitExceeded: return .rateLimited
        case .payloadTooLarge: return .invalidRequest
        case .serviceUnavailable, .internalServerError: return nil
        default: break
        }
        guard status == 401, name != XRPCErrorName(chat: .invalidSignature), name != XRPCErrorName(chat: .deviceRevoked),
              name != XRPCErrorName(chat: .deviceNotRegistered), name != XRPCErrorName(chat: .deviceBindingMismatch),
              name != XRPCErrorName(chat: .notAuthorized), name != XRPCErrorName(chat: .accountSessionExpired)
        else { return nil }
        return name.rawValue == "JwtExpired" ? .accountSessionExpired : .notAuthorized
    }

    static func message(of response: HTTPResponse) -> String? {
        guard let document = try? JSONDocument(parsing: response.body),
              let node = document.member("message", of: document.root) else { return nil }
        return document.string(node)
    }
}

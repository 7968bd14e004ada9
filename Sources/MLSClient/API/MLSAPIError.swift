import HTTP

/// Why a call to the delivery service failed. Each case is matchable; none carries a token.
public enum MLSAPIError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No token could be had for the call (no provider, or the provider failed).
    case noAuthentication(String)
    /// The service answered with a non-2xx status; `error` and `message` come from the XRPC error
    /// body `{"error": …, "message": …}` when there is one.
    case http(status: Int, error: String?, message: String?)
    /// A 2xx answer whose body is not the JSON the lexicon describes.
    case decoding(String)
    /// A blob over the service's 50 MiB limit, refused before upload (or 413 BlobTooLarge).
    case blobTooLarge(size: Int, limit: Int)
    /// The exchange failed below HTTP (connect, timeout, reset, TLS, SSRF guard).
    case network(HTTPClientError)
    /// A method this client does not implement (the WebSocket subscription).
    case notSupported(String)
    /// The request could not be built (an input that cannot be encoded, a bad base URL).
    case invalidRequest(String)
    case cancelled

    /// The XRPC error name, when the service sent one.
    public var xrpcError: String? {
        if case .http(_, let error, _) = self { return error }
        return nil
    }

    public var status: Int? {
        if case .http(let status, _, _) = self { return status }
        return nil
    }

    public var description: String {
        switch self {
        case .noAuthentication(let why): "no authentication: \(why)"
        case .http(let status, let error, let message):
            "HTTP \(status)" + (error.map { " \($0)" } ?? "") + (message.map { ": \($0)" } ?? "")
        case .decoding(let why): "unexpected response: \(why)"
        case .blobTooLarge(let size, let limit): "blob of \(size) bytes exceeds the \(limit)-byte limit"
        case .network(let error): "network error: \(error)"
        case .notSupported(let what): "not supported by this client: \(what)"
        case .invalidRequest(let why): "invalid request: \(why)"
        case .cancelled: "cancelled"
        }
    }
}

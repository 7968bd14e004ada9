/// Why a request could not be framed. Each case maps to the status the server answers with;
/// the connection is closed afterwards because the framing of what follows is unknown.
public enum HTTPParserError: Error, Sendable, Equatable {
    /// request-line is not `method SP request-target SP HTTP-version` (RFC 9112 §3).
    case invalidRequestLine
    /// method is empty or not a token (RFC 9110 §9.1).
    case invalidMethod
    /// request-target is empty or holds bytes outside visible ASCII (RFC 9112 §3.2).
    case invalidTarget
    /// HTTP-version is not `HTTP/DIGIT.DIGIT` (RFC 9112 §2.3).
    case invalidVersion
    /// A well-formed version other than 1.0 and 1.1 (505, RFC 9110 §15.6.6).
    case unsupportedVersion
    /// A line ends in a bare LF or holds a bare CR (RFC 9112 §2.2).
    case invalidLineEnding
    /// field-name is empty, not a token, or followed by whitespace before ':' (RFC 9112 §5.1).
    case invalidHeaderName
    /// field-value holds a CTL other than HTAB, or DEL (RFC 9110 §5.5).
    case invalidHeaderValue
    /// obs-fold: a header line starting with SP or HTAB (RFC 9112 §5.2).
    case obsoleteLineFolding
    /// The header section (or the trailer section) exceeds the configured limit (431).
    case headerSectionTooLarge
    /// HTTP/1.1 request without exactly one Host field (RFC 9112 §3.2).
    case invalidHost
    /// Content-Length is not 1*DIGIT, or appears more than once (RFC 9112 §6.3).
    case invalidContentLength
    /// Both Content-Length and Transfer-Encoding are present (RFC 9112 §6.1, request smuggling).
    case contentLengthWithTransferEncoding
    /// Transfer-Encoding is malformed, in HTTP/1.0, or chunked is not final exactly once (RFC 9112 §6.3).
    case invalidTransferEncoding
    /// A transfer coding other than chunked (501, RFC 9112 §6.1).
    case unsupportedTransferEncoding
    /// chunk-size is not 1*HEXDIG, is too long, or the chunk line/data terminator is wrong (RFC 9112 §7.1).
    case invalidChunk
    /// The body exceeds the limit the responder chose for this request (413).
    case payloadTooLarge
    /// An Expect value other than 100-continue (417, RFC 9110 §10.1.1).
    case expectationFailed

    /// The status the server answers with.
    public var status: Int {
        switch self {
        case .unsupportedVersion: 505
        case .headerSectionTooLarge: 431
        case .payloadTooLarge: 413
        case .unsupportedTransferEncoding: 501
        case .expectationFailed: 417
        default: 400
        }
    }

    /// The XRPC error name carried in the JSON body.
    public var errorName: String {
        switch self {
        case .payloadTooLarge: "PayloadTooLarge"
        case .headerSectionTooLarge: "RequestHeaderFieldsTooLarge"
        default: "InvalidRequest"
        }
    }

    public var message: String {
        switch self {
        case .invalidRequestLine: "malformed request line"
        case .invalidMethod: "invalid method"
        case .invalidTarget: "invalid request target"
        case .invalidVersion: "malformed HTTP version"
        case .unsupportedVersion: "HTTP version not supported"
        case .invalidLineEnding: "lines must end in CRLF"
        case .invalidHeaderName: "invalid header field name"
        case .invalidHeaderValue: "invalid header field value"
        case .obsoleteLineFolding: "obsolete line folding is not accepted"
        case .headerSectionTooLarge: "header section too large"
        case .invalidHost: "exactly one Host header is required"
        case .invalidContentLength: "invalid Content-Length"
        case .contentLengthWithTransferEncoding: "Content-Length and Transfer-Encoding together"
        case .invalidTransferEncoding: "invalid Transfer-Encoding"
        case .unsupportedTransferEncoding: "unsupported transfer coding"
        case .invalidChunk: "malformed chunked body"
        case .payloadTooLarge: "request body too large"
        case .expectationFailed: "unsupported expectation"
        }
    }

    /// The response the server sends for this error.
    public var response: HTTPResponse {
        .error(status: status, error: errorName, message: message)
    }
}

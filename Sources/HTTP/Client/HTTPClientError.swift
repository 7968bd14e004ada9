/// Why an outbound request failed. Each case is a distinct, matchable cause; none carries secrets.
public enum HTTPClientError: Error, Sendable, Equatable {
    case invalidURL(String)
    case hostNotFound(String)
    /// Every address the host resolved to is private, loopback, link-local or otherwise not
    /// publicly routable, and private targets are not allowed (SSRF guard).
    case forbiddenAddress(String)
    case connectFailed(String)
    /// The overall deadline passed.
    case timeout
    case tls(String)
    /// Redirects are never followed: a 3xx answer is a failure.
    case redirectRefused(status: Int)
    case responseTooLarge
    case malformedResponse(String)
    case io(String)
}

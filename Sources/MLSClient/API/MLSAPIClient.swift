import ATProto
import Dispatch
import Foundation
import HTTP
import JSON

/// A client for the `blue.catbird.mls.*` XRPC methods (API.md). Each call is one blocking HTTP
/// exchange on `HTTPClient`, run off the caller's task; retries follow `RetryPolicy` and mint a fresh
/// token per attempt.
public struct MLSAPIClient: Sendable {
    public struct Configuration: Sendable {
        /// The service's base URL, e.g. `http://127.0.0.1:8080`.
        public var baseURL: String
        /// The service's DID: the `aud` of service-auth tokens.
        public var serviceDID: String
        public var timeout: Double
        public var maxResponseSize: Int
        /// Allows loopback and private targets; needed for a local server, off for production.
        public var allowPrivateAddresses: Bool
        public var retry: RetryPolicy
        public var userAgent: String

        public init(baseURL: String, serviceDID: String = "did:web:localhost", timeout: Double = 30,
                    maxResponseSize: Int = 64 << 20, allowPrivateAddresses: Bool? = nil, retry: RetryPolicy = .default,
                    userAgent: String = "catbird-mls-client") {
            self.baseURL = baseURL
            self.serviceDID = serviceDID
            self.timeout = timeout
            self.maxResponseSize = maxResponseSize
            self.allowPrivateAddresses = allowPrivateAddresses ?? Self.isLoopback(baseURL)
            self.retry = retry
            self.userAgent = userAgent
        }

        /// True for `localhost`, `127.x.y.z` and `[::1]` URLs.
        public static func isLoopback(_ url: String) -> Bool {
            guard let host = URLComponents(string: url)?.host?.lowercased() else { return false }
            return host == "localhost" || host.hasPrefix("127.") || host == "::1" || host == "[::1]"
        }
    }

    /// Largest blob the service accepts (API.md, uploadBlob).
    public static let maxBlobSize = 50 << 20

    public let configuration: Configuration
    public let tokenProvider: MLSTokenProvider?
    private let http: HTTPClient

    public init(configuration: Configuration, tokenProvider: MLSTokenProvider?) {
        self.configuration = configuration
        self.tokenProvider = tokenProvider
        http = HTTPClient(timeout: configuration.timeout, maxBodySize: configuration.maxResponseSize,
                          allowPrivateAddresses: configuration.allowPrivateAddresses, userAgent: configuration.userAgent)
    }

    // MARK: Core

    /// One attempt's failure with the server's Retry-After, if any.
    struct AttemptFailure: Error {
        var error: MLSAPIError
        var retryAfter: Double?
    }

    /// Sends one request once, blocking the calling thread; a non-2xx answer becomes `.http` with the
    /// XRPC error name and message.
    public func sendBlocking(_ request: XRPCRequest, token: String?) throws(MLSAPIError) -> HTTPClientResponse {
        do { return try attempt(request, token: token) } catch { throw error.error }
    }

    func attempt(_ request: XRPCRequest, token: String?) throws(AttemptFailure) -> HTTPClientResponse {
        var headers: [(String, String)] = [("Accept", "application/json")]
        if let token { headers.append(("Authorization", "Bearer " + token)) }
        var body: [UInt8] = []
        if case .procedure(let requestBody, let contentType) = request.kind {
            headers.append(("Content-Type", contentType))
            body = requestBody
        }
        let response: HTTPClientResponse
        do {
            response = try http.send(method: request.httpMethod, request.url(base: configuration.baseURL), headers: headers, body: body)
        } catch {
            throw AttemptFailure(error: .network(error))
        }
        guard (200..<300).contains(response.status) else {
            let (name, message) = Self.xrpcError(response.body)
            throw AttemptFailure(error: .http(status: response.status, error: name, message: message),
                                 retryAfter: RetryPolicy.parseRetryAfter(response.header("Retry-After")))
        }
        return response
    }

    static func xrpcError(_ body: [UInt8]) -> (String?, String?) {
        struct Body: Decodable {
            var error: String?
            var message: String?
        }
        guard let decoded = try? StrictJSON.decode(Body.self, from: body) else { return (nil, nil) }
        return (decoded.error, decoded.message)
    }

    /// Sends with retries; a token is asked for before each attempt.
    public func send(_ request: XRPCRequest) async throws(MLSAPIError) -> HTTPClientResponse {
        let policy = configuration.retry
        var attemptNumber = 1
        while true {
            if Task.isCancelled { throw .cancelled }
            var token: String?
            if request.requiresAuth {
                guard let tokenProvider else { throw .noAuthentication("no token provider configured") }
                do { token = try await tokenProvider(request.nsid) } catch {
                    throw .noAuthentication("token provider failed: \(error)")
                }
            }
            let outcome = await Self.offload { [self, token] in
                Result { () throws(AttemptFailure) -> HTTPClientResponse in try attempt(request, token: token) }
            }
            switch outcome {
            case .success(let response):
                return response
            case .failure(let failure):
                guard let delay = policy.delay(afterAttempt: attemptNumber, error: failure.error, retryAfter: failure.retryAfter) else {
                    throw failure.error
                }
                await policy.sleep(delay)
                attemptNumber += 1
            }
        }
    }

    /// Sends and decodes the JSON answer.
    public func call<Output: Decodable>(_ request: XRPCRequest, as type: Output.Type = Output.self) async throws(MLSAPIError) -> Output {
        let response = try await send(request)
        do {
            return try StrictJSON.decode(Output.self, from: response.body)
        } catch {
            throw .decoding("\(request.nsid): \(error)")
        }
    }

    /// Runs blocking socket work on a Dispatch worker so the caller's task does not hold a
    /// cooperative thread for the length of a request.
    static func offload<T: Sendable, E: Error>(_ work: @escaping @Sendable () -> Result<T, E>) async -> Result<T, E> {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: work()) }
        }
    }
}

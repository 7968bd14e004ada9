import Basics
import Foundation
import HTTP

/// Web Push over our HTTP/1.1 client: one POST per push to the subscription's endpoint, encrypted
/// for it (RFC 8291) and signed with the service's VAPID key (RFC 8292). Endpoints are the clients'
/// choice: the client refuses redirects, non-public addresses (unless `allowPrivateAddresses`, for
/// tests) and oversized answers, and every request ends within its timeout.
public final class WebPushSender: PushSender {
    public let platform = PushPlatform.web
    private let vapid: VAPID
    private let client: HTTPClient
    private let workers: WorkerPool

    /// - Parameter threads: pushes sent at once (each holds a thread for its request).
    public init(vapid: VAPID, client: HTTPClient, threads: Int) {
        self.vapid = vapid
        self.client = client
        workers = WorkerPool(threadCount: threads, name: "push-web")
        workers.start()
    }

    public func send(_ notification: PushNotification, to address: PushAddress,
                     completion: @escaping @Sendable (PushOutcome) -> Void) {
        workers.submit { [vapid, client] in
            completion(Self.deliver(notification, to: address, vapid: vapid, client: client))
        }
    }

    public func shutdown() { workers.shutdown() }

    static func deliver(_ notification: PushNotification, to address: PushAddress, vapid: VAPID, client: HTTPClient) -> PushOutcome {
        guard let keys = address.webPush else { return .invalidToken(reason: "NoSubscriptionKeys") }
        let request: WebPushRequest
        do {
            let authorization = try vapid.authorization(origin: try HTTPClient.origin(of: address.token))
            request = try WebPushRequest(notification: notification, endpoint: address.token, keys: (keys.p256dh, keys.auth),
                                         authorization: authorization)
        } catch {
            return .invalidToken(reason: "BadSubscription")
        }
        do {
            let response = try client.send(method: "POST", request.endpoint, headers: request.headers, body: request.body)
            return outcome(status: response.status, retryAfter: response.header("Retry-After"), now: Date().timeIntervalSince1970)
        } catch {
            return outcome(error)
        }
    }

    /// RFC 8030 §5: 201 accepted; 404 or 410 the subscription is gone (§6.2, §7.3); 413 too large;
    /// 429 and 5xx later.
    static func outcome(status: Int, retryAfter: String?, now: Double) -> PushOutcome {
        switch status {
        case 200..<300: .delivered
        case 404: .invalidToken(reason: "NotFound")
        case 410: .invalidToken(reason: "Gone")
        case 429: .retry(reason: "TooManyRequests", retryAfter: PushOutcome.retryAfter(retryAfter, now: now))
        case 500..<600: .retry(reason: "status_\(status)", retryAfter: PushOutcome.retryAfter(retryAfter, now: now))
        default: .rejected(reason: "status_\(status)")
        }
    }

    /// A request that failed before an answer: the endpoint can never be reached (a redirect, a
    /// private address, a malformed URL), or maybe later (the network, a timeout).
    static func outcome(_ error: HTTPClientError) -> PushOutcome {
        switch error {
        case .redirectRefused: .invalidToken(reason: "Redirect")
        case .forbiddenAddress: .invalidToken(reason: "ForbiddenAddress")
        case .invalidURL: .invalidToken(reason: "BadEndpoint")
        case .timeout: .retry(reason: "timeout", retryAfter: nil)
        case .responseTooLarge, .malformedResponse: .retry(reason: "badResponse", retryAfter: nil)
        case .hostNotFound, .connectFailed, .tls, .io: .retry(reason: "network", retryAfter: nil)
        }
    }
}

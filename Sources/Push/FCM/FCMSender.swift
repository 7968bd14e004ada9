import Basics
import Foundation
import HTTP
import JSON

/// FCM HTTP v1 over our HTTP/1.1 client: one `messages:send` POST per push, with the service
/// account's access token (`FCMAccessToken`) as Bearer.
public final class FCMSender: PushSender {
    public let platform = PushPlatform.android
    /// `https://fcm.googleapis.com/v1/projects/<project>/messages:send`, or FCM_URL.
    public let sendURL: String
    private let client: HTTPClient
    private let token: FCMAccessToken
    private let workers: WorkerPool

    /// - Parameters: `tokenURL` replaces the account's `token_uri` and `sendURL` the Google one
    ///   (a private or test host); `threads` pushes sent at once.
    public init(account: FCMServiceAccount, client: HTTPClient, tokenURL: String? = nil, sendURL: String? = nil, threads: Int) {
        self.sendURL = sendURL ?? "https://fcm.googleapis.com/v1/projects/\(account.projectID)/messages:send"
        self.client = client
        token = FCMAccessToken(account: account, tokenURL: tokenURL ?? account.tokenURI, client: client)
        workers = WorkerPool(threadCount: threads, name: "push-fcm")
        workers.start()
    }

    public func send(_ notification: PushNotification, to address: PushAddress,
                     completion: @escaping @Sendable (PushOutcome) -> Void) {
        workers.submit { [self] in completion(deliver(notification, to: address)) }
    }

    public func shutdown() { workers.shutdown() }

    func deliver(_ notification: PushNotification, to address: PushAddress) -> PushOutcome {
        let body: [UInt8]
        do { body = try FCMMessage.body(notification, token: address.token) } catch {
            return .rejected(reason: "payload")
        }
        // A token FCM no longer takes (401) is replaced once, at once.
        for attempt in 0..<2 {
            let bearer: String
            do { bearer = try token.token() } catch {
                switch error {
                case .refused: return .rejected(reason: "oauthRefused")
                case .unavailable: return .retry(reason: "oauthUnavailable", retryAfter: nil)
                }
            }
            let response: HTTPClientResponse
            do {
                response = try client.send(method: "POST", sendURL,
                                           headers: [("Authorization", "Bearer " + bearer), ("Content-Type", "application/json")],
                                           body: body)
            } catch {
                return WebPushSender.outcome(error).asRetryUnlessNetwork
            }
            if response.status == 401, attempt == 0 {
                token.invalidate(bearer)
                continue
            }
            return Self.outcome(status: response.status, body: response.body, retryAfter: response.header("Retry-After"),
                                now: Date().timeIntervalSince1970)
        }
        return .retry(reason: "unauthenticated", retryAfter: nil)
    }

    struct ErrorBody: Decodable {
        struct Status: Decodable {
            struct Detail: Decodable {
                var errorCode: String?
            }

            var status: String?
            var details: [Detail]?
        }

        var error: Status?
    }

    /// FCM HTTP v1's error codes (`FcmError.errorCode`, else the google.rpc status): UNREGISTERED
    /// and SENDER_ID_MISMATCH end the token; QUOTA_EXCEEDED, UNAVAILABLE and INTERNAL come later.
    static func outcome(status: Int, body: [UInt8], retryAfter: String?, now: Double) -> PushOutcome {
        if (200..<300).contains(status) { return .delivered }
        let parsed = try? StrictJSON.decode(ErrorBody.self, from: body)
        let code = parsed?.error?.details?.lazy.compactMap(\.errorCode).first ?? parsed?.error?.status ?? "status_\(status)"
        let delay = PushOutcome.retryAfter(retryAfter, now: now)
        switch code {
        case "UNREGISTERED", "SENDER_ID_MISMATCH", "NOT_FOUND": return .invalidToken(reason: PushOutcome.label(code))
        case "QUOTA_EXCEEDED", "UNAVAILABLE", "INTERNAL", "RESOURCE_EXHAUSTED":
            return .retry(reason: PushOutcome.label(code), retryAfter: delay)
        default:
            if status == 429 || status >= 500 { return .retry(reason: "status_\(status)", retryAfter: delay) }
            return .rejected(reason: PushOutcome.label(code))
        }
    }
}

extension PushOutcome {
    /// FCM's endpoint is ours to configure, not a client's: a failure to reach it is never the
    /// device's fault, so it is retried rather than ending the token.
    var asRetryUnlessNetwork: PushOutcome {
        if case .invalidToken(let reason) = self { return .retry(reason: reason, retryAfter: nil) }
        return self
    }
}

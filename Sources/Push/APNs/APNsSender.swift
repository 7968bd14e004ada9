import Basics
import Foundation
import HTTP2
import JSON
import Primitives

/// APNs over HTTP/2 ("Sending notification requests to APNs"): one multiplexed connection per APNs
/// host (`HTTP2Client`), every request authorized by the one provider token (`APNsProviderToken`).
/// A device's token goes to the host of its environment (production or sandbox), unless one host
/// takes every device (APNS_HOST).
public final class APNsSender: PushSender {
    public let platform = PushPlatform.ios
    public static let productionHost = "api.push.apple.com"
    public static let sandboxHost = "api.sandbox.push.apple.com"

    /// Where a device's pushes go.
    public enum Hosts: Sendable, Equatable {
        /// Apple's host of each device's environment.
        case perDevice
        /// This host for every device (one of Apple's, or a private or test one).
        case single(host: String, port: Int)
    }

    private let provider: APNsProviderToken
    private let topic: String
    private let timeout: Double
    private let production: HTTP2Client
    private let sandbox: HTTP2Client

    /// - Parameters: `trustedCertificatesPEM` replaces the system's trust for the host(s);
    ///   `timeout` bounds each request, queued or in flight.
    public init(provider: APNsProviderToken, topic: String, hosts: Hosts, trustedCertificatesPEM: [UInt8]? = nil,
                timeout: Double, maxConcurrentStreams: Int = 1000) throws(HTTP2Error) {
        self.provider = provider
        self.topic = topic
        self.timeout = timeout
        func client(_ host: String, _ port: Int) throws(HTTP2Error) -> HTTP2Client {
            var configuration = HTTP2Client.Configuration(host: host, port: port, trustedCertificatesPEM: trustedCertificatesPEM)
            configuration.connectTimeout = timeout
            configuration.maxConcurrentStreams = maxConcurrentStreams
            return try HTTP2Client(configuration: configuration)
        }
        switch hosts {
        case .perDevice:
            production = try client(Self.productionHost, 443)
            sandbox = try client(Self.sandboxHost, 443)
        case .single(let host, let port):
            production = try client(host, port)
            sandbox = production
        }
    }

    /// Connections made to the hosts so far (one per host while they stay up).
    public var connectionsMade: Int {
        production === sandbox ? production.connectionsMade.load(ordering: .relaxed)
            : production.connectionsMade.load(ordering: .relaxed) + sandbox.connectionsMade.load(ordering: .relaxed)
    }

    public func send(_ notification: PushNotification, to address: PushAddress, completion: @escaping @Sendable (PushOutcome) -> Void) {
        let request: APNsRequest
        do { request = try APNsRequest(notification: notification, deviceToken: address.token, topic: topic, priority: 10) } catch {
            return completion(.rejected(reason: "payload"))
        }
        let client = address.environment == .sandbox ? sandbox : production
        send(request, on: client, renewing: true, completion: completion)
    }

    private func send(_ request: APNsRequest, on client: HTTP2Client, renewing: Bool, completion: @escaping @Sendable (PushOutcome) -> Void) {
        let bearer: String
        do { bearer = try provider.token() } catch { return completion(.rejected(reason: "providerToken")) }
        let http = HTTP2Request(method: "POST", path: request.path, headers: [("authorization", "bearer " + bearer)] + request.headers,
                                body: request.payload, timeout: timeout)
        client.send(http) { [self] result in
            switch result {
            case .success(let response):
                let outcome = Self.outcome(status: response.status, body: response.body, retryAfter: response.header("retry-after"),
                                           now: Date().timeIntervalSince1970)
                // A token APNs calls expired is replaced (not within 20 minutes of the last) and the push sent once more.
                if case .retry("ExpiredProviderToken", _) = outcome, renewing {
                    _ = try? provider.expired(bearer)
                    return send(request, on: client, renewing: false, completion: completion)
                }
                completion(outcome)
            case .failure(let error):
                completion(Self.outcome(error))
            }
        }
    }

    public func shutdown() {
        production.shutdown()
        if sandbox !== production { sandbox.shutdown() }
    }

    struct ErrorBody: Decodable {
        var reason: String?
    }

    /// APNs' answers ("Handling notification responses from APNs"): 200 sent; 410 Unregistered and
    /// 400 BadDeviceToken or DeviceTokenNotForTopic end the token; 429 and 5xx come later, as does
    /// 403 ExpiredProviderToken with a new provider token; anything else is refused for good.
    static func outcome(status: Int, body: [UInt8], retryAfter: String?, now: Double) -> PushOutcome {
        if status == 200 { return .delivered }
        let reason = (try? StrictJSON.decode(ErrorBody.self, from: body))?.reason.map(PushOutcome.label) ?? "status_\(status)"
        let delay = PushOutcome.retryAfter(retryAfter, now: now)
        switch (status, reason) {
        case (410, _), (400, "BadDeviceToken"), (400, "DeviceTokenNotForTopic"): return .invalidToken(reason: reason)
        case (403, "ExpiredProviderToken"): return .retry(reason: reason, retryAfter: nil)
        case (429, _), (500..<600, _): return .retry(reason: reason, retryAfter: delay)
        default: return .rejected(reason: reason)
        }
    }

    /// No answer: every one of these is worth another try later (the host is Apple's, or the
    /// operator's, never a client's).
    static func outcome(_ error: HTTP2Error) -> PushOutcome {
        switch error {
        case .timeout: .retry(reason: "timeout", retryAfter: nil)
        case .connectFailed: .retry(reason: "connect", retryAfter: nil)
        case .connectionLost, .refused, .reset: .retry(reason: "network", retryAfter: nil)
        case .malformedResponse: .retry(reason: "badResponse", retryAfter: nil)
        case .shutdown: .retry(reason: "shutdown", retryAfter: nil)
        }
    }
}

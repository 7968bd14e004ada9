import Basics
import DeliveryStore
import Foundation
import HTTP
import Primitives
import Push

/// Builds the configured platforms' senders and the dispatcher (docs/push.md). Keys and files are
/// read here, at start-up: one that cannot be used refuses the start, naming its variable.
enum PushServices {
    static func dispatcher(settings: PushSettings, store: DeliveryStore, contentSources: [any PushContentSource] = [],
                           metrics: PushMetrics, log: Log, node: String) throws(ConfigurationError) -> PushDispatcher? {
        guard settings.enabled else { return nil }
        // Each HTTP/1.1 request holds a thread for its length.
        let threads = min(settings.concurrency, 32)
        var senders: [any PushSender] = []
        if let webPush = settings.webPush {
            let pem = try file(webPush.privateKeyFile, variable: "VAPID_PRIVATE_KEY_FILE")
            let key: ECDSAPrivateKey
            do { key = try PEMPrivateKey.ecdsa(pem: pem, curve: .p256) } catch {
                throw ConfigurationError("VAPID_PRIVATE_KEY_FILE", value: webPush.privateKeyFile, "not an unencrypted P-256 private key in PEM")
            }
            let client = try httpClient(settings, allowPrivate: settings.allowPrivateEndpoints)
            senders.append(WebPushSender(vapid: VAPID(key: key, subject: webPush.subject), client: client, threads: threads))
        }
        if let fcm = settings.fcm {
            let json = try file(fcm.serviceAccountFile, variable: "FCM_SERVICE_ACCOUNT_FILE")
            let account: FCMServiceAccount
            do { account = try FCMServiceAccount(json: json) } catch {
                throw ConfigurationError("FCM_SERVICE_ACCOUNT_FILE", value: fcm.serviceAccountFile, error.description)
            }
            // The FCM hosts are the operator's configuration, not a user's: private addresses are theirs to choose.
            let client = try httpClient(settings, allowPrivate: true)
            senders.append(FCMSender(account: account, client: client, tokenURL: fcm.tokenURL, sendURL: fcm.sendURL, threads: threads))
        }
        if let apns = settings.apns { senders.append(try apnsSender(apns, settings: settings)) }
        return PushDispatcher(store: store, senders: senders, contentSources: [MLSPushContent(store: store)] + contentSources,
                              settings: settings, metrics: metrics, log: log, node: node)
    }

    /// APNs over HTTP/2 with the `.p8` key's provider token.
    private static func apnsSender(_ apns: PushSettings.APNs, settings: PushSettings) throws(ConfigurationError) -> APNsSender {
        let pem = try file(apns.keyFile, variable: "APNS_KEY_FILE")
        let key: ECDSAPrivateKey
        do { key = try PEMPrivateKey.ecdsa(pem: pem, curve: .p256) } catch {
            throw ConfigurationError("APNS_KEY_FILE", value: apns.keyFile, "not an unencrypted P-256 private key in PEM (a .p8 file)")
        }
        let hosts: APNsSender.Hosts = switch apns.host {
        case .perDevice: .perDevice
        case .production: .single(host: APNsSender.productionHost, port: 443)
        case .sandbox: .single(host: APNsSender.sandboxHost, port: 443)
        case .custom(let host, let port): .single(host: host, port: port)
        }
        let trusted = try apns.caFile.map { path throws(ConfigurationError) in try file(path, variable: "APNS_CA_FILE") }
        do {
            return try APNsSender(provider: APNsProviderToken(key: key, keyID: apns.keyID, teamID: apns.teamID), topic: apns.topic,
                                  hosts: hosts, trustedCertificatesPEM: trusted, timeout: settings.timeout,
                                  maxConcurrentStreams: max(settings.concurrency, 1))
        } catch {
            throw ConfigurationError("APNS_CA_FILE", value: apns.caFile, "no usable PEM certificate")
        }
    }

    /// A client for Web Push and FCM requests: PUSH_TIMEOUT, small answers, PUSH_CA_FILE's certificates.
    private static func httpClient(_ settings: PushSettings, allowPrivate: Bool) throws(ConfigurationError) -> HTTPClient {
        guard let caFile = settings.caFile else {
            return HTTPClient(timeout: settings.timeout, maxBodySize: 64 << 10, allowPrivateAddresses: allowPrivate)
        }
        let pem = try file(caFile, variable: "PUSH_CA_FILE")
        do {
            return try HTTPClient(timeout: settings.timeout, maxBodySize: 64 << 10, allowPrivateAddresses: allowPrivate,
                                  trustedCertificatesPEM: pem)
        } catch {
            throw ConfigurationError("PUSH_CA_FILE", value: caFile, "no usable PEM certificate")
        }
    }

    static func file(_ path: String, variable: String) throws(ConfigurationError) -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path), data.count <= 1 << 20 else {
            throw ConfigurationError(variable, value: path, "cannot read the file (or it is over 1 MiB)")
        }
        return Array(data)
    }
}

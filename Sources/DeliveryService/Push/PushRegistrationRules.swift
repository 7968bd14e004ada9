import Basics
import DeliveryStore
import HTTP
import Lexicon
import Primitives

/// What registerDeviceToken accepts (docs/push.md, "Registration"), checked cheapest first: the
/// shapes of every field, then, for Web Push, the endpoint's addresses (a name lookup).
struct PushRegistrationRules: Sendable {
    /// Platforms with credentials on this service.
    let platforms: Set<PushPlatform>
    /// Looks up a Web Push endpoint's host and applies the SSRF guard (PUSH_ALLOW_PRIVATE).
    let endpoints: HTTPClient

    static let maxDeviceName = 128
    static let maxEndpoint = 2048
    /// An APNs device token: hex, 8 to 200 bytes decoded (32 today).
    static let apnsTokenBytes = 8...200
    static let maxFCMToken = 4096

    init(settings: PushSettings) {
        var platforms: Set<PushPlatform> = []
        if settings.apns != nil { platforms.insert(.ios) }
        if settings.fcm != nil { platforms.insert(.android) }
        if settings.webPush != nil { platforms.insert(.web) }
        self.platforms = platforms
        endpoints = HTTPClient(timeout: 3, allowPrivateAddresses: settings.allowPrivateEndpoints)
    }

    static func invalid(_ message: String) -> XRPCError { XRPCError(400, .invalidPushToken, message) }

    /// A device id: 1-128 characters of A-Z a-z 0-9 . _ ~ : - (a UUID, an MQTT Client Identifier).
    static func deviceID(_ text: String) throws(XRPCError) -> String {
        guard (1...128).contains(text.utf8.count), text.utf8.allSatisfy(isDeviceIDByte) else {
            throw invalid("deviceId must be 1-128 characters of A-Z a-z 0-9 . _ ~ : -")
        }
        return text
    }

    private static func isDeviceIDByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2E, 0x5F, 0x7E, 0x3A, 0x2D: true
        default: false
        }
    }

    /// The registration `input` asks for, every field checked.
    func registration(_ input: RegisterDeviceTokenInput, caller: DID) throws(XRPCError) -> PushDeviceRegistration {
        let deviceID = try Self.deviceID(input.deviceId)
        guard let platform = PushPlatform(rawValue: input.platform) else {
            throw .invalidRequest("platform must be ios, android or web")
        }
        guard platforms.contains(platform) else {
            throw XRPCError(400, .pushNotConfigured, "this service has no credentials for \(platform.rawValue) push")
        }
        var environment = PushEnvironment.production
        if let text = input.pushEnvironment {
            guard let value = PushEnvironment(rawValue: text) else { throw .invalidRequest("pushEnvironment must be production or sandbox") }
            environment = value
        }
        if let name = input.deviceName {
            guard name.unicodeScalars.count <= Self.maxDeviceName, !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
                throw .invalidRequest("deviceName must be at most \(Self.maxDeviceName) characters, without control characters")
            }
        }
        guard platform == .web || input.webPush == nil else { throw Self.invalid("webPush is for the web platform only") }
        let address: PushAddress
        switch platform {
        case .ios:
            address = try Self.apns(input.pushToken, environment: environment)
        case .android:
            guard (1...Self.maxFCMToken).contains(input.pushToken.utf8.count), input.pushToken.utf8.allSatisfy(Self.isFCMTokenByte) else {
                throw Self.invalid("an FCM token is 1-\(Self.maxFCMToken) characters of A-Z a-z 0-9 - _ : .")
            }
            address = PushAddress(platform: .android, token: input.pushToken)
        case .web:
            guard let subscription = input.webPush else { throw Self.invalid("web needs webPush {endpoint, p256dh, auth}") }
            guard input.pushToken == subscription.endpoint else { throw Self.invalid("for web, pushToken is the endpoint") }
            // The keys first: cheap, and a lookup of a name the client chose only for an otherwise valid request.
            let keys = try Self.keys(subscription)
            address = PushAddress(platform: .web, token: try checkedEndpoint(subscription.endpoint), webPush: keys)
        }
        return PushDeviceRegistration(did: caller, deviceID: deviceID, address: address, deviceName: input.deviceName)
    }

    /// An APNs device token as registered: hex (either case), 8-200 bytes, kept as lower-case hex.
    static func apns(_ token: String, environment: PushEnvironment) throws(XRPCError) -> PushAddress {
        guard token.utf8.count % 2 == 0, let bytes = Hex.decode(token.lowercased()), apnsTokenBytes.contains(bytes.count) else {
            throw invalid("an APNs token is 8-200 bytes in hex")
        }
        return PushAddress(platform: .ios, token: Hex.encode(bytes), environment: environment)
    }

    private static func isFCMTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A, 0x2D, 0x5F, 0x3A, 0x2E: true
        default: false
        }
    }

    /// The subscription's keys (RFC 8291 §2): a P-256 point on the curve and a 16-byte secret.
    static func keys(_ subscription: WebPushSubscription) throws(XRPCError) -> WebPushKeys {
        guard subscription.p256dh.utf8.count <= 128, let p256dh = Base64.decode(subscription.p256dh, alphabet: .url),
              ECDH.isValidUncompressedPublicKey(curve: .p256, p256dh) else {
            throw invalid("p256dh must be an uncompressed P-256 point in base64url")
        }
        guard subscription.auth.utf8.count <= 64, let auth = Base64.decode(subscription.auth, alphabet: .url), auth.count == 16 else {
            throw invalid("auth must be 16 bytes in base64url")
        }
        return WebPushKeys(p256dh: p256dh, auth: auth)
    }

    /// An https endpoint of at most 2048 characters whose host resolves to addresses the service
    /// may reach (public ones only, as for DID documents), checked again at every push.
    func checkedEndpoint(_ endpoint: String) throws(XRPCError) -> String {
        guard endpoint.utf8.count <= Self.maxEndpoint else { throw Self.invalid("endpoint longer than \(Self.maxEndpoint) characters") }
        guard endpoint.prefix(8).lowercased() == "https://" else { throw Self.invalid("endpoint must be an https URL") }
        do { try endpoints.checkDestination(endpoint) } catch {
            switch error {
            case .forbiddenAddress: throw Self.invalid("endpoint resolves to an address the service does not push to")
            case .invalidURL(let why): throw Self.invalid("endpoint is not a usable URL: \(why)")
            case .hostNotFound: throw Self.invalid("endpoint's host does not resolve")
            default: throw XRPCError(503, .serviceUnavailable, "cannot check the endpoint's host now; retry later",
                                     headers: [("Retry-After", "5")])
            }
        }
        return endpoint
    }
}

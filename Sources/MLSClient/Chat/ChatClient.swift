import ATProto
import Basics
import ChatProtocol
import Foundation
import MLS
import Primitives

/// One device speaking the chat contract (CHAT.md): it enrolls with KeyPackages, creates and
/// accepts conversations, adds devices by fulfilling their recovery requests, joins from Welcomes,
/// sends and reads signed entries, and follows the event stream; and through a conversation's life,
/// leaves (+Leave), changes roles, invitations and the title (+Policy), resets (+Reset) and closes
/// (+Close). Every mutation is a signed body (`SignedRequest.sign`); every entry it reads is
/// verified against the signing leaf's key before it is used. Not thread-safe: one caller at a time.
public final class ChatClient {
    public let device: ChatDeviceKey
    public let api: ChatAPI
    public let suite: CipherSuite
    /// The authentication generation the service gave this device (1 once enrolled).
    public private(set) var authGeneration: UInt64 = 0
    /// KeyPackages uploaded and not yet used, by ref.
    var keyPackages: [[UInt8]: KeyPackageBundle] = [:]
    /// The conversations this device holds a leaf in.
    public internal(set) var conversations: [ChatUUID: ChatMembership] = [:]

    public init(device: ChatDeviceKey, api: ChatAPI, suite: CipherSuite = .mls256XWingChaCha20Poly1305SHA256Ed25519) {
        self.device = device
        self.api = api
        self.suite = suite
    }

    // MARK: Signing

    /// The identity fields every signed body carries, with the kind's domain and `$type`.
    public func body(_ kind: SignedMutationKind, _ fields: [String: ChatValue]) -> ChatValue {
        var members = fields
        members["signatureDomain"] = .text(kind.domain)
        members["actorDid"] = .text(device.did.rawValue)
        if kind == .deviceEnrollment {
            members["deviceId"] = .uuid(device.deviceID)
            members["expectedAuthGeneration"] = .integer(0)
        } else {
            members["actorDeviceId"] = .uuid(device.deviceID)
            members["authGeneration"] = .integer(authGeneration)
        }
        members["keyId"] = .text(device.keyID)
        members["signedAt"] = .text(CanonicalTimestamp(Date()).description)
        if kind != .applicationSend && kind != .typing && members["idempotencyKey"] == nil { members["idempotencyKey"] = .uuid(.random()) }
        return .tagged(kind.rawValue, members)
    }

    /// Signs `fields` as a `kind` body and calls `method` with it.
    @discardableResult
    public func signed(_ method: String, _ kind: SignedMutationKind, _ fields: [String: ChatValue]) throws -> ChatValue {
        let request = SignedRequest.sign(body(kind, fields), kind: kind, key: device.key)
        api.capture?.signed(request, publicKey: device.publicKey)
        return try api.signed(method, request)
    }

    /// Queries name the calling device.
    public func query(_ method: String, _ parameters: [(String, String)] = []) throws -> ChatValue {
        try api.query(method, [("actorDeviceId", device.deviceID.description)] + parameters)
    }

    // MARK: Devices

    /// `count` fresh KeyPackages for this device: credential `did#deviceId`, the device key, a
    /// lifetime the contract accepts (now − 1 h to now + 30 days), ordered by ref.
    func makeKeyPackages(_ count: Int) throws -> [ChatValue] {
        let now = UInt64(Date().timeIntervalSince1970)
        var artifacts: [(ref: [UInt8], value: ChatValue)] = []
        for _ in 0..<count {
            let bundle = try KeyPackageBundle.generate(suite: suite, credential: device.credential, signingKey: device.signingKey,
                                                       lifetime: Lifetime(notBefore: now - 3600, notAfter: now + 2_592_000))
            let wrapper = MLSMessage(body: .keyPackage(bundle.keyPackage)).encoded()
            keyPackages[bundle.ref] = bundle
            artifacts.append((bundle.ref, .object([
                "framing": .text("mlsMessage"), "contentType": .text("keyPackage"), "bytes": .bytes(wrapper),
                "sha256": .bytes(HashAlgorithm.sha256.hash(wrapper)), "keyPackageRef": .bytes(bundle.ref),
            ])))
        }
        return artifacts.sorted { $0.ref.lexicographicallyPrecedes($1.ref) }.map(\.value)
    }

    static let capability = ChatValue.object([
        "protocolVersion": .text("1"), "mlsVersion": .text("1.0"), "cipherSuite": .text("MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519"),
        "credentialType": .text("basic"), "addByValue": .text("supported"), "updatePath": .text("supported"),
        "removeByValue": .text("supported"), "ratchetTreeGroupInfo": .text("supported"),
        "externalPubGroupInfo": .text("presentButExternalCommitsForbidden"), "applicationFrameProfile": .text("dagCborApplication1"),
        "controlProfile": .text("publicGroup1"), "attachmentProfile": .text("aes256GcmBlob1"),
        "metadataProfile": .text("exporterAes256Gcm1"), "typingProfile": .text("signedClearEphemeral1"),
    ])

    /// Enrolls this device with `packages` KeyPackages; returns its `#deviceView`.
    @discardableResult
    public func enroll(name: String = "catbird-mls", packages: Int = 4) throws -> ChatValue {
        let output = try signed("enrollDevice", .deviceEnrollment, [
            "deviceName": .text(name), "signaturePublicKey": .bytes(device.publicKey), "capability": Self.capability,
            "keyPackages": .array(try makeKeyPackages(packages)),
        ])
        authGeneration = output["device"]?["authGeneration"]?.integer ?? 1
        return output["device"] ?? .object([:])
    }

    /// Uploads `count` more KeyPackages.
    @discardableResult
    public func replenish(_ count: Int) throws -> ChatValue {
        try signed("replenishKeyPackages", .keyPackageReplenishment, [
            "signaturePublicKey": .bytes(device.publicKey), "keyPackages": .array(try makeKeyPackages(count)),
        ])["device"] ?? .object([:])
    }

    /// Revokes one of this account's devices (this one included) at its current generation.
    @discardableResult
    public func revoke(_ target: ChatUUID, generation: UInt64) throws -> ChatValue {
        try signed("revokeDevice", .deviceRevocation, ["targetDeviceId": .uuid(target), "targetAuthGeneration": .integer(generation)])
    }

    /// Adopts the generation the service reports (after `getOwnDevices`, for a device key loaded from disk).
    public func resume(authGeneration: UInt64) { self.authGeneration = authGeneration }
}

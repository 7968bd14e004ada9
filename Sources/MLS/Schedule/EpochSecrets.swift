import Primitives

/// The secrets of one epoch (RFC 9420 §8). `description` names the type only, so logging an epoch
/// never prints key material.
public struct EpochSecrets: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public let suite: CipherSuite
    public let joinerSecret: [UInt8]
    public let welcomeSecret: [UInt8]
    public let epochSecret: [UInt8]
    public let senderDataSecret: [UInt8]
    public let encryptionSecret: [UInt8]
    public let exporterSecret: [UInt8]
    public let externalSecret: [UInt8]
    public let confirmationKey: [UInt8]
    public let membershipKey: [UInt8]
    public let resumptionPSK: [UInt8]
    public let epochAuthenticator: [UInt8]
    /// init_secret for the next epoch.
    public let initSecret: [UInt8]

    /// Runs the schedule from the previous epoch's init_secret (RFC 9420 §8):
    /// joiner_secret = ExpandWithLabel(Extract(init_secret, commit_secret), "joiner", GroupContext, Nh).
    /// `commitSecret` and `pskSecret` default to the all-zero vector when absent.
    public init(
        suite: CipherSuite, initSecret: [UInt8], commitSecret: [UInt8]?, pskSecret: [UInt8]?, groupContext: [UInt8]
    ) throws(CryptoError) {
        let zero = [UInt8](repeating: 0, count: suite.nh)
        let prk = try suite.kdfExtract(salt: initSecret, ikm: commitSecret ?? zero)
        let joiner = try suite.expandWithLabel(secret: prk, label: "joiner", context: groupContext, length: suite.nh)
        try self.init(suite: suite, joinerSecret: joiner, pskSecret: pskSecret, groupContext: groupContext)
    }

    /// Continues from joiner_secret, as a new member does after decrypting GroupSecrets (RFC 9420 §8, §12.4.3.1).
    public init(suite: CipherSuite, joinerSecret: [UInt8], pskSecret: [UInt8]?, groupContext: [UInt8]) throws(CryptoError) {
        self.suite = suite
        self.joinerSecret = joinerSecret
        let zero = [UInt8](repeating: 0, count: suite.nh)
        let member = try suite.kdfExtract(salt: joinerSecret, ikm: pskSecret ?? zero)
        welcomeSecret = try suite.deriveSecret(secret: member, label: "welcome")
        let epoch = try suite.expandWithLabel(secret: member, label: "epoch", context: groupContext, length: suite.nh)
        epochSecret = epoch
        senderDataSecret = try suite.deriveSecret(secret: epoch, label: "sender data")
        encryptionSecret = try suite.deriveSecret(secret: epoch, label: "encryption")
        exporterSecret = try suite.deriveSecret(secret: epoch, label: "exporter")
        externalSecret = try suite.deriveSecret(secret: epoch, label: "external")
        confirmationKey = try suite.deriveSecret(secret: epoch, label: "confirm")
        membershipKey = try suite.deriveSecret(secret: epoch, label: "membership")
        resumptionPSK = try suite.deriveSecret(secret: epoch, label: "resumption")
        epochAuthenticator = try suite.deriveSecret(secret: epoch, label: "authentication")
        initSecret = try suite.deriveSecret(secret: epoch, label: "init")
    }

    /// MLS-Exporter(Label, Context, Length) =
    /// ExpandWithLabel(DeriveSecret(exporter_secret, Label), "exported", Hash(Context), Length) (RFC 9420 §8.5).
    public func exporter(label: [UInt8], context: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        let derived = try suite.expandWithLabel(secret: exporterSecret, label: label, context: [], length: suite.nh)
        return try suite.expandWithLabel(secret: derived, label: "exported", context: suite.hash(context), length: length)
    }

    public func exporter(label: String, context: [UInt8], length: Int) throws(CryptoError) -> [UInt8] {
        try exporter(label: Array(label.utf8), context: context, length: length)
    }

    /// The group's external HPKE key pair = KEM.DeriveKeyPair(external_secret) (RFC 9420 §8.3).
    public func externalKeyPair() throws(CryptoError) -> HPKEKeyPair { try suite.deriveKeyPair(externalSecret) }

    /// A secret tree over this epoch's encryption_secret.
    public func secretTree(leafCount: UInt32, window: RatchetWindow = .default) throws(ScheduleError) -> SecretTree {
        try SecretTree(suite: suite, encryptionSecret: encryptionSecret, leafCount: leafCount, window: window)
    }

    public var description: String { "EpochSecrets(\(suite))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}

/// Welcome and external-join helpers of the key schedule.
public enum KeySchedule {
    /// welcome_key and welcome_nonce for the encrypted GroupInfo (RFC 9420 §12.4.3.1).
    public static func welcomeKeyAndNonce(
        suite: CipherSuite, welcomeSecret: [UInt8]
    ) throws(CryptoError) -> (key: [UInt8], nonce: [UInt8]) {
        (try suite.expandWithLabel(secret: welcomeSecret, label: "key", context: [], length: suite.nk),
         try suite.expandWithLabel(secret: welcomeSecret, label: "nonce", context: [], length: suite.nn))
    }

    /// welcome_secret from a joiner_secret and psk_secret, without the rest of the epoch.
    public static func welcomeSecret(suite: CipherSuite, joinerSecret: [UInt8], pskSecret: [UInt8]?) throws(CryptoError) -> [UInt8] {
        let member = try suite.kdfExtract(salt: joinerSecret, ikm: pskSecret ?? [UInt8](repeating: 0, count: suite.nh))
        return try suite.deriveSecret(secret: member, label: "welcome")
    }

    static let externalInitLabel = Array("MLS 1.0 external init secret".utf8)

    /// The joiner's side of an external commit: kem_output for the ExternalInit proposal and the
    /// init_secret it implies (RFC 9420 §8.3).
    public static func externalInit(
        suite: CipherSuite, externalPublicKey: [UInt8]
    ) throws(CryptoError) -> (kemOutput: [UInt8], initSecret: [UInt8]) {
        let (enc, context) = try suite.hpke.setupBaseS(publicKey: externalPublicKey, info: [])
        return (enc, try context.export(exporterContext: externalInitLabel, length: suite.nh))
    }

    /// The group's side: the init_secret from an ExternalInit kem_output and external_priv.
    public static func externalInitSecret(
        suite: CipherSuite, kemOutput: [UInt8], externalPrivateKey: [UInt8]
    ) throws(CryptoError) -> [UInt8] {
        let context = try suite.hpke.setupBaseR(enc: kemOutput, privateKey: externalPrivateKey, info: [])
        return try context.export(exporterContext: externalInitLabel, length: suite.nh)
    }
}

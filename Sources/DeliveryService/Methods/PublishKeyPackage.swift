import ATProto
import Basics
import DeliveryStore
import Foundation
import Lexicon
import MLS

/// `blue.catbird.mls.publishKeyPackage`: a KeyPackage validated in full (MLS.md item 1) whose
/// credential names the caller, stored with its KeyPackageRef; `lastResort` (or the package's
/// `last_resort` extension) makes it the caller's last-resort package of its suite.
enum PublishKeyPackage {
    typealias Input = PublishKeyPackageInput
    typealias Output = PublishKeyPackageOutput

    static func method(_ env: MethodEnvironment) -> XRPCMethod {
        XRPCMethod("blue.catbird.mls.publishKeyPackage", .procedure, maxBodySize: 128 << 10) { context in
            let caller = context.caller
            let input = try context.input(Input.self)
            let package = try validate(input.keyPackage.bytes, cipherSuite: input.cipherSuite, expires: input.expires,
                                       lastResort: input.lastResort, caller: caller, env: env)
            return try env.idempotent(context, key: input.idempotencyKey) { tx in
                let published = try tx.publishKeyPackage(package)
                return Output(keyPackageHash: Hex.encode(published.ref), expiresAt: Timestamp.rfc3339(published.expiresAt))
            }
        }
    }

    /// Every publication check; shared with publishKeyPackages. The package is a last-resort one
    /// (RFC 9750 §5.1) when `lastResort` says so or it carries the `last_resort` extension.
    static func validate(_ bytes: [UInt8], cipherSuite: String, expires: String?, lastResort: Bool?, caller: DID,
                         env: MethodEnvironment, now: Date = Date()) throws(XRPCError) -> NewKeyPackage {
        guard bytes.count <= env.limits.maxKeyPackageBytes else {
            throw XRPCError(413, .payloadTooLarge, "a KeyPackage is at most \(env.limits.maxKeyPackageBytes) bytes")
        }
        let suite = try CipherSuiteName.id(cipherSuite)
        let seconds = UInt64(now.timeIntervalSince1970)
        let validated: (keyPackage: KeyPackage, ref: [UInt8])
        do {
            validated = try KeyPackage.validated(mlsMessage: bytes, expectedSuite: suite, now: seconds,
                                                 maxLifetime: UInt64(env.limits.keyPackageMaxLifetimeDays) * 86_400, skew: 60)
        } catch {
            if case .cipherSuiteMismatch = error {
                throw XRPCError(400, .invalidCipherSuite, "the KeyPackage's cipher suite differs from cipherSuite")
            }
            throw XRPCError(400, .invalidKeyPackage, "\(error)")
        }
        guard let identity = MemberIdentity.identity(of: validated.keyPackage.leafNode.credential),
              MemberLeaf.did(fromIdentity: identity) == caller.rawValue else {
            throw XRPCError(400, .invalidKeyPackage, "the KeyPackage's credential must be the caller's DID")
        }
        var expiresAt = now.addingTimeInterval(Double(env.limits.defaultKeyPackageExpiryDays) * 86_400)
        if let expires {
            guard let requested = Timestamp.parse(expires) else { throw XRPCError.invalidRequest("expires is not an RFC 3339 time") }
            guard requested > now else { throw XRPCError.invalidRequest("expires is in the past") }
            guard requested <= now.addingTimeInterval(Double(env.limits.maxKeyPackageExpiryDays) * 86_400) else {
                throw XRPCError(400, .expirationTooFar, "expires is more than \(env.limits.maxKeyPackageExpiryDays) days ahead")
            }
            expiresAt = requested
        }
        if case .keyPackage(let lifetime) = validated.keyPackage.leafNode.leafNodeSource {
            expiresAt = min(expiresAt, Date(timeIntervalSince1970: Double(min(lifetime.notAfter, UInt64(Int64.max / 2)))))
        }
        guard let marked = validated.keyPackage.lastResortMark else {
            throw XRPCError(400, .invalidKeyPackage, "the last_resort extension carries data; it is an empty struct")
        }
        return NewKeyPackage(ownerDID: caller, cipherSuite: suite, keyPackage: bytes, ref: validated.ref,
                             credentialIdentity: identity, expiresAt: expiresAt, lastResort: marked || lastResort == true)
    }
}

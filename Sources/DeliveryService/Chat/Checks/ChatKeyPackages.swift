import ChatProtocol
import DeliveryStore
import Foundation
import MLS
import Primitives

/// The KeyPackages of an enrollment or replenishment (`#keyPackageArtifact`): each an MLSMessage
/// the service's one KeyPackage validator accepts (`KeyPackage.validated`, MLS.md item 1), for a
/// suite chat conversations may use, whose BasicCredential is exactly `actorDid#deviceId` and
/// whose leaf signs with the device's own key, alive now with at least 600 s left and a lifetime
/// of at most 2 595 600 s (defs `keyPackageReplenishmentBody`), with the ref and hash the body
/// signed. The batch is all or nothing.
enum ChatKeyPackages {
    static let maxLifetime: UInt64 = 2_595_600
    static let minimumRemaining: UInt64 = 600

    static func validate(_ artifacts: [ChatValue], did: String, device: ChatUUID, publicKey: [UInt8],
                         env: ChatEnvironment, now: Date) throws -> [ChatKeyPackage] {
        let seconds = UInt64(now.timeIntervalSince1970)
        let identity = Array("\(did)#\(device)".utf8)
        return try artifacts.enumerated().map { index, artifact in
            func refuse(_ reason: String) -> ChatRefusal { ChatRefusal(.invalidKeyPackage, "keyPackages[\(index)]: \(reason)") }
            guard let bytes = artifact["bytes"]?.bytes, let sha256 = artifact["sha256"]?.bytes,
                  let ref = artifact["keyPackageRef"]?.bytes else { throw refuse("incomplete artifact") }
            guard HashAlgorithm.sha256.hash(bytes) == sha256 else { throw refuse("sha256 is not the hash of its bytes") }
            // An MLSMessage (version mls10, wire format mls_key_package), not a bare KeyPackage.
            guard bytes.count >= 4, bytes[0] == 0, bytes[1] == 1, bytes[2] == 0, bytes[3] == UInt8(WireFormat.keyPackage.rawValue) else {
                throw refuse("not an MLSMessage carrying a KeyPackage")
            }
            let validated: (keyPackage: KeyPackage, ref: [UInt8])
            do {
                validated = try KeyPackage.validated(mlsMessage: bytes, now: seconds, maxLifetime: maxLifetime)
            } catch {
                throw refuse("\(error)")
            }
            let package = validated.keyPackage
            guard env.cipherSuites.contains(package.cipherSuite) else { throw refuse("cipher suite \(package.cipherSuite) is not served for chat") }
            guard validated.ref == ref else { throw refuse("keyPackageRef is not the package's RefHash") }
            guard case .basic(let credential) = package.leafNode.credential, credential == identity else {
                throw refuse("the BasicCredential identity must be \(did)#\(device)")
            }
            guard package.leafNode.signatureKey == publicKey else { throw refuse("the leaf's signature key is not the device's key") }
            guard case .keyPackage(let lifetime) = package.leafNode.leafNodeSource,
                  lifetime.notBefore < seconds, seconds < lifetime.notAfter,
                  lifetime.notAfter - seconds >= minimumRemaining, lifetime.notAfter - lifetime.notBefore <= maxLifetime else {
                throw refuse("the lifetime must hold now, leave 600 s and span at most 2 595 600 s")
            }
            return ChatKeyPackage(ref: ref, wrapper: bytes, wrapperSHA256: sha256,
                                  notAfter: Date(timeIntervalSince1970: Double(min(lifetime.notAfter, UInt64(Int64.max / 2)))))
        }
    }
}

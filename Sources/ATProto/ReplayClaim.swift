import Basics
import Foundation

/// A token that passed AUTH.md checks 1–8 and whose `(iss, jti)` still has to be remembered
/// (check 9) before the request may take effect. Only `ServiceAuthVerifier` makes one.
public struct ReplayClaim: Sendable, Hashable {
    /// The verified issuer.
    public let did: DID
    public let jti: String
    /// exp + skew: how long the pair must be remembered.
    public let until: Date

    public var iss: String { did.rawValue }

    init(did: DID, jti: String, until: Date) {
        self.did = did
        self.jti = jti
        self.until = until
    }
}

import ATProto
import Basics
import Foundation

extension ChatAPI {
    /// The chat contract's audience for `serviceDID` (CHAT.md §1.3: the `#atproto_mls` service entry).
    public static func audience(serviceDID: String) -> String { serviceDID + "#atproto_mls" }

    /// The API of the service at `baseURL` for a user with a local atproto key: a service-auth token
    /// minted per call (60 s, `iat` set, a fresh `jti`, `lxm` the method), as the contract requires.
    /// An identity with only an external token cannot call it: a chat token is good for one call.
    public init(identity: MLSClientIdentity, baseURL: String, serviceDID: String, capture: ChatCapture? = nil) throws(MLSClientError) {
        guard let key = try identity.atprotoKey() else {
            throw .invalidArgument("the chat contract needs a token per call: an identity with its own atproto key (init without --token)")
        }
        guard let issuer = try? DID(identity.did) else { throw .storage("stored DID is malformed: \(identity.did)") }
        let audience = Self.audience(serviceDID: serviceDID)
        self.init(client: MLSAPIClient(configuration: .init(baseURL: baseURL, serviceDID: audience), tokenProvider: nil),
                  capture: capture) { nsid in
            try ServiceAuthToken.mint(issuer: issuer, audience: audience, lexiconMethod: nsid, key: key, expiresIn: 60)
        }
    }
}

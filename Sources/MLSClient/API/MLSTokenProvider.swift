import ATProto
import Basics
import Primitives

/// Supplies the bearer token for one call; called once per attempt, so a retry carries a fresh
/// token (the service refuses a replayed `jti`, AUTH.md check 9).
public typealias MLSTokenProvider = @Sendable (_ nsid: String) async throws -> String

public enum MLSTokenProviders {
    /// Mints a service-auth JWT per call with the user's atproto signing key, as a PDS's
    /// `com.atproto.server.getServiceAuth` would: `iss` the user, `aud` the service DID, `lxm` the NSID.
    public static func serviceAuth(issuer: DID, audience: String, key: ECDSAPrivateKey,
                                   expiresIn: Double = 60) -> MLSTokenProvider {
        { nsid in
            try ServiceAuthToken.mint(issuer: issuer, audience: audience, lexiconMethod: nsid, key: key,
                                      expiresIn: expiresIn)
        }
    }

    /// A fixed token (for one call, or a token obtained elsewhere). Replay protection means a fixed
    /// token works once per `jti`: use it for a single call or with a service that allows it.
    public static func fixed(_ token: String) -> MLSTokenProvider {
        { _ in token }
    }
}

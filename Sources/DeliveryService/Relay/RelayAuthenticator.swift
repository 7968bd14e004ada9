import ATProto
import Basics
import DeliveryStore
import Foundation
import MQTT

/// The verified holder of an MQTT connection: the DID its CONNECT's service-auth token proved and
/// the client_id bound to that DID. Only `RelayAuthenticator` can make one, so code holding one holds
/// a verified caller (as `AuthenticatedContext` is for XRPC).
struct RelayIdentity: Sendable, Hashable {
    let did: DID
    let clientID: String

    fileprivate init(did: DID, clientID: String) {
        self.did = did
        self.clientID = clientID
    }
}

/// CONNECT authentication (docs/mqtt.md, "Authentication"): the User Name is the DID, the Password
/// an AT Protocol service-auth token for `lxm` `blue.catbird.mls.mqttConnect` and `aud` the service,
/// verified exactly as for XRPC (signature, DID resolution, replay: a fresh `jti` per CONNECT). The
/// client_id must be 32 lower-case hex digits and is bound for good to the first DID using it.
struct RelayAuthenticator: Sendable {
    static let connectNSID = "blue.catbird.mls.mqttConnect"

    let verifier: ServiceAuthVerifier
    let store: DeliveryStore
    let rateLimits: RateLimits
    let metrics: ServiceMetrics?

    struct Refusal: Error, Equatable {
        var code: ReasonCode
        var reason: String
    }

    func authenticate(_ request: ConnectRequest, remoteAddress: String) -> Result<RelayIdentity, Refusal> {
        // The per-address budget of XRPC, taken before any token work.
        if case .limited = rateLimits.checkIP(remoteAddress) {
            metrics?.recordRateLimited(scope: "ip")
            return .failure(Refusal(code: .quotaExceeded, reason: "RateLimitExceeded: too many requests from this address"))
        }
        // Everything published is validated as the publisher's own act; a Will would be published by
        // the service on the client's behalf after it left, unchecked at that moment.
        guard request.will == nil else {
            return .failure(Refusal(code: .implementationSpecificError, reason: "Will Messages are not supported"))
        }
        guard RelayTopic.isClientID(request.clientIdentifier) else {
            return .failure(Refusal(code: .clientIdentifierNotValid, reason: "the Client Identifier must be 32 lower-case hex digits"))
        }
        guard let userName = request.userName, let claimed = try? DID(userName) else {
            return .failure(Refusal(code: .badUserNameOrPassword, reason: "the User Name must be your DID"))
        }
        guard let password = request.password, let token = String(validating: password, as: UTF8.self), !token.isEmpty else {
            return .failure(Refusal(code: .badUserNameOrPassword, reason: "the Password must be a service-auth token for \(Self.connectNSID)"))
        }
        let did: DID
        do {
            // A token whose issuer's document is not cached costs a fetch: the address's budget of
            // DID fetches first, as for XRPC. The fetch then runs on the resolver's own threads,
            // bounded by its deadline and queue; this relay worker waits for it (CONNECT has no
            // request to set aside and resume).
            let authorization = "Bearer " + token
            switch try verifier.check(authorization: authorization, lexiconMethod: Self.connectNSID) {
            case .verified(let claim):
                try verifier.record(claim)
                did = claim.did
            case .needsKey:
                if case .limited = rateLimits.checkDIDResolution(remoteAddress) {
                    metrics?.recordRateLimited(scope: "did_resolution")
                    return .failure(Refusal(code: .quotaExceeded, reason: "RateLimitExceeded: too many unknown DIDs from this address"))
                }
                did = try verifier.verify(authorization: authorization, lexiconMethod: Self.connectNSID)
            }
        } catch {
            metrics?.authFailures.increment(error.name)
            return .failure(refusal(error, token: token))
        }
        guard did == claimed else {
            return .failure(Refusal(code: .badUserNameOrPassword, reason: "the token was issued by another DID than the User Name"))
        }
        let owner: String
        do { owner = try store.bindRelayClient(request.clientIdentifier, to: did) } catch {
            return .failure(Refusal(code: .serverUnavailable, reason: "ServiceUnavailable: the database is unavailable, retry later"))
        }
        guard owner == did.rawValue else {
            return .failure(Refusal(code: .clientIdentifierNotValid, reason: "this Client Identifier belongs to another DID"))
        }
        return .success(RelayIdentity(did: did, clientID: request.clientIdentifier))
    }

    /// 0x87 when the token would be valid for the method it names (checks 1–8 pass for its own
    /// `lxm`, nothing recorded), 0x88 when the replay store is down, else 0x86.
    private func refusal(_ error: AuthError, token: String) -> Refusal {
        if error.name == AuthError.serviceUnavailable {
            return Refusal(code: .serverUnavailable, reason: "\(error.name): \(error.message)")
        }
        if error.name == AuthError.badJwtLexiconMethod, let lxm = Self.lexiconMethod(of: token), !lxm.isEmpty,
           (try? verifier.verifyDeferringReplay(authorization: "Bearer " + token, lexiconMethod: lxm)) != nil {
            return Refusal(code: .notAuthorized, reason: "\(error.name): the token is for \(lxm), not \(Self.connectNSID)")
        }
        return Refusal(code: .badUserNameOrPassword, reason: "\(error.name): \(error.message)")
    }

    /// The `lxm` claim as the token states it (unverified: only used to re-run the checks for it).
    static func lexiconMethod(of token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].utf8.count <= ServiceAuthJWT.maxLength, let payload = Base64URL.decode(parts[1]),
              let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] else { return nil }
        return object["lxm"] as? String
    }
}

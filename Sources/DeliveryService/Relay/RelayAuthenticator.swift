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
/// client_id must be 32 lower-case hex digits and is bound to the first DID using it (at most
/// `maxClientsPerDID` per DID).
///
/// As XRPC's `ServiceAuth`, the checks run from the key cache alone, so no relay worker waits on the
/// network: a token whose issuer's document must be fetched is charged to the address's budget of
/// DID fetches (`RATE_LIMIT_DID_RESOLUTION`), whatever the token is for, and the CONNECT is set
/// aside (`needsKey`) until the resolver's own threads have fetched it, then authenticated again.
struct RelayAuthenticator: Sendable {
    static let connectNSID = "blue.catbird.mls.mqttConnect"

    let checks: ServiceAuthChecks
    let store: DeliveryStore
    let rateLimits: RateLimits
    let metrics: ServiceMetrics?
    let maxClientsPerDID: Int

    struct Refusal: Error, Equatable {
        var code: ReasonCode
        var reason: String
    }

    enum Outcome {
        case accepted(RelayIdentity)
        case refused(Refusal)
        /// Fetch the issuer's document (`ServiceAuthChecks.fetch`), then authenticate again with the
        /// next attempt; the address's budget was charged for it.
        case needsKey(DID, forced: Bool)
    }

    /// - Parameter attempt: 0 for a new CONNECT, then one more for each fetch it waited for.
    func authenticate(_ request: ConnectRequest, remoteAddress: String, attempt: Int = 0) -> Outcome {
        // The per-address budget of XRPC, taken before any token work (once per CONNECT).
        if attempt == 0, case .limited = rateLimits.checkIP(remoteAddress) {
            metrics?.recordRateLimited(scope: "ip")
            return .refused(Refusal(code: .quotaExceeded, reason: "RateLimitExceeded: too many requests from this address"))
        }
        // Everything published is validated as the publisher's own act; a Will would be published by
        // the service on the client's behalf after it left, unchecked at that moment.
        guard request.will == nil else {
            return .refused(Refusal(code: .implementationSpecificError, reason: "Will Messages are not supported"))
        }
        guard RelayTopic.isClientID(request.clientIdentifier) else {
            return .refused(Refusal(code: .clientIdentifierNotValid, reason: "the Client Identifier must be 32 lower-case hex digits"))
        }
        guard let userName = request.userName, let claimed = try? DID(userName) else {
            return .refused(Refusal(code: .badUserNameOrPassword, reason: "the User Name must be your DID"))
        }
        guard let password = request.password, let token = String(validating: password, as: UTF8.self), !token.isEmpty else {
            return .refused(Refusal(code: .badUserNameOrPassword, reason: "the Password must be a service-auth token for \(Self.connectNSID)"))
        }
        let did: DID
        do {
            switch try checks.check("Bearer " + token, Self.connectNSID) {
            case .verified(let claim):
                try checks.record(claim)
                did = claim.did
            case let .needsKey(issuer, forced):
                return awaitKey(issuer, forced: forced, attempt: attempt, remoteAddress: remoteAddress)
                    ?? .refused(forced ? Refusal(code: .badUserNameOrPassword, reason: "BadJwtSignature: signature does not verify")
                                       : Refusal(code: .serverUnavailable, reason: "\(DIDResolver.busy.name): \(DIDResolver.busy.message)"))
            }
        } catch {
            metrics?.authFailures.increment(error.name)
            return refusal(error, token: token, attempt: attempt, remoteAddress: remoteAddress)
        }
        guard did == claimed else {
            return .refused(Refusal(code: .badUserNameOrPassword, reason: "the token was issued by another DID than the User Name"))
        }
        let binding: RelayClientBinding
        do { binding = try store.bindRelayClient(request.clientIdentifier, to: did, maxPerDID: maxClientsPerDID) } catch {
            return .refused(Refusal(code: .serverUnavailable, reason: "ServiceUnavailable: the database is unavailable, retry later"))
        }
        switch binding {
        case .bound(let owner) where owner == did.rawValue:
            return .accepted(RelayIdentity(did: did, clientID: request.clientIdentifier))
        case .bound:
            return .refused(Refusal(code: .clientIdentifierNotValid, reason: "this Client Identifier belongs to another DID"))
        case .full:
            return .refused(Refusal(code: .quotaExceeded, reason: "QuotaExceeded: this DID has \(maxClientsPerDID) client_ids; "
                                    + "reuse one (an unused one is released after a while)"))
        }
    }

    /// A token that cannot be judged without `did`'s document: on a CONNECT's first run, `needsKey`
    /// once the address's budget of fetches pays for it (0x97 past it, before any fetch); nil on a
    /// later run (the fetch is over and the cache still cannot judge it).
    private func awaitKey(_ did: DID, forced: Bool, attempt: Int, remoteAddress: String) -> Outcome? {
        guard attempt == 0 else { return nil }
        if case .limited = rateLimits.checkDIDResolution(remoteAddress) {
            metrics?.recordRateLimited(scope: "did_resolution")
            return .refused(Refusal(code: .quotaExceeded, reason: "RateLimitExceeded: too many unknown DIDs from this address"))
        }
        return .needsKey(did, forced: forced)
    }

    /// 0x87 when the token would be valid for the method it names (checks 1–8 pass for its own
    /// `lxm`, nothing recorded; its issuer's document fetched as for any token), 0x88 when the replay
    /// store is down, else 0x86.
    private func refusal(_ error: AuthError, token: String, attempt: Int, remoteAddress: String) -> Outcome {
        if error.name == AuthError.serviceUnavailable {
            return .refused(Refusal(code: .serverUnavailable, reason: "\(error.name): \(error.message)"))
        }
        if error.name == AuthError.badJwtLexiconMethod, let lxm = Self.lexiconMethod(of: token), !lxm.isEmpty {
            switch try? checks.check("Bearer " + token, lxm) {
            case .verified?:
                return .refused(Refusal(code: .notAuthorized, reason: "\(error.name): the token is for \(lxm), not \(Self.connectNSID)"))
            case let .needsKey(issuer, forced)?:
                if let waiting = awaitKey(issuer, forced: forced, attempt: attempt, remoteAddress: remoteAddress) { return waiting }
            case nil:
                break
            }
        }
        return .refused(Refusal(code: .badUserNameOrPassword, reason: "\(error.name): \(error.message)"))
    }

    /// The `lxm` claim as the token states it (unverified: only used to re-run the checks for it).
    static func lexiconMethod(of token: String) -> String? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[1].utf8.count <= ServiceAuthJWT.maxLength, let payload = Base64URL.decode(parts[1]),
              let object = try? JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any] else { return nil }
        return object["lxm"] as? String
    }
}

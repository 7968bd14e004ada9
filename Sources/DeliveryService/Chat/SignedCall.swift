import ChatProtocol
import HTTP
import DeliveryStore
import Foundation
import Store

/// One call of a signed procedure (CHAT.md §1.3), the steps every one takes in this order:
/// the input read against the method's lexicon (`InvalidRequest`); the body's actor is the
/// account service auth verified (`NotAuthorized`); the signing device is registered, active, at
/// the signed authentication generation and with the signed key id (`DeviceNotRegistered`,
/// `DeviceRevoked`, `DeviceBindingMismatch`, all 401); the Ed25519 signature over the transcript
/// (`InvalidSignature`). Then, in one transaction under a lock on the operation's id: an exact
/// replay of a completed request gets the stored answer, the same id with other bytes
/// `IdempotencyConflict`; a first execution needs `signedAt` within [−300 s, +60 s], the device
/// still active at that generation, and then runs the method's own work, whose answer is stored.
struct SignedCall {
    let env: ChatEnvironment
    let caller: String
    let request: SignedRequest

    /// How far `signedAt` may be from the service's clock on first execution.
    static let maxAge: TimeInterval = 300
    static let maxLead: TimeInterval = 60

    init(_ context: AuthenticatedContext, env: ChatEnvironment) throws {
        self.env = env
        caller = context.caller.rawValue
        do {
            request = try SignedRequest.parse(input: context.request.body, method: context.nsid, projection: env.projection)
        } catch {
            throw ChatRefusal(.invalidRequest, error.description)
        }
        guard request.actorDID == caller else {
            throw ChatRefusal(.notAuthorized, "actorDid is not the account the token authenticates")
        }
    }

    var deviceID: ChatUUID { request.actorDeviceID! }

    /// The signing device and the request verified under its key.
    func verify() throws -> (device: ChatDevice, request: VerifiedSignedRequest) {
        guard let device = try env.store.chat({ try $0.device(did: caller, id: deviceID) }) else {
            throw ChatRefusal(.deviceNotRegistered, "no device \(deviceID) is registered for this account")
        }
        env.deviceKeys.remember(device)
        guard device.isActive else { throw ChatRefusal(.deviceRevoked, "the device was revoked") }
        guard device.keyID == request.keyID else { throw ChatRefusal(.deviceBindingMismatch, "keyId is not the device's key") }
        guard UInt64(device.authGeneration) == request.authGeneration else {
            throw ChatRefusal(.deviceBindingMismatch, "authGeneration is not the device's (\(device.authGeneration))")
        }
        return (device, try verify(publicKey: device.publicKey))
    }

    func verify(publicKey: [UInt8]) throws -> VerifiedSignedRequest {
        do {
            return try request.verified(publicKey: publicKey)
        } catch .keyMismatch {
            throw ChatRefusal(.deviceBindingMismatch, "keyId is not the thumbprint of the device's key")
        } catch {
            throw ChatRefusal(.invalidSignature, "the signature does not verify over the request's transcript")
        }
    }

    /// Runs `body` once for the operation (see the type's description) and answers with what it
    /// returned. A refusal whose code is in `retiring` is stored like an answer: the same request
    /// again gets the same refusal, another with this id `IdempotencyConflict` (a message id a
    /// stale attempt used is spent, defs `applicationSendBody`).
    func execute(_ verified: VerifiedSignedRequest, device: ChatDevice?, retiring: Set<ChatErrorCode> = [],
                 _ body: (ChatTransaction) throws -> [UInt8]) throws -> XRPCOutput {
        try execute(verified, device: device, retiring: retiring, replay: nil) { tx in
            let response = try body(tx)
            return (response, response)
        }
    }

    /// `execute` for an answer holding a secret the store keeps only hashed (prepareBlobUpload's
    /// ticket): `body` returns the answer and what is recorded in its place, and an exact replay
    /// is answered by `replay` instead of the record.
    func execute(_ verified: VerifiedSignedRequest, device: ChatDevice?, retiring: Set<ChatErrorCode> = [],
                 replay: ((ChatTransaction) throws -> [UInt8])?,
                 _ body: (ChatTransaction) throws -> (answer: [UInt8], record: [UInt8])) throws -> XRPCOutput {
        guard let operation = request.operationID else { throw ChatRefusal(.invalidRequest, "the body has no operation id") }
        let kind = request.kind.rawValue
        let (status, response) = try env.store.chat { tx -> (Int, [UInt8]) in
            try tx.connection.execute("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))",
                                      ["chat-op \(caller) \(kind) \(operation)"])
            if let stored = try tx.operation(actor: caller, kind: kind, id: operation) {
                guard stored.requestDigest == request.requestDigest, stored.signature == request.signature else {
                    throw ChatRefusal(.idempotencyConflict, "this operation id was used for another request")
                }
                if let replay, stored.status == 200 { return (200, try replay(tx)) }
                return (stored.status, stored.response)
            }
            try checkFreshness(at: tx.now)
            if let device { try requireDevice(device, in: tx) }
            do {
                let (response, record) = try body(tx)
                try tx.record(actor: caller, kind: kind, id: operation,
                              ChatOperation(requestDigest: request.requestDigest, signature: request.signature, status: 200, response: record))
                return (200, response)
            } catch let refusal as ChatRefusal where retiring.contains(refusal.code) {
                let response = XRPCError(refusal).response.body
                try tx.record(actor: caller, kind: kind, id: operation,
                              ChatOperation(requestDigest: request.requestDigest, signature: request.signature,
                                            status: refusal.code.status, response: response))
                return (refusal.code.status, response)
            }
        }
        guard status == 200 else {
            var headers = HTTPHeaders()
            headers.add("Content-Type", "application/json")
            return .http(HTTPResponse(status: status, headers: headers, body: response))
        }
        return env.output(response)
    }

    func checkFreshness(at now: Date) throws {
        guard let signedAt = request.signedAt?.date else { throw ChatRefusal(.invalidRequest, "signedAt is missing") }
        guard signedAt >= now.addingTimeInterval(-Self.maxAge), signedAt <= now.addingTimeInterval(Self.maxLead) else {
            throw ChatRefusal(.invalidRequest, "signedAt must be within 300 s before and 60 s after the service's clock")
        }
    }

    /// The device is still active at the generation that signed, its row held until commit so
    /// that a revocation waits for this change (or this change sees the revocation).
    func requireDevice(_ device: ChatDevice, in tx: ChatTransaction) throws {
        guard let current = try tx.device(did: device.userDID, id: device.deviceID, lock: true) else {
            throw ChatRefusal(.deviceNotRegistered, "the device is not registered")
        }
        guard current.isActive else { throw ChatRefusal(.deviceRevoked, "the device was revoked") }
        guard current.authGeneration == device.authGeneration else {
            throw ChatRefusal(.deviceBindingMismatch, "the device's authentication generation changed")
        }
    }
}

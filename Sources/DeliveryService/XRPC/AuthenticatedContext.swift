import ATProto
import Basics
import HTTP
import JSON

/// What every handler sees: the request and helpers to read its parameters or JSON body. It has no
/// caller: a handler that needs one is declared authenticated and gets an `AuthenticatedContext`.
public struct XRPCContext: Sendable {
    public let request: HTTPRequest
    public let nsid: String
    let id: RequestID
    public var requestID: String { id.description }

    public var parameters: XRPCParameters { XRPCParameters(query: request.query) }

    /// Decodes the JSON body as `T`, mapping every failure to 400 InvalidRequest.
    public func input<T: Decodable>(_ type: T.Type = T.self) throws(XRPCError) -> T {
        try XRPCJSON.decode(T.self, from: request.body)
    }

    public func input<T: JSONObjectDecodable>(_ type: T.Type = T.self) throws(XRPCError) -> T {
        try XRPCJSON.decode(T.self, from: request.body)
    }
}

/// What a handler of an authenticated method sees: the request and the caller service auth
/// verified (AUTH.md). Only this file can make one, from the DID `ServiceAuth` verified, so a handler
/// holding one holds a verified caller, and a handler without one cannot name a caller at all.
public struct AuthenticatedContext: Sendable {
    public let base: XRPCContext
    /// The caller's DID, verified by service auth for this request.
    public let caller: DID
    /// Set for methods with `recordsReplayInHandler`: the token to record in the handler's transaction.
    public let deferredReplay: DeferredReplay?
    /// Where the request runs: set on an I/O thread (`XRPCMethod.startsOnIOThread`).
    private let resumption: HTTPResumption?

    fileprivate init(base: XRPCContext, caller: DID, deferredReplay: DeferredReplay?, resumption: HTTPResumption?) {
        self.base = base
        self.caller = caller
        self.deferredReplay = deferredReplay
        self.resumption = resumption
    }

    /// True when the handler runs on an I/O thread, where it must not block.
    public var isOnIOThread: Bool { resumption?.isOnIOThread ?? false }

    /// Runs `job`, which may block, where blocking is allowed: at once on a worker, on the worker
    /// pool from an I/O thread.
    public func runBlocking(_ job: @escaping @Sendable () -> Void) {
        guard let resumption else { return job() }
        resumption.runBlocking(job)
    }

    /// Queues `job`, which may block, on the worker pool from any thread (at once where the request
    /// cannot be set aside): the rest of a pending output whose wait ended on another thread.
    public func submit(_ job: @escaping @Sendable () -> Void) {
        guard let resumption else { return job() }
        resumption.submit(job)
    }

    /// The output of `body`, which may block: computed now on a worker, or on the worker pool
    /// (a pending output) from an I/O thread.
    public func blocking(_ body: @escaping @Sendable () throws -> XRPCOutput) throws -> XRPCOutput {
        guard isOnIOThread else { return try body() }
        return .pending(XRPCPendingOutput { complete in
            runBlocking { complete(Result { try body() }) }
        })
    }

    public var request: HTTPRequest { base.request }
    public var nsid: String { base.nsid }
    public var requestID: String { base.requestID }
    public var parameters: XRPCParameters { base.parameters }

    /// Decodes the JSON body as `T`, mapping every failure to 400 InvalidRequest.
    public func input<T: Decodable>(_ type: T.Type = T.self) throws(XRPCError) -> T {
        try base.input(T.self)
    }

    public func input<T: JSONObjectDecodable>(_ type: T.Type = T.self) throws(XRPCError) -> T {
        try base.input(T.self)
    }
}

/// One request on its way down the middleware chain: what the router found for it, and what the
/// steps before learned.
public struct XRPCRequestContext {
    public let nsid: String
    let id: RequestID
    public var requestID: String { id.description }
    /// The method the path names; nil for an unknown NSID (answered 404 after the IP limit).
    public let method: XRPCMethod?
    /// The body of a streamed method (XRPCRouter+Streaming); nil when it was buffered.
    let body: XRPCBodyReader?
    /// How to run the request again once a DID document it waits for is fetched; nil where it
    /// cannot be set aside.
    let resumption: HTTPResumption?
    /// The verified caller: set by `ServiceAuth` only.
    public fileprivate(set) var caller: DID?
    /// The token whose replay check the handler records (`XRPCMethod.recordsReplayInHandler`).
    fileprivate(set) var deferredReplay: DeferredReplay?

    /// The counters of `method` (or of unknown NSIDs); nil when the service keeps no metrics.
    let metrics: MethodMetrics?

    init(nsid: String, id: RequestID, method: XRPCMethod?, metrics: MethodMetrics?, body: XRPCBodyReader?,
         resumption: HTTPResumption? = nil) {
        self.nsid = nsid
        self.id = id
        self.metrics = metrics
        self.method = method
        self.body = body
        self.resumption = resumption
    }

    /// The authenticated handler's view, once `ServiceAuth` verified a caller.
    func authenticated(_ base: XRPCContext) -> AuthenticatedContext? {
        caller.map { AuthenticatedContext(base: base, caller: $0, deferredReplay: deferredReplay, resumption: resumption) }
    }
}

/// Service auth as middleware (AUTH.md): for methods that need it, verifies `Authorization` for the
/// NSID and hands the caller to the rest of the chain. A failure is a 401 (503 when the replay store
/// is down or the resolver too busy), counted by reason.
///
/// The checks run from the key cache only, so a worker never waits on the network: a token whose
/// issuer has no cached key (or whose signature calls for check 8's refresh) sets the request aside
/// until the resolver's own threads fetched the document, and the request then runs again from the
/// top. Setting aside costs the client's address one token of its DID-resolution budget (429 beyond),
/// and is refused with 503 when the resolver's queue is full.
struct ServiceAuth: XRPCMiddleware {
    let checks: ServiceAuthChecks?
    /// A blocking verifier that records the token itself (tests of the routing layer only); used
    /// when `checks` is nil. Neither refuses every authenticated method.
    let verify: (@Sendable (String?, String) throws(AuthError) -> DID)?
    /// The per-IP budget of DID document fetches.
    let ipLimit: IPRateLimit?
    let metrics: ServiceMetrics?

    func handle(_ request: HTTPRequest, _ context: XRPCRequestContext, next: XRPCNext) -> XRPCResult {
        guard context.method?.auth == .required else { return next(request, context) }
        let refusal: XRPCError
        do throws(AuthError) {
            let authorization = request.headers["Authorization"]
            if let checks {
                switch try checks.check(authorization, context.nsid) {
                case .verified(let claim):
                    return try proceed(claim, checks: checks, request, context, next: next)
                case .needsKey(let did, let forced):
                    guard let refusal = park(request, resumption: context.resumption, until: did, forced: forced, checks: checks) else {
                        return .setAside
                    }
                    // Over the address's budget: a rate limit, not an authentication failure.
                    if refusal.status == 429 { return XRPCResult(refusal) }
                    metrics?.authFailures.increment(refusal.name.rawValue)
                    return XRPCResult(refusal)
                }
            } else if let verify {
                var context = context
                let caller = try verify(authorization, context.nsid)
                context.caller = caller
                return next(request, context).then { result in
                    var result = result
                    result.caller = caller
                    return result
                }
            } else {
                refusal = .authenticationRequired
            }
        } catch {
            refusal = XRPCError(error)
        }
        metrics?.authFailures.increment(refusal.name.rawValue)
        return XRPCResult(refusal)
    }

    /// Thrown out of a WebSocket route when the handshake was set aside for a DID document.
    struct SetAside: Error {}

    /// A WebSocket upgrade's `Authorization`, verified and recorded; a handshake whose issuer's
    /// document must be fetched first is set aside like any request (`SetAside` is thrown).
    func verifyUpgrade(_ request: HTTPRequest, authorization: String, nsid: String, resumption: HTTPResumption?) throws -> DID {
        guard let checks else {
            guard let verify else { throw XRPCError.authenticationRequired }
            return try verify(authorization, nsid)
        }
        switch try checks.check(authorization, nsid) {
        case .verified(let claim):
            try checks.record(claim)
            return claim.did
        case .needsKey(let did, let forced):
            if let refusal = park(request, resumption: resumption, until: did, forced: forced, checks: checks) { throw refusal }
            throw SetAside()
        }
    }

    /// The verified token: recorded before the handler runs, or by the handler in its own write
    /// transaction (`recordsReplayInHandler`, `DeferredReplay`).
    private func proceed(_ claim: ReplayClaim, checks: ServiceAuthChecks, _ request: HTTPRequest,
                         _ context: XRPCRequestContext, next: XRPCNext) throws(AuthError) -> XRPCResult {
        var context = context
        context.caller = claim.did
        let caller = claim.did
        guard context.method?.recordsReplayInHandler == true else {
            try checks.record(claim)
            return next(request, context).then { result in
                var result = result
                result.caller = caller
                return result
            }
        }
        let replay = DeferredReplay(claim)
        context.deferredReplay = replay
        return next(request, context).then { [metrics] result in
            var result = result
            result.caller = caller
            // A token the handler did not record (it failed before its transaction committed) is
            // recorded now, and a replay answers 401 whatever the handler said; except a 503: the
            // handler's transaction may have committed, the token's record with it, while its answer
            // was lost (a connection cut by a failover), and the record found now is then its own.
            // The 503 stands and the client retries (its msgId or idempotency key gets it the first
            // answer); a true replay stored and read nothing, as the handler's record refused it.
            guard !replay.isSettled else { return result }
            do throws(AuthError) {
                try checks.record(claim)
                return result
            } catch {
                if result.response.status == 503 { return result }
                let refusal = XRPCError(error)
                metrics?.authFailures.increment(refusal.name.rawValue)
                return XRPCResult(refusal)
            }
        }
    }

    /// Sets the request aside until `did`'s document is fetched, if it may be (nil), or says why not:
    /// it may on its first run only (a request run again after the fetch that still lacks a key gets
    /// its answer now), within the address's budget, and while the resolver's queue has room.
    private func park(_ request: HTTPRequest, resumption: HTTPResumption?, until did: DID, forced: Bool,
                      checks: ServiceAuthChecks) -> XRPCError? {
        guard let resumption, resumption.attempt == 0 else {
            return forced ? XRPCError(AuthError(name: AuthError.badJwtSignature, message: "signature does not verify"))
                : XRPCError(DIDResolver.busy)
        }
        if let overBudget = ipLimit?.resolutionRefusal(for: request) { return overBudget }
        switch checks.fetch(did, forced) { resumption.resume() } {
        case .started, .joined:
            return nil
        case .ready:
            // The fetch ended in the meantime: run again at once.
            resumption.resume()
            return nil
        case .refused:
            return XRPCError(DIDResolver.busy)
        }
    }
}

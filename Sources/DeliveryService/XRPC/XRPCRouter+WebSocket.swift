import ATProto
import Basics
import ChatProtocol
import Dispatch
import DeliveryStore
import HTTP
import Store

/// Decides a WebSocket upgrade of `/xrpc/<nsid>` (on a worker thread when the NSID's method may
/// block): `authenticate` verifies an `Authorization` header the request may carry (the same
/// verifier as the `ServiceAuth` middleware).
public typealias WebSocketRoute = @Sendable (_ request: HTTPRequest, _ authenticate: (String) throws -> DID) throws -> WebSocketUpgrade

extension XRPCRouter {
    /// WebSocket upgrades for the NSIDs in `webSocketRoutes`: the per-IP limit first (the
    /// `IPRateLimit` middleware's check), then the route; thrown errors refuse the upgrade with the XRPC error response, and the connection
    /// keeps speaking HTTP. Counted in the metrics (status 101 when accepted).
    public func webSocketUpgrade(for request: HTTPRequest) -> WebSocketUpgrade? {
        upgrade(request, resumption: nil)
    }

    /// On the worker pool: a handshake whose `Authorization` names a DID without a cached key is set
    /// aside until its document is fetched, as any request is (`ServiceAuth`).
    public func webSocketUpgrade(for request: HTTPRequest, resumption: HTTPResumption) -> WebSocketUpgrade? {
        upgrade(request, resumption: resumption)
    }

    private func upgrade(_ request: HTTPRequest, resumption: HTTPResumption?) -> WebSocketUpgrade? {
        guard request.path.hasPrefix("/xrpc/") else { return nil }
        let nsid = String(request.path.dropFirst(6))
        guard let route = webSocketRoutes[nsid] else { return nil }
        let start = DispatchTime.now().uptimeNanoseconds
        let upgrade: WebSocketUpgrade
        let resumed = (resumption?.attempt ?? 0) > 0
        if !resumed, let refusal = ipLimit?.refusal(for: request) {
            upgrade = .reject(refusal.response)
        } else {
            do {
                upgrade = try route(request) { header in
                    try auth.verifyUpgrade(request, authorization: header, nsid: nsid, resumption: resumption)
                }
            } catch is ServiceAuth.SetAside {
                return .setAside
            } catch {
                upgrade = .reject(webSocketRefusal(error, nsid: nsid).response)
            }
        }
        let status = if case .reject(let response) = upgrade { response.status } else { 101 }
        metrics?.recordRequest(nsid: nsid, status: status, nanoseconds: DispatchTime.now().uptimeNanoseconds &- start)
        return upgrade
    }

    private func webSocketRefusal(_ error: any Error, nsid: String) -> XRPCError {
        switch error {
        case let error as XRPCError:
            if error.status == 401 { metrics?.authFailures.increment(error.name.rawValue) }
            return error
        case let error as AuthError:
            metrics?.authFailures.increment(error.name)
            return XRPCError(error.status, XRPCErrorName(error), error.message)
        case let refusal as ChatRefusal:
            return XRPCError(refusal)
        case let error as DeliveryStoreError:
            if let xrpc = error.xrpcError { return xrpc }
            log.warning("database error", ["method": nsid])
            return .unavailable
        case is StoreError:
            log.warning("database error", ["method": nsid])
            return .unavailable
        default:
            log.error("unhandled error", ["method": nsid, "error": String(describing: type(of: error))])
            return .internalError
        }
    }
}

import ATProto
import DeliveryStore
import Foundation
import HTTP
import Store
import Synchronization

/// The XRPC layer as an HTTP responder: routes `/xrpc/<nsid>` by NSID, checks the HTTP verb, runs
/// service auth, calls the method and turns thrown errors into XRPC error responses.
/// Request path: socket → HTTP parser → here (NSID) → auth → handler → Store → response writer.
public final class XRPCRouter: HTTPResponder {
    private let methods: [String: XRPCMethod]
    private let plainRoutes: [String: @Sendable (HTTPRequest) -> HTTPResponse]
    private let authenticate: (@Sendable (String?, String) throws(AuthError) -> DID)?
    private let log: Log
    private let requestCounter = Atomic<UInt64>(0)
    private let requestIDPrefix = String(UInt32.random(in: 0...UInt32.max), radix: 36)

    /// - Parameter authenticate: verifies `Authorization` for the NSID; nil refuses every
    ///   authenticated method (used by tests of the routing layer only).
    public init(methods: [XRPCMethod], plainRoutes: [String: @Sendable (HTTPRequest) -> HTTPResponse] = [:],
                authenticate: (@Sendable (String?, String) throws(AuthError) -> DID)?, log: Log) {
        var table: [String: XRPCMethod] = [:]
        for method in methods {
            precondition(table[method.nsid] == nil, "duplicate XRPC method \(method.nsid)")
            table[method.nsid] = method
        }
        self.methods = table
        self.plainRoutes = plainRoutes
        self.authenticate = authenticate
        self.log = log
    }

    public var nsids: [String] { methods.keys.sorted() }

    private func method(for path: String) -> XRPCMethod? {
        guard path.hasPrefix("/xrpc/") else { return nil }
        return methods[String(path.dropFirst(6))]
    }

    public func maxBodySize(for head: HTTPRequestHead) -> Int {
        method(for: head.path)?.maxBodySize ?? (1 << 20)
    }

    public func mayBlock(_ head: HTTPRequestHead) -> Bool {
        if let method = method(for: head.path) { return method.mayBlock || method.auth == .required }
        return false
    }

    public func respond(to request: HTTPRequest) -> HTTPResponse {
        if let route = plainRoutes[request.path] { return route(request) }
        let requestID = requestIDPrefix + "-" + String(requestCounter.add(1, ordering: .relaxed).newValue, radix: 36)
        guard request.path.hasPrefix("/xrpc/") else {
            return XRPCError(404, "NotFound", "no route \(request.path)").response
        }
        let nsid = String(request.path.dropFirst(6))
        guard let method = methods[nsid] else { return XRPCError.methodNotImplemented(nsid).response }
        let start = DispatchTime.now().uptimeNanoseconds
        let response = run(method, request: request, requestID: requestID)
        if log.isEnabled(.info) && method.mayBlock {
            let micros = (DispatchTime.now().uptimeNanoseconds - start) / 1000
            log.info("request", ["id": requestID, "method": nsid, "status": String(response.status),
                                 "duration_us": String(micros)])
        }
        return response
    }

    private func run(_ method: XRPCMethod, request: HTTPRequest, requestID: String) -> HTTPResponse {
        let expected: HTTPMethod = method.kind == .query ? .get : .post
        guard request.method == expected || (expected == .get && request.method == .head) else {
            return XRPCError(405, "InvalidRequest", "\(method.nsid) takes \(expected.rawValue)").response
        }
        do {
            var caller: DID?
            if method.auth == .required {
                guard let authenticate else { throw XRPCError(401, "AuthenticationRequired", "authentication required") }
                caller = try authenticate(request.headers["Authorization"], method.nsid)
                if log.isEnabled(.debug), let caller { log.debug("caller", ["id": requestID, "did": caller.rawValue]) }
            }
            let context = XRPCContext(request: request, nsid: method.nsid, requestID: requestID, caller: caller)
            return try Self.response(for: method.handler(context))
        } catch let error as XRPCError {
            return error.response
        } catch let error as AuthError {
            return XRPCError(401, error.name, error.message, headers: [("WWW-Authenticate", "Bearer")]).response
        } catch let error as StoreError {
            return storeFailure(error, requestID: requestID, nsid: method.nsid).response
        } catch let error as DeliveryStoreError {
            if let xrpc = error.xrpcError { return xrpc.response }
            guard case .database(let storeError) = error else { return XRPCError.internalError.response }
            return storeFailure(storeError, requestID: requestID, nsid: method.nsid).response
        } catch {
            log.error("unhandled error", ["id": requestID, "method": method.nsid, "error": String(describing: type(of: error))])
            return XRPCError.internalError.response
        }
    }

    private func storeFailure(_ error: StoreError, requestID: String, nsid: String) -> XRPCError {
        switch error {
        case .unavailable, .poolTimeout:
            log.warning("database unavailable", ["id": requestID, "method": nsid])
            return .unavailable
        default:
            log.error("database error", ["id": requestID, "method": nsid, "error": "\(error)"])
            return .internalError
        }
    }

    static func response(for output: XRPCOutput) throws -> HTTPResponse {
        var headers = HTTPHeaders()
        switch output {
        case .json(let value):
            headers.add("Content-Type", "application/json")
            return HTTPResponse(status: 200, headers: headers, body: try XRPCJSON.encode(value))
        case .bytes(let bytes, let contentType):
            headers.add("Content-Type", contentType)
            return HTTPResponse(status: 200, headers: headers, body: bytes)
        case .empty:
            return HTTPResponse(status: 200)
        }
    }
}

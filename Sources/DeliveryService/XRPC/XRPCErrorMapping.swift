import ATProto
import Basics
import ChatProtocol
import DeliveryStore
import Store

/// What a handler throws, as the client sees it: XRPC errors as they are, service-auth failures as
/// 401, store errors as their XRPC error or 503 (database unavailable) or 500; anything else is
/// logged and answered 500 without detail.
struct XRPCErrorMapping: Sendable {
    let log: Log
    let metrics: ServiceMetrics?

    /// What an answer and its log line need of the request: Sendable, unlike the context, for a
    /// pending output that fails on another thread.
    struct Subject: Sendable {
        let caller: DID?
        let requestID: String
        let nsid: String

        init(_ context: XRPCRequestContext) {
            caller = context.caller
            requestID = context.requestID
            nsid = context.nsid
        }
    }

    func result(for error: any Error, context: XRPCRequestContext) -> XRPCResult {
        result(for: error, subject: Subject(context))
    }

    func result(for error: any Error, subject context: Subject) -> XRPCResult {
        switch error {
        case let error as XRPCError:
            if error.status == 401 { metrics?.authFailures.increment(error.name.rawValue) }
            return XRPCResult(error, caller: context.caller)
        case let error as AuthError:
            metrics?.authFailures.increment(error.name)
            return XRPCResult(XRPCError(error))
        case let refusal as ChatRefusal:
            if refusal.code.status == 401 { metrics?.authFailures.increment(refusal.code.rawValue) }
            return XRPCResult(XRPCError(refusal), caller: context.caller)
        case let error as ChatInputError:
            return XRPCResult(XRPCError.invalidRequest(error.description), caller: context.caller)
        case let error as StoreError:
            return XRPCResult(storeFailure(error, context: context), caller: context.caller)
        case let error as DeliveryStoreError:
            if let xrpc = error.xrpcError { return XRPCResult(xrpc, caller: context.caller) }
            guard case .database(let storeError) = error else { return XRPCResult(.internalError, caller: context.caller) }
            return XRPCResult(storeFailure(storeError, context: context), caller: context.caller)
        default:
            log.error("unhandled error", ["id": context.requestID, "method": context.nsid,
                                          "error": String(describing: type(of: error))])
            return XRPCResult(.internalError, caller: context.caller)
        }
    }

    private func storeFailure(_ error: StoreError, context: Subject) -> XRPCError {
        switch error {
        case .unavailable, .poolTimeout:
            log.warning("database unavailable", ["id": context.requestID, "method": context.nsid])
            return .unavailable
        default:
            // A server message can quote an offending value; the SQLSTATE alone says what failed.
            let detail = if case .queryFailed(let state, _) = error { "SQL error \(state)" } else { "\(error)" }
            log.error("database error", ["id": context.requestID, "method": context.nsid, "error": detail])
            return .internalError
        }
    }
}

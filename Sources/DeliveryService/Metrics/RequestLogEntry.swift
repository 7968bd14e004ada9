/// The one log line per XRPC request. It carries only what is safe to keep: the request id, the
/// NSID, the status, the XRPC error name and the duration. The caller's DID is added only when the
/// log runs at debug level; tokens, bodies, ciphertext and keys are never among its inputs.
struct RequestLogEntry: Sendable {
    var requestID: String
    var nsid: String
    var status: Int
    var errorName: String?
    var durationMicros: UInt64
    var caller: String?

    static let message = "request"

    func fields(includeCaller: Bool) -> [(String, String)] {
        var fields = [("id", requestID), ("method", nsid), ("status", String(status))]
        if let errorName { fields.append(("error", errorName)) }
        fields.append(("duration_us", String(durationMicros)))
        if includeCaller, let caller { fields.append(("did", caller)) }
        return fields
    }

    func write(to log: Log) {
        guard log.isEnabled(.info) else { return }
        log.log(.info, Self.message, fields: fields(includeCaller: log.isEnabled(.debug)))
    }
}

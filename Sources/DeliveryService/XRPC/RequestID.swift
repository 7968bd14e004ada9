/// A request's id in logs, `<prefix>-<counter>` in base 36: the prefix random per process (so two
/// nodes' ids differ), the counter per request. Kept as its two parts and written out only when a
/// log line or an error needs it, which most requests never do.
public struct RequestID: Sendable, CustomStringConvertible {
    let prefix: String
    let number: UInt64

    public var description: String { prefix + "-" + String(number, radix: 36) }
}

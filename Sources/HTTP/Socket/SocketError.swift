#if canImport(Glibc)
import Glibc
#endif

/// A failed system call on a socket, epoll or eventfd descriptor.
public enum SocketError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `call` returned -1 with `errno` set to `code`.
    case failed(call: String, code: Int32)
    /// The configured host is not a numeric IPv4/IPv6 address (or `localhost`).
    case invalidAddress(String)
    /// TLS is configured but its certificate or key could not be loaded.
    case tls(TLSError)

    /// Records `errno` at the call site.
    static func makeFailed(_ call: String) -> SocketError {
        .failed(call: call, code: errno)
    }

    public var description: String {
        switch self {
        case let .failed(call, code):
            return "\(call) failed: \(String(cString: strerror(code))) (errno \(code))"
        case let .invalidAddress(host):
            return "invalid listen address \(host)"
        case let .tls(error):
            return "TLS setup failed: \(error)"
        }
    }
}

import Basics

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A resolved address plus the sockaddr bytes to connect to, so the connection goes to exactly
/// the address that was vetted (no second lookup).
struct HTTPClientEndpoint: Sendable {
    let address: IPAddress
    let port: UInt16

    /// getaddrinfo(3) for a TCP host; every IPv4 and IPv6 answer, in resolver order, deduplicated.
    /// It blocks for as long as the system resolver takes: callers with a deadline go through
    /// `NameLookup`. `numericOnly` converts an IP literal without ever asking DNS.
    static func resolve(host: String, port: UInt16, numericOnly: Bool) throws(HTTPClientError) -> [HTTPClientEndpoint] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        hints.ai_flags = AI_NUMERICSERV | (numericOnly ? AI_NUMERICHOST : 0)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else { throw .hostNotFound(host) }
        defer { freeaddrinfo(first) }

        var endpoints: [HTTPClientEndpoint] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            guard let sockaddr = info.pointee.ai_addr else { continue }
            let address: IPAddress
            switch info.pointee.ai_family {
            case AF_INET:
                let raw = sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr }
                address = IPAddress(ipv4: withUnsafeBytes(of: raw) { Array($0) })
            case AF_INET6:
                let raw = sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                address = IPAddress(bytes: withUnsafeBytes(of: raw) { Array($0) })
            default:
                continue
            }
            if !endpoints.contains(where: { $0.address == address }) {
                endpoints.append(HTTPClientEndpoint(address: address, port: port))
            }
        }
        guard !endpoints.isEmpty else { throw .hostNotFound(host) }
        return endpoints
    }
}

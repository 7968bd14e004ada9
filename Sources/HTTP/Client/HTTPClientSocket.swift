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
    let address: HTTPClientAddress
    let port: UInt16

    /// getaddrinfo(3) for a TCP host; every IPv4 and IPv6 answer, in resolver order, deduplicated.
    static func resolve(host: String, port: UInt16) throws(HTTPClientError) -> [HTTPClientEndpoint] {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if canImport(Darwin)
        hints.ai_socktype = SOCK_STREAM
        #else
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #endif
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else { throw .hostNotFound(host) }
        defer { freeaddrinfo(first) }

        var endpoints: [HTTPClientEndpoint] = []
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor {
            cursor = info.pointee.ai_next
            guard let sockaddr = info.pointee.ai_addr else { continue }
            let address: HTTPClientAddress
            switch info.pointee.ai_family {
            case AF_INET:
                let raw = sockaddr.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { $0.pointee.sin_addr.s_addr }
                address = .v4(UInt32(bigEndian: raw))
            case AF_INET6:
                let raw = sockaddr.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr }
                address = .v6(withUnsafeBytes(of: raw) { Array($0) })
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

/// A non-blocking TCP socket whose every wait is bounded by the request deadline. Writes use
/// MSG_NOSIGNAL so a peer that hangs up cannot raise SIGPIPE in the server.
final class HTTPClientSocket {
    private let fd: Int32

    private init(fd: Int32) { self.fd = fd }

    deinit { close(fd) }

    /// Connects to the first endpoint that answers before the deadline.
    static func connect(to endpoints: [HTTPClientEndpoint], deadline: HTTPClientDeadline) throws(HTTPClientError) -> HTTPClientSocket {
        var lastError = HTTPClientError.connectFailed("no address")
        for endpoint in endpoints {
            do {
                return try connect(to: endpoint, deadline: deadline)
            } catch .timeout {
                throw .timeout
            } catch {
                lastError = error
            }
        }
        throw lastError
    }

    private static func connect(to endpoint: HTTPClientEndpoint, deadline: HTTPClientDeadline) throws(HTTPClientError) -> HTTPClientSocket {
        let family: Int32
        switch endpoint.address {
        case .v4: family = AF_INET
        case .v6: family = AF_INET6
        }
        #if canImport(Darwin)
        let fd = socket(family, SOCK_STREAM, 0)
        #else
        let fd = socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        #endif
        guard fd >= 0 else { throw .connectFailed("socket: \(errnoText())") }
        let socket = HTTPClientSocket(fd: fd)
        guard fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) == 0 else {
            throw .connectFailed("fcntl: \(errnoText())")
        }

        let result: Int32
        switch endpoint.address {
        case .v4(let value):
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = endpoint.port.bigEndian
            address.sin_addr.s_addr = value.bigEndian
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    systemConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
        case .v6(let bytes):
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = endpoint.port.bigEndian
            withUnsafeMutableBytes(of: &address.sin6_addr) { $0.copyBytes(from: bytes) }
            result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    systemConnect(fd, $0, socklen_t(MemoryLayout<sockaddr_in6>.size))
                }
            }
        }
        if result != 0 {
            guard errno == EINPROGRESS || errno == EINTR else {
                throw .connectFailed("connect \(endpoint.address): \(errnoText())")
            }
            try socket.wait(for: Int16(POLLOUT), deadline: deadline)
            var error: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length) == 0, error == 0 else {
                throw .connectFailed("connect \(endpoint.address): \(String(cString: strerror(error)))")
            }
        }
        return socket
    }

    func writeAll(_ bytes: [UInt8], deadline: HTTPClientDeadline) throws(HTTPClientError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { buffer in
                send(fd, buffer.baseAddress! + offset, buffer.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                offset += sent
            } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                try wait(for: Int16(POLLOUT), deadline: deadline)
            } else {
                throw .io("send: \(errnoText())")
            }
        }
    }

    /// Up to `maxCount` bytes; an empty array means the peer closed the connection.
    func read(maxCount: Int, deadline: HTTPClientDeadline) throws(HTTPClientError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maxCount)
        while true {
            let received = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if received >= 0 {
                return Array(buffer.prefix(received))
            }
            guard errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR else {
                throw .io("recv: \(errnoText())")
            }
            try wait(for: Int16(POLLIN), deadline: deadline)
        }
    }

    private func wait(for events: Int16, deadline: HTTPClientDeadline) throws(HTTPClientError) {
        while true {
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&descriptor, 1, try deadline.remainingMilliseconds())
            if ready > 0 { return }
            if ready == 0 { throw .timeout }
            guard errno == EINTR else { throw .io("poll: \(errnoText())") }
        }
    }
}

private func systemConnect(_ fd: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(fd, address, length)
}

private func errnoText() -> String {
    String(cString: strerror(errno))
}

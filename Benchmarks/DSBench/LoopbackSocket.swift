#if canImport(Glibc)
import Glibc
#endif

/// ds-bench's thin wrapper over the C socket calls: a TCP connection to 127.0.0.1, blocking while
/// a request or the WebSocket handshake is written, then non-blocking for a poll loop if the caller
/// wants one. Everything above this file is safe Swift.
struct LoopbackSocket: Sendable {
    enum Failure: Error, CustomStringConvertible {
        case system(String, Int32)
        case closed

        var description: String {
            switch self {
            case .system(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
            case .closed: "the server closed the connection"
            }
        }
    }

    enum ReadResult {
        case bytes(Int)
        case wouldBlock
        case closed
    }

    let descriptor: Int32

    /// - Parameters:
    ///   - source: the local address to connect from (any of 127.0.0.0/8), so that one process can
    ///     be several clients to the server's per-address limits.
    ///   - timeout: seconds that connect, and later every blocking send or receive, may wait (SO_SNDTIMEO,
    ///     SO_RCVTIMEO); past it a receive reports `.wouldBlock` and `sendAll(retryingWhenFull: false)` throws.
    static func connect(port: Int, from source: String? = nil, timeout: Int? = nil) throws(Failure) -> LoopbackSocket {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
        if let timeout {
            var limit = timeval(tv_sec: timeout, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                let code = errno
                Glibc.close(fd)
                throw .system("bind \(source)", code)
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw .system("connect", code)
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return LoopbackSocket(descriptor: fd)
    }

    func setNonBlocking() {
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    /// Writes all of `bytes`. On a non-blocking socket EAGAIN retries (the frames sent are small);
    /// without `retryingWhenFull` it throws, which on a blocking socket means its timeout passed.
    func sendAll(_ bytes: some Collection<UInt8>, retryingWhenFull: Bool = true) throws(Failure) {
        let bytes = Array(bytes)
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EINTR || (errno == EAGAIN && retryingWhenFull) { continue }
                throw .system("send", errno)
            }
            offset += sent
        }
    }

    /// Reads what the kernel has into `scratch` (its whole length is offered); the count is in the result.
    func read(into scratch: inout [UInt8]) throws(Failure) -> ReadResult {
        let received = scratch.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        if received > 0 { return .bytes(received) }
        if received == 0 { return .closed }
        let code = errno
        if code == EAGAIN || code == EINTR { return .wouldBlock }
        throw .system("recv", code)
    }

    /// Whether the peer has sent something (or closed), without waiting or taking it.
    var hasInput: Bool {
        var byte: UInt8 = 0
        let peeked = recv(descriptor, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return peeked > 0 || peeked == 0 || (errno != EAGAIN && errno != EINTR)
    }

    func close() {
        Glibc.close(descriptor)
    }
}

#if canImport(Glibc)
import Glibc
#endif

/// The events bench's thin wrapper over the C socket calls: a TCP connection to 127.0.0.1, blocking
/// while the WebSocket handshake runs, then non-blocking for the poll loop. Everything above this
/// file is safe Swift.
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

    static func connect(port: Int) throws(Failure) -> LoopbackSocket {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw .system("socket", errno) }
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

    /// Writes all of `bytes` (the frames sent are small: on a non-blocking socket EAGAIN retries).
    func sendAll(_ bytes: [UInt8]) throws(Failure) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0 {
                if errno == EAGAIN || errno == EINTR { continue }
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

    func close() {
        Glibc.close(descriptor)
    }
}

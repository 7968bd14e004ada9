#if canImport(Glibc)
import Glibc
#endif

/// The calls an outbound connection needs besides read and write (HTTPClient).
extension Socket {
    /// A non-blocking TCP socket whose connection to `address` is under way: it is established
    /// once the socket is writable and `pendingError()` is 0.
    static func connecting(to address: SocketAddress) throws(SocketError) -> Socket {
        let fd = Glibc.socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .makeFailed("socket") }
        let result = address.withSockAddr { pointer, length in Glibc.connect(fd, pointer, length) }
        guard result == 0 || errno == EINPROGRESS || errno == EINTR else {
            let error = SocketError.makeFailed("connect")
            Glibc.close(fd)
            throw error
        }
        return Socket(descriptor: fd)
    }

    /// SO_ERROR: why a non-blocking connect failed, 0 when it succeeded.
    func pendingError() -> Int32 {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return errno }
        return error
    }

    /// Waits up to `milliseconds` for `events` (POLLIN, POLLOUT): true when one is ready, false on
    /// timeout.
    func wait(for events: Int16, milliseconds: Int32) throws(SocketError) -> Bool {
        while true {
            var descriptor = pollfd(fd: self.descriptor, events: events, revents: 0)
            let ready = Glibc.poll(&descriptor, 1, milliseconds)
            if ready >= 0 { return ready > 0 }
            guard errno == EINTR else { throw .makeFailed("poll") }
        }
    }
}

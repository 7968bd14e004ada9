import CSystem
#if canImport(Glibc)
import Glibc
#endif

/// Outcome of a non-blocking read or write.
package enum IOResult: Equatable {
    case bytes(Int)
    case wouldBlock
    /// Orderly end of stream from the peer (read returned 0).
    case closed
    case failed(Int32)
}

/// A thin wrapper over a non-blocking TCP socket descriptor. The only file that calls socket syscalls.
struct Socket: Sendable, Hashable {
    let descriptor: Int32

    // MARK: Listening

    /// Binds and listens on `host:port` (port 0 = ephemeral). With `reusePort` several listeners
    /// (one per I/O thread) share the port and the kernel spreads connections among them.
    static func makeListener(host: String, port: Int, backlog: Int32, reusePort: Bool) throws(SocketError) -> Socket {
        let address = try SocketAddress(host: host, port: port)
        let fd = Glibc.socket(address.family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw .makeFailed("socket") }
        let socket = Socket(descriptor: fd)
        do throws(SocketError) {
            try socket.setOption(SOL_SOCKET, SO_REUSEADDR, 1, "setsockopt SO_REUSEADDR")
            if reusePort { try socket.setOption(SOL_SOCKET, SO_REUSEPORT, 1, "setsockopt SO_REUSEPORT") }
            let bound = address.withSockAddr { pointer, length in Glibc.bind(fd, pointer, length) }
            guard bound == 0 else { throw .makeFailed("bind") }
            guard Glibc.listen(fd, backlog) == 0 else { throw .makeFailed("listen") }
        } catch {
            socket.close()
            throw error
        }
        return socket
    }

    /// The port the socket is bound to (resolves port 0).
    func localPort() throws(SocketError) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let result = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard result == 0 else { throw .makeFailed("getsockname") }
        return SocketAddress.port(of: storage)
    }

    /// Accepts one pending connection as a non-blocking socket with its peer IP; nil when none is pending.
    func accept() throws(SocketError) -> (socket: Socket, remoteAddress: String)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let fd = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                LinuxCalls.accept4(descriptor, $0, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
            }
        }
        guard fd >= 0 else {
            switch errno {
            case EAGAIN, EWOULDBLOCK, EINTR, ECONNABORTED, EPROTO: return nil
            default: throw .makeFailed("accept4")
            }
        }
        return (Socket(descriptor: fd), SocketAddress.host(of: storage))
    }

    // MARK: Options

    /// Disables Nagle: a keep-alive response must not wait for the peer's delayed ACK.
    func setNoDelay() {
        try? setOption(Int32(IPPROTO_TCP), TCP_NODELAY, 1, "setsockopt TCP_NODELAY")
    }

    private func setOption(_ level: Int32, _ name: Int32, _ value: Int32, _ call: String) throws(SocketError) {
        var value = value
        guard setsockopt(descriptor, level, name, &value, socklen_t(MemoryLayout<Int32>.size)) == 0 else {
            throw .makeFailed(call)
        }
    }

    // MARK: I/O

    func read(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            let n = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
            if n > 0 { return .bytes(n) }
            if n == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(errno)
            }
        }
    }

    /// Gathers up to 64 chunks (skipping `firstOffset` bytes of the first) into one `sendmsg`:
    /// head and body go out together without being copied into one buffer.
    func write(_ chunks: ArraySlice<[UInt8]>, firstOffset: Int) -> IOResult {
        let count = Swift.min(chunks.count, 64)
        guard count > 0 else { return .bytes(0) }
        return withUnsafeTemporaryAllocation(of: iovec.self, capacity: count) { vectors in
            gather(chunks, index: chunks.startIndex, filled: 0, count: count, firstOffset: firstOffset, into: vectors)
        }
    }

    private func gather(
        _ chunks: ArraySlice<[UInt8]>, index: Int, filled: Int, count: Int, firstOffset: Int,
        into vectors: UnsafeMutableBufferPointer<iovec>
    ) -> IOResult {
        if filled == count { return send(vectors: vectors, count: count) }
        return chunks[index].withUnsafeBytes { raw in
            let skip = filled == 0 ? firstOffset : 0
            vectors[filled] = iovec(iov_base: UnsafeMutableRawPointer(mutating: raw.baseAddress! + skip), iov_len: raw.count - skip)
            return gather(chunks, index: index + 1, filled: filled + 1, count: count, firstOffset: firstOffset, into: vectors)
        }
    }

    private func send(vectors: UnsafeMutableBufferPointer<iovec>, count: Int) -> IOResult {
        var message = msghdr()
        message.msg_iov = vectors.baseAddress
        message.msg_iovlen = count
        while true {
            // MSG_NOSIGNAL: a peer that went away must not raise SIGPIPE in the whole process.
            let n = sendmsg(descriptor, &message, Int32(MSG_NOSIGNAL))
            if n >= 0 { return .bytes(n) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(errno)
            }
        }
    }

    /// Writes from one contiguous buffer (TLS ciphertext).
    func write(raw bytes: UnsafeRawBufferPointer) -> IOResult {
        while true {
            let n = Glibc.send(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            if n >= 0 { return .bytes(n) }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(errno)
            }
        }
    }

    /// Copies up to `count` bytes of `file` from `offset` to the socket in the kernel; advances `offset`.
    func sendFile(_ file: Int32, offset: inout Int, count: Int) -> IOResult {
        while true {
            var position = off_t(offset)
            let n = sendfile(descriptor, file, &position, count)
            if n > 0 {
                offset = Int(position)
                return .bytes(n)
            }
            if n == 0 { return .closed }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return .wouldBlock
            default: return .failed(errno)
            }
        }
    }

    /// Best-effort write of a small canned response to a socket we are about to close.
    func writeBestEffort(_ bytes: [UInt8]) {
        _ = write([bytes][...], firstOffset: 0)
    }

    /// Half-close: the peer reads EOF after our last response while we may still drain its input.
    func shutdownWrite() {
        _ = Glibc.shutdown(descriptor, Int32(SHUT_WR))
    }

    func close() {
        _ = Glibc.close(descriptor)
    }
}

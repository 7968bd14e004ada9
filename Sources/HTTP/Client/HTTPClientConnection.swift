#if canImport(Glibc)
import Glibc
#endif

/// One outbound connection on the server's own parts: the non-blocking `Socket` (MSG_NOSIGNAL
/// writes) and, for https, a `TLSSession` over memory BIOs, driven with poll(2) so that every
/// wait is bounded by the request's deadline. Once established, a protocol running on an event
/// loop of its own (HTTP/2) drives it with the non-blocking calls instead (`descriptor`,
/// `receive`, `send`, `flush`). It may be handed from the thread that established it to another,
/// but is used by one thread at a time (hence unchecked).
package final class HTTPClientConnection: @unchecked Sendable {
    private let socket: Socket
    private var tls: TLSSession?
    /// Ciphertext read from the socket on its way into the TLS session.
    private var scratch = [UInt8](repeating: 0, count: 16 * 1024)

    private init(socket: Socket) { self.socket = socket }

    deinit { socket.close() }

    /// Connects to the first endpoint that answers before the deadline.
    static func connect(to endpoints: [HTTPClientEndpoint], deadline: HTTPClientDeadline) throws(HTTPClientError) -> HTTPClientConnection {
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

    private static func connect(to endpoint: HTTPClientEndpoint, deadline: HTTPClientDeadline) throws(HTTPClientError) -> HTTPClientConnection {
        let connection: HTTPClientConnection
        do {
            let address = try SocketAddress(host: endpoint.address.description, port: Int(endpoint.port))
            connection = HTTPClientConnection(socket: try Socket.connecting(to: address))
        } catch {
            throw .connectFailed("connect \(endpoint.address): \(error)")
        }
        try connection.wait(for: Int16(POLLOUT), deadline: deadline)
        let error = connection.socket.pendingError()
        guard error == 0 else { throw .connectFailed("connect \(endpoint.address): \(String(cString: strerror(error)))") }
        return connection
    }

    /// Runs the TLS handshake; from here on reads and writes go through the session.
    func startTLS(context: ClientTLSContext, host: String, hostIsIPLiteral: Bool,
                  deadline: HTTPClientDeadline, alpn: [UInt8]? = nil) throws(HTTPClientError) {
        let session: TLSSession
        do { session = try TLSSession(client: context, host: host, hostIsIPLiteral: hostIsIPLiteral, alpn: alpn) } catch {
            throw .tls("\(error)")
        }
        while true {
            let result = scratch.withUnsafeMutableBytes { session.handshake(on: socket, scratch: $0) }
            switch result {
            case .bytes:
                guard session.peerVerified else { throw .tls("certificate verification failed") }
                tls = session
                return
            case .wouldBlock:
                try wait(for: Int16(POLLIN) | (session.hasUnsentCiphertext ? Int16(POLLOUT) : 0), deadline: deadline)
            case .closed:
                throw .tls("connection closed during the TLS handshake")
            case .failed(let code):
                throw .tls(code == EPROTO ? openSSLErrorDescription() : String(cString: strerror(code)))
            }
        }
    }

    func writeAll(_ bytes: [UInt8], deadline: HTTPClientDeadline) throws(HTTPClientError) {
        let chunks = [bytes][...]
        var offset = 0
        while offset < bytes.count {
            let result = tls?.write(chunks, firstOffset: offset, to: socket) ?? socket.write(chunks, firstOffset: offset)
            switch result {
            case .bytes(let count): offset += count
            case .wouldBlock: try wait(for: Int16(POLLOUT), deadline: deadline)
            case .closed: throw .io("send: connection closed")
            case .failed(let code): throw failure("send", code)
            }
        }
        while let tls, tls.hasUnsentCiphertext {
            switch tls.flush(to: socket) {
            case .wouldBlock: try wait(for: Int16(POLLOUT), deadline: deadline)
            case .failed(let code): throw failure("send", code)
            default: continue
            }
        }
    }

    /// Up to `maxCount` bytes (plaintext under TLS); empty at the end of the stream.
    func read(maxCount: Int, deadline: HTTPClientDeadline) throws(HTTPClientError) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: maxCount)
        while true {
            let result = buffer.withUnsafeMutableBytes { buffer in
                guard let tls else { return socket.read(into: buffer) }
                return scratch.withUnsafeMutableBytes { tls.read(from: socket, into: buffer, scratch: $0) }
            }
            switch result {
            case .bytes(let count): return Array(buffer.prefix(count))
            case .closed: return []
            case .wouldBlock:
                let events = Int16(POLLIN) | (tls?.hasUnsentCiphertext == true ? Int16(POLLOUT) : 0)
                try wait(for: events, deadline: deadline)
            case .failed(let code): throw failure("recv", code)
            }
        }
    }

    private func wait(for events: Int16, deadline: HTTPClientDeadline) throws(HTTPClientError) {
        let ready: Bool
        do { ready = try socket.wait(for: events, milliseconds: try deadline.remainingMilliseconds()) } catch {
            throw .io("\(error)")
        }
        guard ready else { throw .timeout }
    }

    /// A TLS session reports a protocol failure as EPROTO, with OpenSSL's reason still queued.
    private func failure(_ call: String, _ code: Int32) -> HTTPClientError {
        if tls != nil, code == EPROTO { return .tls(openSSLErrorDescription()) }
        return .io("\(call): \(String(cString: strerror(code)))")
    }

    // MARK: Established, on an event loop

    /// Connects to `host`:`port` (resolved within `timeout`, the SSRF guard applied unless
    /// `allowPrivateAddresses`) and, with `tls`, completes the handshake offering `alpn`; blocks
    /// for at most `timeout` seconds in all.
    package static func establish(host: String, port: UInt16, tls: ClientTLSContext?, alpn: [UInt8]?,
                                  allowPrivateAddresses: Bool, timeout: Double) throws(HTTPClientError) -> HTTPClientConnection {
        let deadline = HTTPClientDeadline(seconds: timeout)
        let literal = host.contains(":") || HTTPClientURL.isDottedQuad(host)
        let endpoints = try NameLookup.shared.resolve(host: host, port: port, isLiteral: literal, deadline: deadline)
        let permitted = allowPrivateAddresses ? endpoints : endpoints.filter { $0.address.isPubliclyRoutable }
        guard !permitted.isEmpty else { throw .forbiddenAddress("\(host) resolves only to non-public addresses") }
        let connection = try connect(to: permitted, deadline: deadline)
        connection.socket.setNoDelay()
        if let tls { try connection.startTLS(context: tls, host: host, hostIsIPLiteral: literal, deadline: deadline, alpn: alpn) }
        return connection
    }

    /// The socket, for an event loop to watch (readable, writable).
    package var descriptor: Int32 { socket.descriptor }

    /// The protocol the server chose by ALPN, under TLS.
    package var selectedProtocol: String? { tls?.selectedProtocol }

    /// What the socket holds now (plaintext under TLS) into `buffer`, without waiting.
    package func receive(into buffer: UnsafeMutableRawBufferPointer) -> IOResult {
        guard let tls else { return socket.read(into: buffer) }
        return scratch.withUnsafeMutableBytes { tls.read(from: socket, into: buffer, scratch: $0) }
    }

    /// Writes what the socket takes now of `chunks` (from `firstOffset` in the first); returns the
    /// plaintext bytes taken.
    package func send(_ chunks: ArraySlice<[UInt8]>, firstOffset: Int) -> IOResult {
        tls?.write(chunks, firstOffset: firstOffset, to: socket) ?? socket.write(chunks, firstOffset: firstOffset)
    }

    /// Sends ciphertext the socket did not take before: `.bytes(0)` once none is left.
    package func flush() -> IOResult { tls?.flush(to: socket) ?? .bytes(0) }

    /// Whether TLS holds ciphertext not yet sent.
    package var hasUnsentOutput: Bool { tls?.hasUnsentCiphertext ?? false }

    /// Sends close_notify, best effort; the socket closes when the connection goes.
    package func closeGracefully() { tls?.shutdown(to: socket) }
}

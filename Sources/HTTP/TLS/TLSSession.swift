import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// The server side of one TLS connection, driven by its I/O thread. OpenSSL reads from and writes
/// to memory BIOs and this type moves ciphertext to and from the non-blocking socket, so every
/// write uses MSG_NOSIGNAL and epoll sees the real socket state.
final class TLSSession {
    /// Plaintext encrypted per `write` call; keeps queued ciphertext near this size.
    static let writeBudget = 64 * 1024

    let ssl: OpaquePointer
    private let networkIn: OpaquePointer   // ciphertext from the peer, for OpenSSL to read
    private let networkOut: OpaquePointer  // ciphertext OpenSSL produced, for the socket
    /// Ciphertext taken out of `networkOut` that the socket did not accept yet.
    private var unsent: [UInt8] = []
    private var unsentOffset = 0
    private(set) var handshakeComplete = false

    convenience init(context: ServerTLSContext) throws(TLSError) {
        try self.init(sslContext: context.context) { ssl throws(TLSError) in SSL_set_accept_state(ssl) }
    }

    /// A session of `sslContext`; `configure` sets its role (and, for a client, the peer's name).
    init(sslContext: OpaquePointer, configure: (OpaquePointer) throws(TLSError) -> Void) throws(TLSError) {
        guard let ssl = SSL_new(sslContext) else { throw .setupFailed("SSL_new failed") }
        guard let networkIn = BIO_new(BIO_s_mem()), let networkOut = BIO_new(BIO_s_mem()) else {
            SSL_free(ssl)
            throw .setupFailed("BIO_new failed")
        }
        SSL_set_bio(ssl, networkIn, networkOut) // the SSL object owns both BIOs from here on
        self.ssl = ssl
        self.networkIn = networkIn
        self.networkOut = networkOut
        try configure(ssl)
    }

    deinit { SSL_free(ssl) }

    var hasUnsentCiphertext: Bool {
        unsentOffset < unsent.count || BIO_ctrl_pending(networkOut) > 0
    }

    /// Reads plaintext into `buffer`, completing the handshake first and feeding ciphertext from
    /// the socket (through `scratch`) as OpenSSL asks for it. `.wouldBlock` means the socket is drained.
    func read(from socket: Socket, into buffer: UnsafeMutableRawBufferPointer, scratch: UnsafeMutableRawBufferPointer) -> IOResult {
        while true {
            ERR_clear_error()
            let result: Int32
            if handshakeComplete {
                result = SSL_read(ssl, buffer.baseAddress, Int32(clamping: buffer.count))
            } else {
                result = SSL_do_handshake(ssl)
            }
            // Handshake messages, session tickets and alerts go out as soon as they exist.
            if case .failed = flush(to: socket) { return .failed(EPIPE) }
            if result > 0 {
                guard handshakeComplete else {
                    handshakeComplete = true
                    continue
                }
                return .bytes(Int(result))
            }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ:
                switch socket.read(into: scratch) {
                case let .bytes(count):
                    let accepted = BIO_write(networkIn, scratch.baseAddress, Int32(count))
                    guard accepted == Int32(count) else { return .failed(ENOMEM) }
                case .wouldBlock: return .wouldBlock
                case .closed: return .closed
                case let .failed(code): return .failed(code)
                }
            case SSL_ERROR_WANT_WRITE:
                continue
            case SSL_ERROR_ZERO_RETURN:
                // close_notify from the peer: an orderly end of stream.
                return .closed
            default:
                return .failed(EPROTO)
            }
        }
    }

    /// Runs the handshake as far as the socket allows: `.bytes(0)` once it is complete,
    /// `.wouldBlock` while it waits for the peer, `.closed` or `.failed` when it cannot complete.
    func handshake(on socket: Socket, scratch: UnsafeMutableRawBufferPointer) -> IOResult {
        while !handshakeComplete {
            ERR_clear_error()
            let result = SSL_do_handshake(ssl)
            if case .failed = flush(to: socket) { return .failed(EPIPE) }
            if result == 1 {
                handshakeComplete = true
                break
            }
            switch SSL_get_error(ssl, result) {
            case SSL_ERROR_WANT_READ:
                switch socket.read(into: scratch) {
                case let .bytes(count):
                    guard BIO_write(networkIn, scratch.baseAddress, Int32(count)) == Int32(count) else { return .failed(ENOMEM) }
                case let other: return other
                }
            case SSL_ERROR_WANT_WRITE: continue
            default: return .failed(EPROTO)
            }
        }
        return .bytes(0)
    }

    /// Encrypts up to `writeBudget` plaintext bytes from `chunks` and sends what the socket takes.
    /// Returns the plaintext bytes consumed; `.wouldBlock` while earlier ciphertext is still unsent.
    func write(_ chunks: ArraySlice<[UInt8]>, firstOffset: Int, to socket: Socket) -> IOResult {
        switch flush(to: socket) {
        case .wouldBlock: return .wouldBlock
        case let .failed(code): return .failed(code)
        default: break
        }
        var consumed = 0
        var skip = firstOffset
        for chunk in chunks {
            let count = chunk.count - skip
            if count > 0 {
                let length = Swift.min(count, Self.writeBudget - consumed)
                ERR_clear_error()
                let written = chunk.withUnsafeBytes { SSL_write(ssl, $0.baseAddress! + skip, Int32(length)) }
                guard written > 0 else { return consumed > 0 ? .bytes(consumed) : .failed(EPROTO) }
                consumed += Int(written)
                if Int(written) < count || consumed >= Self.writeBudget { break }
            }
            skip = 0
        }
        if case let .failed(code) = flush(to: socket) { return .failed(code) }
        return .bytes(consumed)
    }

    /// Sends queued ciphertext: `.bytes(0)` when all of it went out, `.wouldBlock` when the socket is full.
    @discardableResult
    func flush(to socket: Socket) -> IOResult {
        while true {
            if unsentOffset < unsent.count {
                let result = unsent.withUnsafeBytes { socket.write(raw: UnsafeRawBufferPointer(rebasing: $0[unsentOffset...])) }
                switch result {
                case let .bytes(count):
                    unsentOffset += count
                    if unsentOffset < unsent.count { return .wouldBlock }
                    unsent = []
                    unsentOffset = 0
                case .wouldBlock, .closed, .failed:
                    return result
                }
            }
            let pending = Int(BIO_ctrl_pending(networkOut))
            guard pending > 0 else { return .bytes(0) }
            let count = Swift.min(pending, Self.writeBudget + 1024)
            unsent = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                initialized = Int(Swift.max(0, BIO_read(networkOut, buffer.baseAddress, Int32(count))))
            }
            unsentOffset = 0
        }
    }

    /// Queues close_notify (RFC 8446 §6.1) and tries to send it; best effort before closing.
    func shutdown(to socket: Socket) {
        guard handshakeComplete else { return }
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        flush(to: socket)
    }
}

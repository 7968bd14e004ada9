/// The socket steps every kind of server connection performs the same way (HTTPConnection,
/// StreamConnection): epoll's report as readiness, one read through TLS when present, and the drain
/// of a lingering close.
extension SocketReadiness {
    init(epollEvents events: UInt32) {
        self = []
        if events & Epoll.readable != 0 { insert(.readable) }
        if events & Epoll.writable != 0 { insert(.writable) }
        if events & (Epoll.peerHangUp | Epoll.hangUp) != 0 { insert(.hangUp) }
        if events & Epoll.error != 0 { insert(.error) }
    }
}

extension IOLoop {
    /// One read of `socket` (through `tls`) into the loop's receive buffer. `handshakeCompleted` is
    /// true the first time a read finds the TLS handshake done (`handshakeReported` remembers it).
    /// The bytes read stay in `receiveBuffer` until the next read.
    func readOnce(_ socket: Socket, tls: TLSSession?, handshakeReported: inout Bool) -> (outcome: ReadOutcome, handshakeCompleted: Bool) {
        let result: IOResult
        var handshakeCompleted = false
        if let tls {
            result = receiveBuffer.read(from: socket, through: tls, scratch: cipherBuffer)
            if !handshakeReported, tls.handshakeComplete {
                handshakeReported = true
                handshakeCompleted = true
            }
        } else {
            result = receiveBuffer.read(from: socket)
        }
        let outcome: ReadOutcome
        switch result {
        case let .bytes(count): outcome = .bytes(count, short: count < receiveBuffer.capacity)
        case .wouldBlock: outcome = .wouldBlock
        case .closed: outcome = .endOfStream
        case .failed: outcome = .failed
        }
        return (outcome, handshakeCompleted)
    }

    /// Reads and drops everything available (a lingering close; TLS input is not even decrypted);
    /// true when the input ended.
    func discardAvailable(_ socket: Socket) -> Bool {
        while true {
            switch cipherBuffer.read(from: socket) {
            case .bytes: continue
            case .wouldBlock: return false
            case .closed, .failed: return true
            }
        }
    }
}

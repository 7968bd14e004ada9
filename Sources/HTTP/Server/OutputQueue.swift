/// Bytes waiting for a connection's socket, written in order with one gathered write per attempt
/// (through TLS when the connection has it). Only the first chunk can be partly written.
struct OutputQueue {
    private var chunks: [[UInt8]] = []
    /// How much of the first chunk went out already.
    private var offset = 0
    /// Queued bytes not yet written.
    private(set) var unsentBytes = 0

    var isEmpty: Bool { chunks.isEmpty }

    mutating func append(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        chunks.append(bytes)
        unsentBytes += bytes.count
    }

    /// Appends to the last chunk when that is not the first (which may be partly written) and stays
    /// within `limit` bytes, so many small writes do not make a long chunk list.
    mutating func appendCoalescing(_ bytes: [UInt8], limit: Int) {
        if chunks.count >= 2, chunks[chunks.count - 1].count + bytes.count <= limit {
            chunks[chunks.count - 1].append(contentsOf: bytes)
            unsentBytes += bytes.count
        } else {
            append(bytes)
        }
    }

    /// Drops the chunks not started; a partly written one stays so that what the peer reads stays
    /// well-formed. Returns how many bytes were dropped.
    mutating func dropUnstarted() -> Int {
        let keep = offset > 0 ? 1 : 0
        guard chunks.count > keep else { return 0 }
        let dropped = chunks[keep...].reduce(0) { $0 + $1.count }
        chunks.removeSubrange(keep...)
        unsentBytes -= dropped
        return dropped
    }

    /// One gathered write of everything queued; what went out leaves the queue.
    mutating func write(to socket: Socket, through tls: TLSSession?) -> IOResult {
        let result = if let tls {
            tls.write(chunks[...], firstOffset: offset, to: socket)
        } else {
            socket.write(chunks[...], firstOffset: offset)
        }
        guard case var .bytes(written) = result else { return result }
        unsentBytes -= written
        while written > 0 {
            let left = chunks[0].count - offset
            if written >= left {
                written -= left
                chunks.removeFirst()
                offset = 0
            } else {
                offset += written
                written = 0
            }
        }
        return result
    }

    /// Writes until drained or the socket is full; `progressed` when any byte went out.
    mutating func flush(to socket: Socket, through tls: TLSSession?) -> (FlushOutcome, progressed: Bool) {
        var progressed = false
        while !isEmpty {
            switch write(to: socket, through: tls) {
            case .bytes: progressed = true
            case .wouldBlock: return (.blocked(unsent: unsentBytes, file: false), progressed)
            case .closed, .failed: return (.failed, progressed)
            }
        }
        return (Self.flushCiphertext(tls, to: socket), progressed)
    }

    /// The last step of a flush once every queued byte is written: TLS's own pending ciphertext.
    static func flushCiphertext(_ tls: TLSSession?, to socket: Socket) -> FlushOutcome {
        switch tls?.flush(to: socket) {
        case .wouldBlock?: .blocked(unsent: 0, file: false)
        case .closed?, .failed?: .failed
        case .bytes?, nil: .drained
        }
    }
}

import HTTP

/// One subscribeConvoEvents socket of the events bench: the client side of the upgrade
/// (RFC 6455 §4.1), then server frames parsed with the server's own parser, pings answered, and the
/// msgId of each messageEvent picked out of the text without decoding the JSON (the client must
/// stay cheap next to the server on a shared box).
struct EventSubscriber: Sendable {
    static let path = "/xrpc/blue.catbird.mls.subscribeConvoEvents"
    private static let msgIDKey = Array("\"msgId\":\"".utf8)

    let socket: LoopbackSocket
    private var buffer: [UInt8] = []
    private let parser = WebSocketFrameParser(maxPayloadSize: 1 << 24, requireMask: false)
    /// Set once a close frame or end of stream arrived: the code, or 1006 (RFC 6455 §7.1.5).
    private(set) var closeCode: UInt16?

    /// Connects and upgrades with `ticket` (and `cursor`, to resume after it); throws unless the
    /// server answers 101.
    init(port: Int, ticket: String, cursor: String? = nil) throws {
        socket = try LoopbackSocket.connect(port: port)
        let query = "ticket=" + ticket.addingPercentEncodingForQuery()
            + (cursor.map { "&cursor=" + $0.addingPercentEncodingForQuery() } ?? "")
        let request = "GET \(Self.path)?\(query) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
            + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ZHMtYmVuY2gtZXZlbnRzIQ==\r\n"
            + "Sec-WebSocket-Version: 13\r\n\r\n"
        do {
            try socket.sendAll(Array(request.utf8))
            try readHandshake()
        } catch {
            socket.close()
            throw error
        }
        socket.setNonBlocking()
    }

    private mutating func readHandshake() throws {
        var scratch = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = buffer.firstRange(of: [13, 10, 13, 10]) {
                let head = String(decoding: buffer[..<end.lowerBound], as: UTF8.self)
                let statusLine = head.prefix { $0 != "\r" }
                guard statusLine.split(separator: " ").dropFirst().first == "101" else {
                    let body = String(decoding: buffer[end.upperBound...], as: UTF8.self)
                    throw BenchError.unexpected("subscribeConvoEvents answered \(statusLine) \(body.prefix(200))")
                }
                buffer.removeSubrange(..<end.upperBound)
                return
            }
            guard case .bytes(let count) = try socket.read(into: &scratch) else { throw LoopbackSocket.Failure.closed }
            buffer += scratch[..<count]
        }
    }

    /// A read or parse error ends the socket's part in the run as an abnormal closure would.
    mutating func markFailed() {
        if closeCode == nil { closeCode = 1006 }
    }

    /// Reads what is pending and calls `onMessage` with the msgId bytes of each text frame that
    /// carries one. Pings get their pong; a close frame or the end of stream sets `closeCode`.
    mutating func receive(scratch: inout [UInt8], onMessage: (ArraySlice<UInt8>) -> Void) throws {
        try receive(scratch: &scratch) { (payload: [UInt8]) in
            if let start = Self.end(of: Self.msgIDKey, in: payload), start + 26 <= payload.count {
                onMessage(payload[start..<(start + 26)])
            }
        }
    }

    /// The same with each text frame's whole payload.
    mutating func receive(scratch: inout [UInt8], onText: ([UInt8]) -> Void) throws {
        guard closeCode == nil else { return }
        switch try socket.read(into: &scratch) {
        case .wouldBlock: return
        case .closed:
            closeCode = 1006
            return
        case .bytes(let count): buffer += scratch[..<count]
        }
        var consumed = 0
        while consumed < buffer.count {
            let (used, frame) = try buffer[consumed...].withUnsafeBytes { try parser.parse($0) }
            guard let frame else { break }
            consumed += used
            switch frame.opcode {
            case .text:
                onText(frame.payload)
            case .ping:
                // RFC 6455 §5.5.3: the pong echoes the ping's payload; client frames are masked.
                try socket.sendAll(WebSocketFrame.encode(opcode: .pong, payload: frame.payload, maskingKey: [1, 2, 3, 4]))
            case .close:
                closeCode = frame.payload.count >= 2 ? UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) : 1005
            default:
                break
            }
        }
        buffer.removeSubrange(..<consumed)
    }
}

extension EventSubscriber {
    /// The index just past the first occurrence of `needle` in `haystack`: a plain loop on concrete
    /// arrays, many times faster than the generic `firstRange(of:)` at tens of thousands of frames a second.
    static func end(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard let first = needle.first, haystack.count >= needle.count else { return nil }
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first {
                var matched = 1
                while matched < needle.count, haystack[index + matched] == needle[matched] { matched += 1 }
                if matched == needle.count { return index + matched }
            }
            index += 1
        }
        return nil
    }
}

private extension String {
    /// Tickets are base64url with a dot, but escape anything else a query cannot carry as is.
    func addingPercentEncodingForQuery() -> String {
        var out = ""
        for byte in utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."), UInt8(ascii: "~"):
                out.append(Character(Unicode.Scalar(byte)))
            default:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return out
    }

    func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}

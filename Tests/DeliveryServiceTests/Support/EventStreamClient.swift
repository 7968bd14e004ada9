#if canImport(Glibc)
import Glibc
#endif
import Foundation
import XCTest

/// A blocking WebSocket client for subscribeConvoEvents (RFC 6455, client side, masked frames):
/// opens the upgrade with a ticket and cursor, then reads JSON event frames. Reads time out after
/// `receiveTimeout` seconds so a missing event fails the test instead of hanging it.
final class EventStreamClient {
    enum ClientError: Error {
        case connectFailed(Int32)
        case timedOut
        case closed(UInt16?)
        case malformed(String)
    }

    /// What the server answered to the upgrade.
    struct Handshake {
        var status: Int
        var body: [UInt8]
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:] }
        var error: String? { json["error"] as? String }
    }

    enum Frame {
        case text(String)
        case binary([UInt8])
        case close(UInt16?)
    }

    private let fd: Int32
    private var buffer: [UInt8] = []
    private(set) var handshake = Handshake(status: 0, body: [])
    /// The last cursor seen on an event.
    private(set) var lastCursor: String?

    init(port: Int, ticket: String?, cursor: String? = nil, headers: [(String, String)] = [],
         receiveTimeout: Double = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let code = errno
            Glibc.close(fd)
            throw ClientError.connectFailed(code)
        }
        var timeout = timeval(tv_sec: Int(receiveTimeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))

        var query: [String] = []
        if let ticket { query.append("ticket=" + Self.escape(ticket)) }
        if let cursor { query.append("cursor=" + Self.escape(cursor)) }
        var request = "GET /xrpc/blue.catbird.mls.subscribeConvoEvents?\(query.joined(separator: "&")) HTTP/1.1\r\n"
            + "Host: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        sendBytes(Array((request + "\r\n").utf8))
        handshake = try readHandshake()
    }

    deinit {
        Glibc.close(fd)
    }

    var accepted: Bool { handshake.status == 101 }

    static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-_.~"))) ?? text
    }

    // MARK: Sending

    func sendText(_ text: String) {
        sendFrame(opcode: 0x1, payload: Array(text.utf8))
    }

    func sendClose(code: UInt16 = 1000) {
        sendFrame(opcode: 0x8, payload: [UInt8(code >> 8), UInt8(code & 0xFF)])
    }

    /// A frame as given; `masked: false` breaks RFC 6455 §5.1 on purpose.
    func sendFrame(opcode: UInt8, payload: [UInt8], masked: Bool = true) {
        var bytes: [UInt8] = [0x80 | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        if payload.count < 126 {
            bytes.append(maskBit | UInt8(payload.count))
        } else {
            bytes.append(maskBit | 126)
            bytes += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        }
        if masked {
            let key: [UInt8] = [0x12, 0x34, 0x56, 0x78]
            bytes += key
            bytes += payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
        } else {
            bytes += payload
        }
        sendBytes(bytes)
    }

    private func sendBytes(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let n = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return }
            offset += n
        }
    }

    // MARK: Reading

    /// The next data or close frame; pings are answered.
    func readFrame() throws -> Frame {
        while true {
            let head = try readExactly(2)
            var length = Int(head[1] & 0x7F)
            if length >= 126 {
                length = try readExactly(length == 126 ? 2 : 8).reduce(0) { $0 << 8 | Int($1) }
            }
            guard head[1] & 0x80 == 0 else { throw ClientError.malformed("server frame masked") }
            let payload = try readExactly(length)
            switch head[0] & 0x0F {
            case 0x1: return .text(String(decoding: payload, as: UTF8.self))
            case 0x2: return .binary(payload)
            case 0x8: return .close(payload.count >= 2 ? UInt16(payload[0]) << 8 | UInt16(payload[1]) : nil)
            case 0x9: sendFrame(opcode: 0xA, payload: payload)
            default: continue
            }
        }
    }

    /// The next event as a JSON object; throws `.closed` at a close frame.
    func readEvent() throws -> [String: Any] {
        switch try readFrame() {
        case .text(let text):
            guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                throw ClientError.malformed("event is not an object")
            }
            if let cursor = object["cursor"] as? String { lastCursor = cursor }
            return object
        case .binary: throw ClientError.malformed("binary frame")
        case .close(let code): throw ClientError.closed(code)
        }
    }

    /// Events until `count` of them satisfy `isWanted`; returns those.
    func readEvents(_ count: Int, where isWanted: ([String: Any]) -> Bool) throws -> [[String: Any]] {
        var wanted: [[String: Any]] = []
        while wanted.count < count {
            let event = try readEvent()
            if isWanted(event) { wanted.append(event) }
        }
        return wanted
    }

    /// Data frames are skipped until the close frame; its code.
    func readCloseCode() throws -> UInt16? {
        while true {
            if case .close(let code) = try readFrame() { return code }
        }
    }

    private func readHandshake() throws -> Handshake {
        while true {
            if let end = Self.find([13, 10, 13, 10], in: buffer) {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                let lines = head.components(separatedBy: "\r\n")
                let parts = lines[0].split(separator: " ")
                guard parts.count >= 2, let status = Int(parts[1]) else { throw ClientError.malformed(lines[0]) }
                if status == 101 { return Handshake(status: 101, body: []) }
                let length = lines.dropFirst().compactMap { line -> Int? in
                    let pair = line.split(separator: ":", maxSplits: 1)
                    guard pair.count == 2, pair[0].lowercased() == "content-length" else { return nil }
                    return Int(pair[1].trimmingCharacters(in: .whitespaces))
                }.first ?? 0
                return Handshake(status: status, body: try readExactly(length))
            }
            try fill()
        }
    }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { try fill() }
        let out = Array(buffer.prefix(count))
        buffer.removeFirst(count)
        return out
    }

    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
        if n < 0 { throw ClientError.timedOut }
        if n == 0 { throw ClientError.closed(nil) }
        buffer += chunk[..<n]
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for index in 0...(haystack.count - needle.count) where Array(haystack[index..<index + needle.count]) == needle {
            return index
        }
        return nil
    }
}

import Basics
import ChatProtocol
import Foundation
import HTTP
import Primitives

/// A client of `blue.catbird.chat.subscribeEvents` (CHAT.md §3): the upgrade with a ticket and
/// cursor, then binary messages of two DAG-CBOR maps each, the header and the envelope, read back
/// against the contract (`#subscriptionMessage`). It checks the cursor chain as the app does: each
/// envelope's `previousCursor` is the cursor before it. Typing events (`#typingEvent` frames) come
/// between envelopes, outside the chain, and are handed to the caller too.
public final class ChatEventStream {
    public enum StreamError: Error, CustomStringConvertible {
        case refused(status: Int, body: String)
        case closed
        case malformed(String)

        public var description: String {
            switch self {
            case .refused(let status, let body): "the upgrade was refused (\(status)): \(body)"
            case .closed: "the stream closed"
            case .malformed(let what): "malformed stream: \(what)"
            }
        }
    }

    /// One message of the stream.
    public struct Event: Sendable {
        public enum Kind: Sendable, Equatable {
            /// An `#eventEnvelope`: a durable event of the chain.
            case envelope
            /// A `#typingEvent`: ephemeral, no cursor (`cursor` and `previousCursor` are the stream's, unchanged).
            case typing
        }

        public let kind: Kind
        public let cursor: String
        public let previousCursor: String
        /// The `#protocolEventPayload` member, or the `#typingEvent`, `$type` included.
        public let payload: ChatValue
        /// The envelope, or the typing event, as received (`$type` from the frame's header).
        public let envelope: ChatValue
    }

    private let stream: ClientByteStream
    private var buffer: [UInt8] = []
    private let parser = WebSocketFrameParser(maxPayloadSize: 1 << 20, requireMask: false)
    /// The cursor the next envelope must chain to.
    public private(set) var cursor: String
    let capture: ChatCapture?

    /// Opens the stream at `baseURL` with a ticket for `cursor`; `extraHeaders` lets a test send
    /// what the app sends (its session token in `Authorization`, which the service ignores).
    public init(baseURL: String, ticket: String, cursor: String, extraHeaders: [(String, String)] = [],
                capture: ChatCapture? = nil, timeout: Double = 10) throws {
        guard let url = URLComponents(string: baseURL), let host = url.host else { throw StreamError.malformed("base URL") }
        let tls = url.scheme == "https" || url.scheme == "wss"
        stream = try ClientByteStream.connect(host: host, port: url.port ?? (tls ? 443 : 80), tls: tls, timeout: timeout)
        self.cursor = cursor
        self.capture = capture
        let query = "ticket=\(XRPCRequest.percentEncode(ticket))&cursor=\(XRPCRequest.percentEncode(cursor))"
        var request = "GET /xrpc/blue.catbird.chat.subscribeEvents?\(query) HTTP/1.1\r\nHost: \(host)\r\n"
            + "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: \(Base64.encode(SecureRandom.bytes(16)))\r\n"
            + "Sec-WebSocket-Version: 13\r\n"
        for (name, value) in extraHeaders { request += "\(name): \(value)\r\n" }
        try stream.write(Array((request + "\r\n").utf8))
        try readHandshake(timeout: timeout)
    }

    private func readHandshake(timeout: Double) throws {
        let end: [UInt8] = Array("\r\n\r\n".utf8)
        while true {
            if let range = buffer.firstRange(of: end) {
                let head = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<range.upperBound)
                let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
                guard status == 101 else {
                    // The refusal's body, as far as it arrived.
                    let more = (try? stream.read(timeout: 1)) ?? []
                    throw StreamError.refused(status: status, body: String(decoding: buffer + more, as: UTF8.self))
                }
                return
            }
            let bytes = try stream.read(timeout: timeout)
            guard !bytes.isEmpty else { throw StreamError.closed }
            buffer += bytes
        }
    }

    /// The next message, waiting at most `timeout` seconds (`HTTPClientError.timeout` then). Pings
    /// are answered; a typing event is returned as an event of kind `.typing`, without a cursor change.
    public func next(timeout: Double = 10) throws -> Event {
        while true {
            let (consumed, frame) = try buffer.withUnsafeBytes { try parser.parse($0) }
            if let frame {
                buffer.removeFirst(consumed)
                switch frame.opcode {
                case .binary: return try event(frame.payload)
                case .ping: try stream.write(WebSocketFrame(opcode: .pong, payload: frame.payload).encoded(maskingKey: SecureRandom.bytes(4)))
                case .close: throw StreamError.closed
                case .text: throw StreamError.malformed("a text frame")
                default: continue
                }
                continue
            }
            let bytes = try stream.read(timeout: timeout)
            guard !bytes.isEmpty else { throw StreamError.closed }
            buffer += bytes
        }
    }

    private func event(_ message: [UInt8]) throws -> Event {
        let items = try DAGCBOR.decodeSequence(message, maxItems: 2)
        guard items.count == 2, items[0]["op"] == .unsigned(1), case .text(let type)? = items[0]["t"],
              type == ChatSchema.typePrefix + "eventEnvelope" || type == ChatSchema.typePrefix + "typingEvent" else {
            throw StreamError.malformed("header \(items.first.map { "\($0)" } ?? "")")
        }
        if type == ChatSchema.typePrefix + "typingEvent" {
            var typing = try ChatProjection().project(cbor: items[1], as: .ref("typingEvent"), form: .data)
            if case .object(var members) = typing { members["$type"] = .text(type); typing = .object(members) }
            capture?.message(typing)
            return Event(kind: .typing, cursor: cursor, previousCursor: cursor, payload: typing, envelope: typing)
        }
        let envelope = try ChatProjection().project(cbor: items[1], as: .ref("eventEnvelope"), form: .data)
        guard let previous = envelope["previousCursor"]?.text, let next = envelope["cursor"]?.text, let payload = envelope["payload"] else {
            throw StreamError.malformed("envelope")
        }
        guard previous == cursor, next != previous else {
            throw StreamError.malformed("the envelope does not chain: previousCursor \(previous), expected \(cursor)")
        }
        cursor = next
        var message = envelope
        if case .object(var members) = message { members["$type"] = .text(type); message = .object(members) }
        capture?.message(message)
        return Event(kind: .envelope, cursor: next, previousCursor: previous, payload: payload, envelope: envelope)
    }
}

import Foundation
import XCTest
@testable import HTTP

/// A raw-socket WebSocket client: sends the opening handshake, masked frames (or deliberately
/// broken ones), and reads the server's frames one at a time.
final class WebSocketTestClient {
    static let key = "dGhlIHNhbXBsZSBub25jZQ=="

    let raw: RawClient
    private(set) var handshake: RawClient.Response

    init(port: Int, path: String = "/ws", extraHeaders: String = "", receiveBufferSize: Int32? = nil) throws {
        raw = try RawClient(port: port)
        if let receiveBufferSize { raw.setReceiveBufferSize(receiveBufferSize) }
        raw.send(
            "GET \(path) HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: \(Self.key)\r\nSec-WebSocket-Version: 13\r\n\(extraHeaders)\r\n"
        )
        handshake = try raw.readResponse()
    }

    func send(_ opcode: WebSocketOpcode, _ payload: [UInt8], fin: Bool = true, masked: Bool = true) {
        let key: [UInt8]? = masked ? [0x37, 0xFA, 0x21, 0x3D] : nil
        raw.send(WebSocketFrame.encode(fin: fin, opcode: opcode, payload: payload, maskingKey: key))
    }

    func send(text: String) {
        send(.text, Array(text.utf8))
    }

    func sendClose(_ code: WebSocketCloseCode) {
        send(.close, WebSocketFrame.close(code: code).payload)
    }

    /// The next frame from the server (which must not mask).
    func readFrame() throws -> WebSocketFrame {
        var bytes = try raw.readExactly(2)
        var length = Int(bytes[1] & 0x7F)
        if length >= 126 {
            let extended = try raw.readExactly(length == 126 ? 2 : 8)
            bytes += extended
            length = extended.reduce(0) { $0 << 8 | Int($1) }
        }
        if bytes[1] & 0x80 != 0 { bytes += try raw.readExactly(4) }
        bytes += try raw.readExactly(length)
        let (consumed, frame) = try WebSocketFrameParser(maxPayloadSize: 64 << 20, requireMask: false).parse(bytes)
        XCTAssertEqual(consumed, bytes.count)
        guard let frame else { throw RawClient.ClientError.malformed("incomplete frame") }
        return frame
    }

    /// Skips data frames until a close frame; returns its code.
    func readCloseCode() throws -> UInt16? {
        while true {
            let frame = try readFrame()
            guard frame.opcode == .close else { continue }
            return frame.payload.count >= 2 ? UInt16(frame.payload[0]) << 8 | UInt16(frame.payload[1]) : nil
        }
    }
}

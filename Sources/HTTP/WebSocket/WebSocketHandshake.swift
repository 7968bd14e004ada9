import COpenSSL
import Foundation

/// The opening handshake on the server side (RFC 6455 §4.2).
enum WebSocketHandshake {
    /// RFC 6455 §1.3: appended to the client's key before hashing.
    static let magic = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// A request asking for a WebSocket: `Upgrade` lists the websocket token (RFC 6455 §4.2.1).
    static func isUpgradeRequest(_ head: HTTPRequestHead) -> Bool {
        guard let upgrade = head.headers["upgrade"] else { return false }
        return Self.listContains(upgrade, "websocket")
    }

    /// The client's key when the request is a valid opening handshake, else the response refusing it.
    static func validate(_ head: HTTPRequestHead) -> Result<String, WebSocketHandshakeRefusal> {
        guard head.method == .get, head.version == .http1_1,
              let connection = head.headers["connection"], listContains(connection, "upgrade")
        else { return .failure(.init(.error(status: 400, error: "InvalidRequest", message: "not a WebSocket handshake"))) }
        // RFC 6455 §4.4: answer an unsupported version with 426 and the versions we speak.
        guard head.headers.values(for: "sec-websocket-version") == ["13"] else {
            var response = HTTPResponse.error(status: 426, error: "UpgradeRequired", message: "WebSocket version 13 required")
            response.headers.add("Sec-WebSocket-Version", "13")
            return .failure(.init(response))
        }
        let keys = head.headers.values(for: "sec-websocket-key")
        // RFC 6455 §4.1: the key is 16 random bytes, base64-encoded.
        guard keys.count == 1, let decoded = Data(base64Encoded: keys[0]), decoded.count == 16 else {
            return .failure(.init(.error(status: 400, error: "InvalidRequest", message: "invalid Sec-WebSocket-Key")))
        }
        return .success(keys[0])
    }

    /// Sec-WebSocket-Accept: base64(SHA-1(key ++ magic)) (RFC 6455 §4.2.2).
    static func acceptValue(forKey key: String) -> String {
        let input = Array((key + magic).utf8)
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = input.withUnsafeBytes { EVP_Digest($0.baseAddress, $0.count, &digest, &length, EVP_sha1(), nil) }
        return Data(digest.prefix(Int(length))).base64EncodedString()
    }

    /// The 101 head (RFC 6455 §4.2.2); written by hand because the response writer owns framing fields.
    static func switchingProtocolsHead(key: String, headers: HTTPHeaders, date: [UInt8]) -> [UInt8] {
        var text = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        text += "Sec-WebSocket-Accept: \(acceptValue(forKey: key))\r\n"
        var out = Array(text.utf8)
        for (name, value) in headers {
            for byte in name.utf8 where ASCII.isTokenCharacter(byte) { out.append(byte) }
            out.append(contentsOf: ": ".utf8)
            for byte in value.utf8 { out.append(byte == ASCII.cr || byte == ASCII.lf || byte == 0 ? ASCII.space : byte) }
            out.append(contentsOf: "\r\n".utf8)
        }
        out.append(contentsOf: "Date: ".utf8)
        out.append(contentsOf: date)
        out.append(contentsOf: "\r\n\r\n".utf8)
        return out
    }

    /// Whether a comma-separated field value holds `token`, ignoring case and whitespace.
    static func listContains(_ value: String, _ token: String) -> Bool {
        value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).equalsIgnoringASCIICase(token) }
    }
}

/// A refusal carried through `Result` (HTTPResponse itself is not an Error).
struct WebSocketHandshakeRefusal: Error {
    let response: HTTPResponse
    init(_ response: HTTPResponse) { self.response = response }
}

/// Serialises a response head (status line and fields, RFC 9112 §4, §5). The body is not copied:
/// the connection sends head and body together with one gathered write.
enum HTTPResponseWriter {
    static let continueHead: [UInt8] = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)

    /// - Parameters:
    ///   - keepAlive: false adds `Connection: close`.
    ///   - announceKeepAlive: adds `Connection: keep-alive` (HTTP/1.0 clients that asked for it).
    ///   - date: the current IMF-fixdate, or nil to omit Date.
    static func head(for response: HTTPResponse, keepAlive: Bool, announceKeepAlive: Bool, date: [UInt8]?) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(96 + response.headers.count * 48)
        out.append(contentsOf: "HTTP/1.1 ".utf8)
        let status = Swift.min(Swift.max(response.status, 100), 999)
        out.append(0x30 + UInt8(status / 100))
        out.append(0x30 + UInt8(status / 10 % 10))
        out.append(0x30 + UInt8(status % 10))
        out.append(ASCII.space)
        out.append(contentsOf: HTTPStatus.reasonPhrase(status).utf8)
        out.append(contentsOf: [ASCII.cr, ASCII.lf])

        for (name, value) in response.headers {
            // The server owns framing and connection management.
            if name.equalsIgnoringASCIICase("content-length") || name.equalsIgnoringASCIICase("transfer-encoding")
                || name.equalsIgnoringASCIICase("connection") {
                continue
            }
            appendField(name: name, value: value, to: &out)
        }
        if HTTPStatus.allowsBody(status) {
            out.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(response.contentLength, to: &out)
            out.append(contentsOf: [ASCII.cr, ASCII.lf])
        }
        if let date {
            out.append(contentsOf: "Date: ".utf8)
            out.append(contentsOf: date)
            out.append(contentsOf: [ASCII.cr, ASCII.lf])
        }
        if !keepAlive {
            out.append(contentsOf: "Connection: close\r\n".utf8)
        } else if announceKeepAlive {
            out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        out.append(contentsOf: [ASCII.cr, ASCII.lf])
        return out
    }

    /// Names keep only token bytes and values lose CR, LF and NUL, so a header built from client
    /// input cannot split the response.
    private static func appendField(name: String, value: String, to out: inout [UInt8]) {
        // Names and values almost always need no change: copied whole when a scan says so.
        if appendUnchanged(name, to: &out, when: ASCII.isTokenCharacter) != true {
            for byte in name.utf8 where ASCII.isTokenCharacter(byte) { out.append(byte) }
        }
        out.append(ASCII.colon)
        out.append(ASCII.space)
        if appendUnchanged(value, to: &out, when: { $0 != ASCII.cr && $0 != ASCII.lf && $0 != 0 }) != true {
            for byte in value.utf8 {
                out.append(byte == ASCII.cr || byte == ASCII.lf || byte == 0 ? ASCII.space : byte)
            }
        }
        out.append(ASCII.cr)
        out.append(ASCII.lf)
    }

    /// Appends `text` as it is if every byte passes `keep`; false (nothing appended) if one does
    /// not, nil if the text has no contiguous UTF-8.
    private static func appendUnchanged(_ text: String, to out: inout [UInt8], when keep: (UInt8) -> Bool) -> Bool? {
        text.utf8.withContiguousStorageIfAvailable { bytes in
            for byte in bytes where !keep(byte) { return false }
            out.append(contentsOf: bytes)
            return true
        }
    }

    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        guard value > 0 else { out.append(ASCII.zero); return }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            while rest > 0 {
                buffer[count] = ASCII.zero + UInt8(rest % 10)
                rest /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[index]) }
        }
    }

    /// The full response, head and body, for canned answers written outside a connection.
    static func serialize(_ response: HTTPResponse, keepAlive: Bool) -> [UInt8] {
        head(for: response, keepAlive: keepAlive, announceKeepAlive: false, date: nil) + response.body
    }
}

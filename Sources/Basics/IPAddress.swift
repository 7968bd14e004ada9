/// An IPv4 or IPv6 address as 16 bytes (IPv4 as the RFC 4291 §2.5.5.2 mapped form), parsed in Swift so
/// hostile X-Forwarded-For values never reach C. The one reading of client addresses: the per-IP rate
/// limits, trusted proxies and the per-address connection count all key on it.
public struct IPAddress: Sendable, Hashable, CustomStringConvertible {
    public let bytes: [UInt8]

    public var isIPv4: Bool { bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xff && bytes[11] == 0xff }

    public init(bytes: [UInt8]) {
        precondition(bytes.count == 16)
        self.bytes = bytes
    }

    /// An IPv4 address from its four bytes in network order (as `sin_addr` holds them).
    public init(ipv4: [UInt8]) {
        precondition(ipv4.count == 4)
        self.init(bytes: Self.mapped(ipv4))
    }

    /// Accepts dotted-quad IPv4 and RFC 4291 §2.2 IPv6 text, optionally in brackets; also `a.b.c.d:port`
    /// and `[v6]:port` as proxies sometimes write them.
    public init?(_ text: Substring) {
        var text = text
        if text.first == "[" {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || (rest.first == ":" && Self.isPort(rest.dropFirst())) else { return nil }
            text = text[text.index(after: text.startIndex)..<close]
            guard let v6 = Self.parseIPv6(text) else { return nil }
            self.init(bytes: v6)
            return
        }
        if let v4 = Self.parseIPv4(text) {
            self.init(bytes: Self.mapped(v4))
        } else if let v6 = Self.parseIPv6(text) {
            self.init(bytes: v6)
        } else if let colon = text.lastIndex(of: ":"), text.filter({ $0 == ":" }).count == 1,
                  let v4 = Self.parseIPv4(text[..<colon]), Self.isPort(text[text.index(after: colon)...]) {
            self.init(bytes: Self.mapped(v4))
        } else {
            return nil
        }
    }

    public init?(_ text: String) { self.init(Substring(text)) }

    static func isPort(_ text: Substring) -> Bool {
        (1...5).contains(text.count) && text.allSatisfy(\.isASCIIDigit)
    }

    static func mapped(_ v4: [UInt8]) -> [UInt8] { [UInt8](repeating: 0, count: 10) + [0xff, 0xff] + v4 }

    static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var out: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCIIDigit),
                  part.count == 1 || part.first != "0", let value = UInt8(part) else { return nil }
            out.append(value)
        }
        return out
    }

    static func parseIPv6(_ text: Substring) -> [UInt8]? {
        guard text.count <= 45, text.contains(":") else { return nil }
        let halves = text.split(separator: "::", omittingEmptySubsequences: false)
        guard halves.count <= 2 else { return nil }
        func groups(_ part: Substring, allowIPv4Tail: Bool) -> [UInt8]? {
            if part.isEmpty { return [] }
            var out: [UInt8] = []
            let fields = part.split(separator: ":", omittingEmptySubsequences: false)
            for (index, field) in fields.enumerated() {
                if allowIPv4Tail && index == fields.count - 1 && field.contains(".") {
                    guard let v4 = parseIPv4(field) else { return nil }
                    out += v4
                    continue
                }
                guard (1...4).contains(field.count), field.allSatisfy(\.isHexDigit), let value = UInt16(field, radix: 16) else {
                    return nil
                }
                out += [UInt8(value >> 8), UInt8(value & 0xff)]
            }
            return out
        }
        if halves.count == 1 {
            guard let all = groups(halves[0], allowIPv4Tail: true), all.count == 16 else { return nil }
            return all
        }
        guard let head = groups(halves[0], allowIPv4Tail: false), let tail = groups(halves[1], allowIPv4Tail: true),
              head.count + tail.count <= 14 else { return nil }
        return head + [UInt8](repeating: 0, count: 16 - head.count - tail.count) + tail
    }

    /// The same address with every bit past `prefixLength` (over the 128-bit form) cleared.
    public func masked(toPrefix prefixLength: Int) -> IPAddress {
        var out = bytes
        for index in 0..<16 {
            let keep = min(8, max(0, prefixLength - index * 8))
            out[index] &= UInt8(truncatingIfNeeded: 0xff << (8 - keep))
        }
        return IPAddress(bytes: out)
    }

    /// The key a per-client limit counts this address under: an IPv4 address (IPv4-mapped ones too)
    /// alone, an IPv6 address by its network of `ipv6Prefix` bits, since a host may use any address of
    /// its /64 (RFC 4291 §2.5.4, RFC 8981) and one subscriber usually holds it whole (RFC 6177).
    public func clientKey(ipv6Prefix: Int) -> String {
        isIPv4 ? description : "\(masked(toPrefix: ipv6Prefix))/\(ipv6Prefix)"
    }

    /// `clientKey(ipv6Prefix:)` of the address `text` names; text that is no address is its own key.
    public static func clientKey(_ text: String, ipv6Prefix: Int) -> String {
        IPAddress(text)?.clientKey(ipv6Prefix: ipv6Prefix) ?? text
    }

    public var description: String {
        if isIPv4 { return bytes[12...].map(String.init).joined(separator: ".") }
        return stride(from: 0, to: 16, by: 2).map { String(UInt16(bytes[$0]) << 8 | UInt16(bytes[$0 + 1]), radix: 16) }
            .joined(separator: ":")
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

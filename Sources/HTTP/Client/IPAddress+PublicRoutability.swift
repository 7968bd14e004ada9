import Basics

/// The SSRF policy over a resolved address: which targets count as publicly routable.
extension IPAddress {
    /// False for private (RFC 1918, RFC 4193), loopback, link-local, unspecified, multicast,
    /// CGNAT (RFC 6598), documentation, benchmarking and reserved ranges (RFC 6890 registries),
    /// including IPv4 addresses embedded in IPv6 (mapped, compatible, NAT64, 6to4) and the local-use
    /// NAT64 prefix 64:ff9b:1::/48 (RFC 8215).
    var isPubliclyRoutable: Bool {
        let bytes = bytes
        if isIPv4 { return Self.isPublicV4(bytes, at: 12) }                // ::ffff:0:0/96 holds IPv4
        if bytes[0] == 0xFF { return false }                              // ff00::/8 multicast
        if bytes[0] & 0xFE == 0xFC { return false }                       // fc00::/7 unique local
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0x80 { return false }   // fe80::/10 link-local
        if bytes[0] == 0xFE && bytes[1] & 0xC0 == 0xC0 { return false }   // fec0::/10 site-local
        if bytes[0...3] == [0x20, 0x01, 0x0D, 0xB8] { return false }      // 2001:db8::/32
        if bytes[0...3] == [0x20, 0x01, 0x00, 0x00] { return false }      // 2001::/32 Teredo
        if bytes[0...7] == [0x01, 0x00, 0, 0, 0, 0, 0, 0] { return false } // 100::/64 discard
        if bytes[0..<10].allSatisfy({ $0 == 0 }) { return false }         // ::/128, ::1, ::/96 (IPv4-compatible)
        // 64:ff9b:1::/48, RFC 8215: local-use translation, reaching whatever the local NAT64 maps it to.
        if bytes[0...5] == [0x00, 0x64, 0xFF, 0x9B, 0x00, 0x01] { return false }
        if bytes[0...11] == [0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0] { // 64:ff9b::/96 NAT64
            return Self.isPublicV4(bytes, at: 12)
        }
        if bytes[0] == 0x20 && bytes[1] == 0x02 { return Self.isPublicV4(bytes, at: 2) } // 2002::/16 6to4
        return true
    }

    /// Whether the IPv4 address in `bytes[offset..<offset + 4]` lies outside every blocked range.
    private static func isPublicV4(_ bytes: [UInt8], at offset: Int) -> Bool {
        let value = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) }
        return !blockedV4.contains { value & $0.mask == $0.network }
    }

    private struct Block: Sendable { let network: UInt32; let mask: UInt32 }

    private static func block(_ a: UInt32, _ b: UInt32, _ c: UInt32, _ d: UInt32, _ bits: UInt32) -> Block {
        let mask: UInt32 = bits == 0 ? 0 : ~UInt32(0) << (32 - bits)
        return Block(network: (a << 24 | b << 16 | c << 8 | d) & mask, mask: mask)
    }

    private static let blockedV4: [Block] = [
        block(0, 0, 0, 0, 8),        // "this network", unspecified
        block(10, 0, 0, 0, 8),       // RFC 1918
        block(100, 64, 0, 0, 10),    // RFC 6598 CGNAT
        block(127, 0, 0, 0, 8),      // loopback
        block(169, 254, 0, 0, 16),   // link-local
        block(172, 16, 0, 0, 12),    // RFC 1918
        block(192, 0, 0, 0, 24),     // IETF protocol assignments
        block(192, 0, 2, 0, 24),     // TEST-NET-1
        block(192, 88, 99, 0, 24),   // 6to4 relay anycast
        block(192, 168, 0, 0, 16),   // RFC 1918
        block(198, 18, 0, 0, 15),    // benchmarking
        block(198, 51, 100, 0, 24),  // TEST-NET-2
        block(203, 0, 113, 0, 24),   // TEST-NET-3
        block(224, 0, 0, 0, 4),      // multicast
        block(240, 0, 0, 0, 4),      // reserved, broadcast
    ]
}

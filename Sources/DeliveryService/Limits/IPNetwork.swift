import Basics

/// A CIDR block (`10.0.0.0/8`, `fd00::/8`, or a single address). IPv4 prefixes count within the
/// mapped form, so `10.0.0.0/8` is `::ffff:10.0.0.0/104` and never matches a native IPv6 address.
public struct IPNetwork: Sendable, Hashable {
    public let address: IPAddress
    /// Prefix length over the 128-bit form.
    public let prefixLength: Int

    public init?(_ text: Substring) {
        let trimmed = text.trimmingSpaces
        let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let address = IPAddress(parts[0]) else { return nil }
        let width = address.isIPv4 ? 32 : 128
        var prefix = width
        if parts.count == 2 {
            guard (1...3).contains(parts[1].count), parts[1].allSatisfy({ $0.isASCII && $0.isNumber }),
                  let value = Int(parts[1]), value <= width else { return nil }
            prefix = value
        }
        self.prefixLength = address.isIPv4 ? prefix + 96 : prefix
        self.address = address
    }

    public func contains(_ candidate: IPAddress) -> Bool {
        var remaining = prefixLength
        for index in 0..<16 where remaining > 0 {
            let bits = min(8, remaining)
            let mask = UInt8(truncatingIfNeeded: 0xff << (8 - bits))
            if address.bytes[index] & mask != candidate.bytes[index] & mask { return false }
            remaining -= bits
        }
        return true
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}

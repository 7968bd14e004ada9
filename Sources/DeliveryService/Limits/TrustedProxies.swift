import Basics

/// The reverse proxies whose X-Forwarded-For is believed (`TRUSTED_PROXIES`, comma-separated CIDRs).
public struct TrustedProxies: Sendable {
    public let networks: [IPNetwork]

    public init(_ networks: [IPNetwork] = []) { self.networks = networks }

    public enum ParseError: Error, Equatable { case invalidCIDR(String) }

    /// `10.0.0.0/8, 192.168.1.1, fd00::/8`; empty entries are ignored, a malformed one is an error.
    public init(parsing text: String) throws(ParseError) {
        var networks: [IPNetwork] = []
        for entry in text.split(separator: ",") where !entry.trimmingSpaces.isEmpty {
            guard let network = IPNetwork(entry) else { throw .invalidCIDR(String(entry.trimmingSpaces)) }
            networks.append(network)
        }
        self.networks = networks
    }

    public func isTrusted(_ address: IPAddress) -> Bool { networks.contains { $0.contains(address) } }

    /// The client's address: the direct peer, unless the peer is a trusted proxy; then the right-most
    /// X-Forwarded-For entry that is not itself trusted (entries left of it are client-supplied and
    /// cannot be believed). A malformed entry stops the walk at the trusted hop that forwarded it.
    public func clientAddress(peer: String, forwardedFor headers: [String]) -> String {
        guard !networks.isEmpty, let peerAddress = IPAddress(peer), isTrusted(peerAddress) else { return peer }
        var hop = peerAddress
        let entries = headers.flatMap { $0.split(separator: ",") }
        for entry in entries.reversed() {
            guard let address = IPAddress(entry.trimmingSpaces) else { return hop.description }
            if !isTrusted(address) { return address.description }
            hop = address
        }
        return hop.description
    }
}

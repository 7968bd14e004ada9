/// The parts of an absolute `http`/`https` URL the client needs (RFC 3986 §3). Deliberately narrow:
/// no user-info, no percent-encoded hosts, printable ASCII only, so nothing odd reaches the wire.
struct HTTPClientURL: Equatable, Sendable {
    enum Scheme: Sendable { case http, https }

    let scheme: Scheme
    /// Lower-cased host; an IPv6 literal without its brackets.
    let host: String
    let port: UInt16
    /// Path plus query, never empty, always starting with `/`.
    let target: String
    let hostIsIPv6Literal: Bool

    /// An IPv6 literal, or a dotted quad: getaddrinfo converts it without asking DNS, and TLS checks
    /// the certificate's IP addresses for it. Anything else getaddrinfo might read as IPv4 (`0x7f.1`,
    /// `127.1`) counts as a name.
    var hostIsIPLiteral: Bool { hostIsIPv6Literal || Self.isDottedQuad(host) }

    /// Four decimal parts of at most three digits, each ≤ 255.
    static func isDottedQuad(_ host: String) -> Bool {
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && $0.allSatisfy(\.isNumber) && Int($0)! <= 255 }
    }

    /// The `Host` header value (RFC 9110 §7.2): the port only when it is not the default.
    var hostHeader: String {
        let name = hostIsIPv6Literal ? "[\(host)]" : host
        let defaultPort: UInt16 = scheme == .https ? 443 : 80
        return port == defaultPort ? name : "\(name):\(port)"
    }

    init(_ string: String) throws(HTTPClientError) {
        guard string.utf8.count <= 8192,
              string.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F })
        else { throw .invalidURL("URL must be printable ASCII without spaces") }
        guard let schemeEnd = string.firstRange(of: "://") else { throw .invalidURL("missing scheme") }
        switch string[..<schemeEnd.lowerBound].lowercased() {
        case "http": scheme = .http
        case "https": scheme = .https
        default: throw .invalidURL("unsupported scheme")
        }
        let rest = string[schemeEnd.upperBound...]
        let delimiters: Set<Character> = ["/", "?", "#"]
        let authorityEnd = rest.firstIndex(where: delimiters.contains) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard !authority.contains("@") else { throw .invalidURL("user-info is not allowed") }

        var hostPart: Substring
        var portPart: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { throw .invalidURL("unclosed IPv6 literal") }
            hostPart = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw .invalidURL("junk after IPv6 literal") }
                portPart = after.dropFirst()
            }
            guard !hostPart.isEmpty, hostPart.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw .invalidURL("bad IPv6 literal")
            }
            hostIsIPv6Literal = true
        } else {
            if let colon = authority.firstIndex(of: ":") {
                hostPart = authority[..<colon]
                portPart = authority[authority.index(after: colon)...]
            } else {
                hostPart = authority
            }
            let allowed = hostPart.allSatisfy(Self.isHostCharacter)
            guard !hostPart.isEmpty, hostPart.count <= 253, allowed else { throw .invalidURL("bad host") }
            hostIsIPv6Literal = false
        }
        host = hostPart.lowercased()

        if let portPart {
            guard !portPart.isEmpty, portPart.count <= 5, portPart.allSatisfy(\.isNumber),
                  let value = UInt16(portPart), value != 0
            else { throw .invalidURL("bad port") }
            port = value
        } else {
            port = scheme == .https ? 443 : 80
        }

        // RFC 3986 §3.5: the fragment never goes on the wire.
        var path = rest[authorityEnd...]
        if let hash = path.firstIndex(of: "#") { path = path[..<hash] }
        if path.isEmpty {
            target = "/"
        } else if path.hasPrefix("?") {
            target = "/" + path
        } else {
            target = String(path)
        }
    }

    private static func isHostCharacter(_ character: Character) -> Bool {
        guard character.isASCII else { return false }
        return character.isLetter || character.isNumber || character == "." || character == "-" || character == "_"
    }
}

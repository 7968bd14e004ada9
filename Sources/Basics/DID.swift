/// A syntactically valid, bare AT Protocol DID: `did:plc` or `did:web` (AUTH.md check 6).
/// Validation is syntax only and never touches the network. It lives in the lowest module so that
/// the verifier (ATProto), the service and the store (DeliveryStore) pass the same type, never a String.
public struct DID: Hashable, Sendable, CustomStringConvertible {
    public enum Method: Sendable { case plc, web }

    /// atproto DID spec: at most 2 KiB.
    public static let maxLength = 2048

    public let rawValue: String
    public let method: Method

    public var description: String { rawValue }

    public init(_ string: String) throws(DIDSyntaxError) {
        let bytes = Array(string.utf8)
        guard !bytes.isEmpty, bytes.count <= Self.maxLength else { throw DIDSyntaxError("DID is empty or longer than \(Self.maxLength) bytes") }
        guard !bytes.contains(UInt8(ascii: "#")), !bytes.contains(UInt8(ascii: "?")) else {
            throw DIDSyntaxError("DID must be bare: no fragment or query")
        }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw DIDSyntaxError("DID must be printable ASCII") }
        if string.hasPrefix("did:plc:") {
            try Self.validatePLC(bytes.dropFirst(8))
            method = .plc
        } else if string.hasPrefix("did:web:") {
            _ = try Self.webHost(bytes.dropFirst(8))
            method = .web
        } else {
            throw DIDSyntaxError("DID method must be plc or web")
        }
        rawValue = string
    }

    /// For did:web: the host and, for localhost only, the port it names.
    public var webHostAndPort: (host: String, port: UInt16?)? {
        guard method == .web else { return nil }
        return try? Self.webHost(Array(rawValue.utf8).dropFirst(8))
    }

    // did:plc spec: 24 characters of lower-case base32 (RFC 4648 alphabet a-z, 2-7).
    private static func validatePLC(_ identifier: ArraySlice<UInt8>) throws(DIDSyntaxError) {
        guard identifier.count == 24,
              identifier.allSatisfy({ ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "2") && $0 <= UInt8(ascii: "7")) })
        else { throw DIDSyntaxError("did:plc identifier must be 24 base32 characters") }
    }

    // did:web spec §3.1, narrowed by atproto: a bare host name, no path; a %3A-encoded port only
    // for localhost (development).
    private static func webHost(_ identifier: ArraySlice<UInt8>) throws(DIDSyntaxError) -> (host: String, port: UInt16?) {
        var hostBytes = identifier
        var port: UInt16?
        if let percent = identifier.firstIndex(of: UInt8(ascii: "%")) {
            hostBytes = identifier[identifier.startIndex..<percent]
            let rest = identifier[percent...]
            guard rest.count > 3, rest.prefix(3).map({ $0 | 0x20 }) == Array("%3a".utf8) else {
                throw DIDSyntaxError("did:web may only percent-encode a port separator")
            }
            let digits = rest.dropFirst(3)
            guard digits.count <= 5, digits.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let value = UInt16(String(decoding: digits, as: UTF8.self)), value != 0
            else { throw DIDSyntaxError("did:web port is not a number") }
            guard String(decoding: hostBytes, as: UTF8.self).lowercased() == "localhost" else {
                throw DIDSyntaxError("did:web may carry a port only for localhost")
            }
            port = value
        }
        let host = String(decoding: hostBytes, as: UTF8.self)
        guard !hostBytes.isEmpty, hostBytes.count <= 253 else { throw DIDSyntaxError("did:web host is empty or too long") }
        let labels = hostBytes.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        for label in labels {
            guard !label.isEmpty, label.count <= 63,
                  label.first != UInt8(ascii: "-"), label.last != UInt8(ascii: "-"),
                  label.allSatisfy({ isAlphanumeric($0) || $0 == UInt8(ascii: "-") })
            else { throw DIDSyntaxError("did:web must name a bare host (no path, no IPv6, valid labels)") }
        }
        return (host.lowercased(), port)
    }

    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}

/// Why a text is not a bare did:plc or did:web; `reason` names the rule it breaks.
public struct DIDSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    public let reason: String

    init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}

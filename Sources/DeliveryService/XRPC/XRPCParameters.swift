/// Query parameters of an XRPC query (`?a=1&dids=x&dids=y`), percent-decoded, with typed accessors
/// that throw 400 InvalidRequest.
public struct XRPCParameters: Sendable {
    private var pairs: [(String, String)] = []

    public init(query: String) {
        for part in query.split(separator: "&", omittingEmptySubsequences: true) {
            let kv = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let key = Self.percentDecode(kv[0]) else { continue }
            let value = kv.count > 1 ? Self.percentDecode(kv[1]) : ""
            if let value { pairs.append((key, value)) }
        }
    }

    public func all(_ name: String) -> [String] { pairs.filter { $0.0 == name }.map(\.1) }

    /// The names given, each once, in first-seen order.
    public var names: [String] {
        var seen = Set<String>()
        return pairs.map(\.0).filter { seen.insert($0).inserted }
    }

    public func string(_ name: String) -> String? { pairs.first { $0.0 == name }?.1 }

    public func requiredString(_ name: String) throws(XRPCError) -> String {
        guard let value = string(name), !value.isEmpty else { throw .invalidRequest("missing parameter \(name)") }
        return value
    }

    public func int(_ name: String, in range: ClosedRange<Int>? = nil) throws(XRPCError) -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text) else { throw .invalidRequest("parameter \(name) must be an integer") }
        if let range, !range.contains(value) {
            throw .invalidRequest("parameter \(name) must be in \(range.lowerBound)...\(range.upperBound)")
        }
        return value
    }

    /// `limit` (1–100, default 50) as API.md fixes it for every list.
    public func limit(default value: Int = 50, max: Int = 100) throws(XRPCError) -> Int {
        try int("limit", in: 1...max) ?? value
    }

    /// RFC 3986 §2.1; `+` is a space as in form encoding. Nil on malformed escapes or bad UTF-8.
    static func percentDecode<S: StringProtocol>(_ text: S) -> String? {
        var bytes = [UInt8]()
        var iterator = text.utf8.makeIterator()
        while let c = iterator.next() {
            switch c {
            case UInt8(ascii: "%"):
                guard let h = iterator.next(), let l = iterator.next(), let hi = hexValue(h), let lo = hexValue(l) else { return nil }
                bytes.append(hi << 4 | lo)
            case UInt8(ascii: "+"): bytes.append(UInt8(ascii: " "))
            default: bytes.append(c)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x61...0x66: return c - 0x57
        case 0x41...0x46: return c - 0x37
        default: return nil
        }
    }
}

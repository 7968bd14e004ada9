/// The contract's `#bareDid`, stricter than AT Protocol's DID syntax: `did:plc:` and exactly 24
/// lowercase base32 characters, or a hostname-level `did:web` whose host is lowercase ASCII, 1-253
/// bytes, at least two dot-separated labels of 1-63 alphanumerics and inner hyphens, with a TLD that
/// does not start with a digit and is not a reserved or local one. No ports, paths or IP literals.
public enum BareDIDGrammar {
    static let reservedTLDs: Set<String> = ["alt", "arpa", "example", "internal", "invalid", "local", "localhost", "onion", "test"]

    public static func accepts(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard (12...261).contains(bytes.count) else { return false }
        if text.hasPrefix("did:plc:") {
            let id = bytes.dropFirst(8)
            return id.count == 24 && id.allSatisfy { (0x61...0x7A).contains($0) || (0x32...0x37).contains($0) }
        }
        guard text.hasPrefix("did:web:") else { return false }
        let host = bytes.dropFirst(8)
        guard (1...253).contains(host.count) else { return false }
        let labels = host.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        for label in labels {
            guard (1...63).contains(label.count),
                  label.allSatisfy({ isAlnum($0) || $0 == UInt8(ascii: "-") }),
                  isAlnum(label.first!), isAlnum(label.last!) else { return false }
        }
        let tld = labels.last!
        guard !(0x30...0x39).contains(tld.first!) else { return false }
        return !reservedTLDs.contains(String(decoding: tld, as: UTF8.self))
    }

    private static func isAlnum(_ byte: UInt8) -> Bool { (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) }
}

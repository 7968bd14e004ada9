import DeliveryStore
import Foundation
import Lexicon

extension StorageProviderView {
    /// Bounds on what a registration may carry; the service only stores and repeats it.
    static let maxEndpointBytes = 512
    static let maxConfigEntries = 32
    static let maxConfigKeyBytes = 64
    static let maxConfigValueBytes = 1024
    static let maxConfigBytes = 4096

    init(_ provider: StorageProvider) {
        self.init(type: provider.type.rawValue, endpoint: provider.endpoint,
                  config: provider.config.isEmpty ? nil : provider.config)
    }

    /// The validated provider: a known type, an https endpoint (required for s3), and a small flat
    /// config whose keys are identifiers. Failures are 400 InvalidRequest naming the field.
    func validated() throws(XRPCError) -> StorageProvider {
        guard let kind = StorageProviderType(rawValue: type) else {
            let known = StorageProviderType.allCases.map(\.rawValue).joined(separator: ", ")
            throw .invalidRequest("provider.type must be one of \(known)")
        }
        if let endpoint {
            try Self.checkEndpoint(endpoint)
        } else if kind == .s3 {
            throw .invalidRequest("provider.endpoint is required for s3")
        }
        let config = config ?? [:]
        guard config.count <= Self.maxConfigEntries else {
            throw .invalidRequest("provider.config has more than \(Self.maxConfigEntries) entries")
        }
        var total = 2
        for (key, value) in config {
            guard (1...Self.maxConfigKeyBytes).contains(key.utf8.count), key.utf8.allSatisfy(Self.isKeyByte) else {
                throw .invalidRequest("provider.config keys are 1-\(Self.maxConfigKeyBytes) characters of A-Z a-z 0-9 . _ -")
            }
            guard value.utf8.count <= Self.maxConfigValueBytes else {
                throw .invalidRequest("provider.config.\(key) is longer than \(Self.maxConfigValueBytes) bytes")
            }
            total += key.utf8.count + value.utf8.count + 6
        }
        guard total <= Self.maxConfigBytes else {
            throw .invalidRequest("provider.config is larger than \(Self.maxConfigBytes) bytes")
        }
        return StorageProvider(type: kind, endpoint: endpoint, config: config)
    }

    /// An absolute https URL with a host, without credentials.
    static func checkEndpoint(_ text: String) throws(XRPCError) {
        guard (1...maxEndpointBytes).contains(text.utf8.count) else {
            throw .invalidRequest("provider.endpoint must be 1-\(maxEndpointBytes) bytes")
        }
        guard let url = URLComponents(string: text), url.scheme?.lowercased() == "https",
              let host = url.host, !host.isEmpty, url.user == nil, url.password == nil else {
            throw .invalidRequest("provider.endpoint must be an https URL")
        }
    }

    private static func isKeyByte(_ c: UInt8) -> Bool {
        switch c {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"):
            return true
        default:
            return false
        }
    }
}

extension StorageRegistrationView {
    init(_ registration: StorageRegistration) {
        self.init(provider: StorageProviderView(registration.provider), registeredAt: Timestamp.rfc3339(registration.registeredAt))
    }
}

import Foundation
import MLS
import Primitives
import TestSupport
import XCTest

/// A chat participant for integration tests: an atproto identity for tokens, an MLS signing key
/// and BasicCredential naming the DID, KeyPackage bundles it published, and its `Group` per convo.
final class MLSTestUser {
    static let defaultSuite = CipherSuite(rawValue: 1)!

    let suite: CipherSuite
    let identity: TestIdentity
    let signingKey: SignaturePrivateKey
    var bundles: [[UInt8]: KeyPackageBundle] = [:]
    var groups: [String: Group] = [:]
    /// The last seq each convo was read up to.
    var readSeq: [String: Int] = [:]

    init(_ identity: TestIdentity, suite: CipherSuite = defaultSuite) {
        self.identity = identity
        self.suite = suite
        signingKey = try! suite.signatureScheme.generatePrivateKey()
    }

    var did: String { identity.did.rawValue }
    var credential: Credential { .basic(identity: Array(did.utf8)) }

    func makeKeyPackage(credential: Credential? = nil, extensions: [Extension] = []) throws -> KeyPackageBundle {
        let now = UInt64(Date().timeIntervalSince1970)
        let bundle = try KeyPackageBundle.generate(suite: suite, credential: credential ?? self.credential,
                                                   signingKey: signingKey,
                                                   lifetime: Lifetime(notBefore: now - 3600, notAfter: now + 30 * 86_400),
                                                   extensions: extensions)
        bundles[bundle.ref] = bundle
        return bundle
    }

    static func bytes(_ message: MLSMessage) -> [String: String] {
        ["$bytes": Base64Test.encode(message.encoded())]
    }
}

/// Standard base64 without padding, as the AT Protocol data model writes `$bytes`.
enum Base64Test {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ value: Any?) -> [UInt8]? {
        guard let object = value as? [String: Any], var text = object["$bytes"] as? String else { return nil }
        while text.count % 4 != 0 { text += "=" }
        return Data(base64Encoded: text).map(Array.init)
    }
}

/// Monotonic ULID-shaped message ids (26 Crockford base32 characters).
enum MessageID {
    nonisolated(unsafe) private static var counter = 0
    private static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")

    static func next() -> String {
        counter += 1
        var value = UInt64(Date().timeIntervalSince1970 * 1000) << 16 | UInt64(counter & 0xffff)
        var out = [Character](repeating: "0", count: 26)
        for index in stride(from: 25, through: 0, by: -1) {
            out[index] = alphabet[Int(value & 31)]
            value >>= 5
        }
        return String(out)
    }
}

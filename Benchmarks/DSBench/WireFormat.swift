import Basics
import Foundation
import MLS

/// How MLS objects and ids travel in the JSON bodies (API.md).
enum WireFormat {
    /// `$bytes`: standard base64 without padding, as the AT Protocol data model writes it.
    static func bytes(_ message: MLSMessage) -> [String: String] {
        ["$bytes": base64(message.encoded())]
    }

    static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "=", with: "")
    }

    static func hex(_ bytes: [UInt8]) -> String { Hex.encode(bytes) }

    static func publishKeyPackageBody(_ bundle: KeyPackageBundle) -> [String: Any] {
        ["keyPackage": bytes(MLSMessage(body: .keyPackage(bundle.keyPackage))), "cipherSuite": BenchUser.suiteName]
    }

    /// createConvo's input for a new group: its GroupInfo, and the initial commit and Welcome when
    /// it adds members.
    static func createConvoBody(groupID: [UInt8], groupInfo: GroupInfo, commit: MLSMessage? = nil, welcome: MLSMessage? = nil,
                                name: String? = nil) -> [String: Any] {
        var body: [String: Any] = ["groupId": hex(groupID), "cipherSuite": BenchUser.suiteName,
                                   "groupInfo": bytes(MLSMessage(body: .groupInfo(groupInfo)))]
        if let commit { body["commit"] = bytes(commit) }
        if let welcome { body["welcomeMessage"] = bytes(welcome) }
        if let name { body["metadata"] = ["name": name] }
        return body
    }

    /// `$bytes` of a KeyPackage as getKeyPackages serves it (an MLSMessage or a bare KeyPackage).
    static func keyPackage(_ value: Any?) -> KeyPackage? {
        guard let object = value as? [String: Any], let text = object["$bytes"] as? String,
              let bytes = Base64.decode(text) else { return nil }
        return try? KeyPackage.decodePublished(bytes).keyPackage
    }

    /// A JSON text with no spaces or newlines, so it fits one field of a data line.
    static func compactJSON(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }
}

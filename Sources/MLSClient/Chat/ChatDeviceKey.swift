import ATProto
import Basics
import ChatProtocol
import Foundation
import MLS
import Primitives

/// A chat device as its owner holds it (CHAT.md §4): the account's DID, a UUIDv4 of its own and an
/// Ed25519 key, which signs its requests and is also the signature key of every MLS leaf it has.
public struct ChatDeviceKey: Sendable {
    public let did: DID
    public let deviceID: ChatUUID
    public let key: Ed25519PrivateKey

    public init(did: DID, deviceID: ChatUUID = .random(), key: Ed25519PrivateKey? = nil) throws {
        self.did = did
        self.deviceID = deviceID
        self.key = try key ?? Ed25519PrivateKey.generate()
    }

    public var publicKey: [UInt8] { key.publicKey.bytes }
    public var keyID: String { ChatKeyID.of(publicKey: publicKey) }
    /// The MLS BasicCredential identity: exactly `did#deviceId`.
    public var credential: Credential { .basic(identity: Array("\(did.rawValue)#\(deviceID)".utf8)) }
    public var signingKey: SignaturePrivateKey { try! SignaturePrivateKey(scheme: .ed25519, bytes: key.seed) }

    // MARK: Files (the CLI keeps one per user directory)

    struct File: Codable {
        var did: String
        var deviceId: String
        var seed: String
    }

    public func save(to path: String) throws {
        let file = File(did: did.rawValue, deviceId: deviceID.description, seed: Hex.encode(key.seed))
        let data = try JSONEncoder().encode(file)
        guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw MLSClientError.storage("cannot write \(path)")
        }
    }

    public static func load(from path: String) throws -> ChatDeviceKey {
        let file = try JSONDecoder().decode(File.self, from: try Data(contentsOf: URL(fileURLWithPath: path)))
        guard let deviceID = ChatUUID(file.deviceId), let seed = Hex.decode(file.seed) else {
            throw MLSClientError.storage("\(path) is not a chat device file")
        }
        return try ChatDeviceKey(did: try DID(file.did), deviceID: deviceID, key: try Ed25519PrivateKey(seed: seed))
    }
}

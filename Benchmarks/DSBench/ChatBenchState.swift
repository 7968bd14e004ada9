import ATProto
import Basics
import ChatProtocol
import Foundation
import MLSClient
import Primitives

/// What `chat-prepare` leaves for `chat-load` in its state folder: each user's DID and token key
/// (`users.json`), each device's key (`<n>.device`, `ChatDeviceKey`'s file) and client state
/// (`<n>.state`, `ChatClientState`: its groups with their ratchets, so that no generation is
/// encrypted twice across runs), the conversations and the message text's length. It holds
/// private keys: a throwaway folder of the bench's.
struct ChatBenchState {
    struct Saved: Codable {
        struct User: Codable {
            var did: String
            /// The secp256k1 scalar that signs the user's service-auth tokens, hex.
            var tokenKey: String
        }

        var users: [User]
        var conversations: [String]
        /// The text whose PrivateMessage is the requested ciphertext size.
        var textSize: Int
    }

    let directory: String
    var users: [BenchUser]
    var devices: [ChatDeviceKey]
    var states: [ChatClientState]
    var conversations: [ChatUUID]
    var textSize: Int

    private static func file(_ directory: String, _ name: String) -> URL {
        URL(fileURLWithPath: directory).appendingPathComponent(name)
    }

    func save() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let saved = Saved(users: users.map { Saved.User(did: $0.did.rawValue, tokenKey: Hex.encode($0.key.scalar)) },
                          conversations: conversations.map(\.description), textSize: textSize)
        try JSONEncoder().encode(saved).write(to: Self.file(directory, "users.json"), options: .atomic)
        for index in devices.indices {
            let device = Self.file(directory, "\(index).device")
            if !FileManager.default.fileExists(atPath: device.path) { try devices[index].save(to: device.path) }
            try states[index].save(to: Self.file(directory, "\(index).state"))
        }
    }

    static func load(from directory: String) throws -> ChatBenchState {
        let saved = try JSONDecoder().decode(Saved.self, from: Data(contentsOf: file(directory, "users.json")))
        let users = try saved.users.map { user in
            guard let scalar = Hex.decode(user.tokenKey) else { throw BenchError.unexpected("\(directory): a token key is not hex") }
            return try BenchUser(did: try DID(user.did), key: try ECDSAPrivateKey(curve: .secp256k1, scalar: scalar))
        }
        let devices = try users.indices.map { try ChatDeviceKey.load(from: file(directory, "\($0).device").path) }
        let states = try users.indices.map { index in
            guard let state = try ChatClientState.load(from: file(directory, "\(index).state")) else {
                throw BenchError.unexpected("\(directory): no state of device \(index)")
            }
            return state
        }
        let conversations = try saved.conversations.map { text in
            guard let id = ChatUUID(text) else { throw BenchError.unexpected("\(directory): \(text) is not a UUID") }
            return id
        }
        return ChatBenchState(directory: directory, users: users, devices: devices, states: states, conversations: conversations,
                              textSize: saved.textSize)
    }
}

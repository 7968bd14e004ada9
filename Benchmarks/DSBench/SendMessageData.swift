import Foundation
import MLS

/// The sendMessage load: `senders` users who are all members of `convos` conversations created with
/// real MLS groups over the API, one real PrivateMessage of about `ciphertextSize` bytes per
/// (sender, conversation), and pre-minted tokens with fresh msgIds, because the server refuses a
/// replayed (iss, jti) and deduplicates msgIds.
struct SendMessageData {
    static let nsid = "blue.catbird.mls.sendMessage"

    let client: XRPCClient
    let plcDirectory: String
    let senders: Int
    let convos: Int
    let ciphertextSize: Int

    struct Conversations {
        let users: [BenchUser]
        let convoIDs: [String]
        /// Body prefixes (everything up to the msgId value), index `sender * convos + convo`.
        let bodies: [String]
        let ciphertextSizes: [Int]
    }

    /// Creates the users and conversations and encrypts one message per (sender, conversation).
    func setUp() throws -> Conversations {
        let users = try (0..<senders).map { _ in try BenchUser() }
        for user in users { try PLCDirectory.publish(user, in: plcDirectory) }
        var groups: [[Group]] = []
        var convoIDs: [String] = []
        for convo in 0..<convos {
            let (id, members) = try createConvo(creator: convo % senders, users: users)
            convoIDs.append(id)
            groups.append(members)
        }
        let plaintextSize = try plaintextSize(probing: &groups[0][0])
        var bodies: [String] = []
        var sizes: [Int] = []
        for sender in 0..<senders {
            for convo in 0..<convos {
                let plaintext = Array(String(repeating: "bench message ", count: plaintextSize / 14 + 1).utf8.prefix(plaintextSize))
                let ciphertext = try groups[convo][sender].encrypt(Array(plaintext)).encoded()
                sizes.append(ciphertext.count)
                bodies.append("{\"convoId\":\"\(convoIDs[convo])\",\"epoch\":\(groups[convo][sender].epoch),"
                    + "\"ciphertext\":{\"$bytes\":\"\(WireFormat.base64(ciphertext))\"},\"msgId\":\"")
            }
        }
        return Conversations(users: users, convoIDs: convoIDs, bodies: bodies, ciphertextSizes: sizes)
    }

    /// `users[creator]` creates a group with everyone else (each publishes a KeyPackage first) and
    /// the conversation; the others join from the Welcome. Returns the convo id and every member's
    /// group, indexed like `users`.
    func createConvo(creator: Int, users: [BenchUser]) throws -> (String, [Group]) {
        var bundles: [Int: KeyPackageBundle] = [:]
        for index in users.indices where index != creator {
            let bundle = try users[index].makeKeyPackage()
            try client.publish(bundle, as: users[index])
            bundles[index] = bundle
        }
        let owner = users[creator]
        let group = try Group.create(suite: BenchUser.suite, credential: owner.credential, signingKey: owner.signingKey)
        // Without a path: the service verifies the initial commit against the one-member epoch 0.
        let output = try group.add(keyPackages: bundles.keys.sorted().map { bundles[$0]!.keyPackage }, includePath: false)
        guard let welcome = output.welcome else { throw BenchError.unexpected("an add produced no Welcome") }
        let reply = try client.call("blue.catbird.mls.createConvo", as: owner, json: WireFormat.createConvoBody(
            groupID: group.groupID, groupInfo: output.groupInfo, commit: output.commit, welcome: welcome, name: "bench"))
        guard let convoID = reply["id"] as? String else { throw BenchError.unexpected("createConvo returned no id") }
        let members = try users.indices.map { index in
            index == creator ? output.group : try Group.join(welcome: welcome, keyPackage: bundles[index]!)
        }
        return (convoID, members)
    }

    /// The plaintext length whose PrivateMessage is `ciphertextSize` bytes: the framing overhead is
    /// fixed for a suite, so one probe finds it.
    func plaintextSize(probing group: inout Group) throws -> Int {
        let probe = 512
        let size = try group.encrypt([UInt8](repeating: 0x61, count: probe)).encoded().count
        return max(1, probe + ciphertextSize - size)
    }

    /// Writes `count` requests, one line each: `<body index, 1-based> <msgId> <token>`, spread
    /// round-robin over the senders and the first `usingConvos` conversations.
    func writeLoad(_ conversations: Conversations, usingConvos: Int, count: Int, idOffset: Int, ids: MessageIDs,
                   to path: String) throws {
        let users = conversations.users
        let audience = client.audience
        let senders = senders, convos = convos
        let lines = try Parallel.map(count) { index in
            let sender = index % senders
            let convo = (index / senders) % usingConvos
            let token = try users[sender].token(audience: audience, nsid: Self.nsid)
            return "\(sender * convos + convo + 1) \(ids.id(idOffset + index)) \(token)\n"
        }
        try Data(lines.joined().utf8).write(to: URL(fileURLWithPath: path))
    }

    /// One body prefix per line, in index order.
    static func writeBodies(_ conversations: Conversations, to path: String) throws {
        try Data(conversations.bodies.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path))
    }
}

import ChatProtocol
import Foundation
import MLSClient

/// The chat contract's sendMessage load (docs/chat.md) in the shapes of v1's (`SendMessageData`):
/// `senders` users with one enrolled device each, every device a leaf of each of `convos` group
/// conversations on the contract's X-Wing suite (created, accepted, fulfilled and joined through
/// `ChatClient`, as the app does it), and one warm-up message per device, so that the service has
/// seen every device's key. A chat token lives at most 60 s (exp − iat) and a body's `signedAt`
/// at most 300 s, so `setUp` (chat-prepare) saves the devices, and `writeLoad` (chat-load) signs a
/// run's requests right before it: bodies first, tokens last.
struct ChatSendData {
    static let nsid = ChatAPI.nsid("sendMessage")

    let server: String
    /// The chat contract's audience: `SERVICE_DID#atproto_mls`.
    let audience: String

    init(server: String, serviceDID: String) {
        self.server = server
        audience = ChatAPI.audience(serviceDID: serviceDID)
    }

    /// A device of `user` calling the service with a fresh 60 s token per call.
    func client(_ user: BenchUser, device: ChatDeviceKey) -> ChatClient {
        let audience = audience
        let api = ChatAPI(client: MLSAPIClient(configuration: .init(baseURL: server, serviceDID: audience), tokenProvider: nil)) { nsid in
            try user.token(audience: audience, nsid: nsid, expiresIn: 60)
        }
        return ChatClient(device: device, api: api)
    }

    func client(_ state: ChatBenchState, _ index: Int) throws -> ChatClient {
        let client = client(state.users[index], device: state.devices[index])
        try state.states[index].restore(into: client)
        return client
    }

    /// Creates the users, devices and conversations, and sends each device's warm-up message.
    func setUp(senders: Int, convos: Int, ciphertextSize: Int, plcDirectory: String, stateDirectory: String) throws -> ChatBenchState {
        let users = try (0..<senders).map { _ in try BenchUser() }
        for user in users { try PLCDirectory.publish(user, in: plcDirectory) }
        let devices = try users.map { user in
            let device = client(user, device: try ChatDeviceKey(did: user.did))
            // One KeyPackage per invitation it accepts, reserved by the service until its add.
            try device.enroll(name: "ds-bench", packages: convos + 1)
            return device
        }
        var conversations: [ChatUUID] = []
        for convo in 0..<convos {
            let creator = devices[convo % senders]
            let invitees = devices.indices.filter { $0 != convo % senders }
            let (id, _) = try creator.create(inviting: invitees.map { users[$0].did.rawValue }, title: "bench")
            for invitee in invitees { try creator.fulfil(try devices[invitee].accept(id)) }
            conversations.append(id)
        }
        for device in devices {
            for welcome in try device.inventory().welcomes { try device.join(welcome) }
            for id in conversations { try device.sync(id) }
        }
        // The warm-up messages, the first one probing the frame's overhead: it is fixed for a suite.
        let coordinates = try devices[0].coordinates(conversations[0])
        let probe = 512
        var textSize = 0
        for device in devices {
            let request = try device.seal(String(repeating: "a", count: probe), in: conversations[0], at: coordinates)
            try device.api.signed("sendMessage", request)
            if textSize == 0, let bytes = request.body["applicationMessage"]?["bytes"]?.bytes {
                textSize = max(1, probe + ciphertextSize - bytes.count)
            }
        }
        return ChatBenchState(directory: stateDirectory, users: users, devices: devices.map(\.device),
                              states: devices.map { ChatClientState(of: $0) }, conversations: conversations, textSize: textSize)
    }

    /// What `writeLoad` wrote: how many requests, the earliest `iat` of their tokens, how long
    /// signing took.
    struct Load {
        var requests: Int
        var issuedAt: Date
        var sealSeconds: Double
        var tokenSeconds: Double
        var bytes: Int
    }

    /// Writes up to `count` requests for wrk's publish mode, one line each: `<token> <JSON body>`,
    /// spread round-robin over the senders and the first `usingConvos` conversations, as v1's are.
    /// Each is its own message: a fresh messageId, PrivateMessage, signature and token. Bodies are
    /// sealed first (`signedAt` allows 300 s), tokens last, in rounds, and no round starts that
    /// would end after `mintSeconds`: the first token must still be alive when the run starts, so
    /// a slow box writes fewer lines (and a run that uses them up says so) rather than stale ones.
    /// Updates `state`'s groups (their ratchets moved on).
    func writeLoad(_ state: inout ChatBenchState, usingConvos: Int, count: Int, mintSeconds: Double, to path: String) throws -> Load {
        let senders = state.users.count
        guard usingConvos <= state.conversations.count else {
            throw BenchError.usage("--convos \(usingConvos): only \(state.conversations.count) conversations were prepared")
        }
        let reader = try client(state, 0)
        let conversations = Array(state.conversations.prefix(usingConvos))
        let coordinates = try conversations.map { try reader.coordinates($0) }
        let text = String(String(repeating: "bench message ", count: state.textSize / 14 + 1).prefix(state.textSize))
        let sealing = Stopwatch()
        let snapshot = state
        let sealed = try Parallel.map(senders) { sender in
            let device = try client(snapshot, sender)
            var bodies: [[UInt8]] = []
            for index in stride(from: sender, to: count, by: senders) {
                let convo = (index / senders) % usingConvos
                let request = try device.seal(text, in: conversations[convo], at: coordinates[convo])
                bodies.append(ChatJSON.render(request.input(for: Self.nsid)))
            }
            return (bodies, ChatClientState(of: device))
        }
        state.states = sealed.map(\.1)
        try state.save()
        let sealSeconds = sealing.seconds

        let minting = Stopwatch()
        let issuedAt = Date(timeIntervalSince1970: Date().timeIntervalSince1970.rounded(.down))
        let users = state.users, audience = audience
        let round = 4096
        var tokens: [[UInt8]] = []
        while tokens.count < count {
            let elapsed = minting.seconds
            if !tokens.isEmpty, elapsed + elapsed / Double(tokens.count) * Double(round) > mintSeconds { break }
            let first = tokens.count
            tokens += try Parallel.map(min(round, count - first)) { offset in
                Array(try users[(first + offset) % senders].token(audience: audience, nsid: Self.nsid, expiresIn: 60).utf8)
            }
        }
        let tokenSeconds = minting.seconds
        var out: [UInt8] = []
        out.reserveCapacity(tokens.count * (tokens[0].count + sealed[0].0[0].count + 2))
        for index in tokens.indices {
            out += tokens[index]
            out.append(UInt8(ascii: " "))
            out += sealed[index % senders].0[index / senders]
            out.append(UInt8(ascii: "\n"))
        }
        try Data(out).write(to: URL(fileURLWithPath: path))
        return Load(requests: tokens.count, issuedAt: issuedAt, sealSeconds: sealSeconds, tokenSeconds: tokenSeconds, bytes: out.count)
    }
}

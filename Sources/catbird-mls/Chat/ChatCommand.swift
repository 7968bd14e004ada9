import ArgumentParser
import Basics
import ChatProtocol
import Foundation
import MLSClient

/// `chat`: the `blue.catbird.chat.*` contract (docs/chat.md), the one the Catbird app calls.
struct Chat: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The chat contract (blue.catbird.chat.*): devices, conversations, messages, photos, typing, leaving, roles, title, reset, close, events.",
        discussion: """
        A user (init) may hold several chat devices in --dir, each named by --device: its Ed25519 key in \
        DIR/chat/NAME/device.json and its MLS state in DIR/chat/NAME/state.json (0600), saved after every \
        command. CHAT_CAPTURE=FILE appends every request, response, signed body and event to FILE for \
        scripts/chat-checks.sh.
        """,
        subcommands: [
            ChatEnroll.self, ChatDevices.self, ChatRevoke.self, ChatCreate.self, ChatAccept.self, ChatRequestLeaf.self,
            ChatFulfil.self, ChatJoin.self, ChatSend.self, ChatRead.self, ChatWatch.self, ChatState.self, ChatList.self,
            ChatLeave.self, ChatCancelLeave.self, ChatFulfilLeave.self, ChatRemoveDevice.self, ChatInvite.self, ChatUninvite.self,
            ChatPromote.self, ChatDemote.self, ChatRename.self, ChatRequestReset.self, ChatActivateReset.self, ChatClose.self,
            ChatSendImage.self, ChatGetBlob.self, ChatSetAvatar.self, ChatAvatar.self, ChatTyping.self, ChatEntries.self,
        ])
}

/// Options of every `chat` command: the user's, and which of the user's devices acts.
struct ChatOptions: ParsableArguments {
    @OptionGroup var global: GlobalOptions

    @Option(help: "This user's chat device to act as: a name of your choosing (letters, digits, - and _).")
    var device: String = "default"

    func validate() throws {
        // The name is a folder's: nothing that could leave DIR/chat.
        let allowed = { (c: UInt8) in c == 0x2D || c == 0x5F || (0x30...0x39).contains(c) || (0x41...0x5A).contains(c) || (0x61...0x7A).contains(c) }
        guard (1...64).contains(device.utf8.count), device.utf8.allSatisfy(allowed) else {
            throw ValidationError("--device is 1 to 64 letters, digits, - or _")
        }
        try global.requireXRPC("chat")
    }

    var folder: URL { global.directory.appendingPathComponent("chat").appendingPathComponent(device) }
    var keyFile: URL { folder.appendingPathComponent("device.json") }
    var stateFile: URL { folder.appendingPathComponent("state.json") }

    /// Runs `body` with this device's client, its state restored. The state is saved afterwards even
    /// when `body` fails: a message encrypted and then refused has used its ratchet generation.
    /// `create` makes the device key when there is none; `save: false` leaves the state file alone
    /// (for a command that changes nothing and may run beside others, such as `watch`).
    func withClient<T>(create: Bool = false, save: Bool = true, _ body: (ChatClient) throws -> T) throws -> T {
        let identity = try global.store.loadIdentity()
        let lock = save ? try ChatDeviceLock(folder: folder) : nil
        defer { lock?.release() }
        let fresh = !FileManager.default.fileExists(atPath: keyFile.path)
        if fresh, !create {
            throw MLSClientError.invalidArgument("no chat device \(device) in \(global.directory.path): run `catbird-mls chat enroll` first")
        }
        let key: ChatDeviceKey
        if fresh {
            key = try ChatDeviceKey(did: try DID(identity.did))
            try key.save(to: keyFile.path)
        } else {
            key = try ChatDeviceKey.load(from: keyFile.path)
            guard key.did.rawValue == identity.did else {
                throw MLSClientError.invalidArgument("chat device \(device) belongs to \(key.did), not to this directory's \(identity.did)")
            }
        }
        let capture = ProcessInfo.processInfo.environment["CHAT_CAPTURE"].flatMap { $0.isEmpty ? nil : ChatCapture(path: $0, append: true) }
        let api = try ChatAPI(identity: identity, baseURL: global.server, serviceDID: global.serviceDID, capture: capture)
        let client = ChatClient(device: key, api: api)
        try ChatClientState.load(from: stateFile)?.restore(into: client)
        let result = Result { try body(client) }
        if save { try ChatClientState(of: client).save(to: stateFile) }
        return try result.get()
    }

    func progress(_ line: String) {
        if !global.quiet { Output.progress(line) }
    }

    /// A conversation id argument.
    static func conversation(_ text: String) throws -> ChatUUID {
        guard let id = ChatUUID(text) else { throw ValidationError("not a conversation id (a lowercase UUID): \(text)") }
        return id
    }

    /// The conversations `client` holds a leaf in whose interval has not ended (or just `only`).
    static func held(_ client: ChatClient, only: ChatUUID?) -> [ChatUUID] {
        client.conversations.filter { $0.value.ended == nil && (only == nil || only == $0.key) }.keys.sorted()
    }

    /// Fulfils each request with `act`, printing "DONE WHAT (seq N)" or "could not FAILED WHAT: why";
    /// returns how many failed (the command then fails).
    static func fulfilEach(_ requests: [ChatValue], none: String, done: String, failed: String,
                           describe: (ChatValue) -> String, _ act: (ChatValue) throws -> ChatValue) -> Int {
        if requests.isEmpty { Output.line(none) }
        var failures = 0
        for request in requests {
            do {
                let output = try act(request)
                Output.line("\(done) \(describe(request)) (seq \(output["entry"]?["seq"]?.integer ?? 0))")
            } catch {
                failures += 1
                Output.line("could not \(failed) \(describe(request)): \(error)")
            }
        }
        return failures
    }

    /// A value as the contract's JSON, for --json.
    static func json(_ value: ChatValue) -> String { String(decoding: ChatJSON.render(value), as: UTF8.self) }
}

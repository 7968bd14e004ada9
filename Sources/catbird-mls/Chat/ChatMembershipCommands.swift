import ArgumentParser
import ChatProtocol
import MLSClient

/// `chat create` (createConversation).
struct ChatCreate: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Create a conversation holding this device's leaf; print its id.",
        discussion: "Invitees are pending until they accept; a member's device then adds them (chat fulfil).")

    @OptionGroup var options: ChatOptions

    @Option(parsing: .upToNextOption, help: "DIDs to invite.")
    var invite: [String] = []

    @Flag(help: "A direct conversation with the one invitee (one per pair of accounts).")
    var direct = false

    @Option(help: "The conversation's title, encrypted for its members.")
    var title: String = ""

    func validate() throws {
        if direct, invite.count != 1 { throw ValidationError("--direct invites exactly one DID") }
    }

    func run() throws {
        let (id, result) = try options.withClient { try $0.create(inviting: invite, direct: direct, title: title) }
        if options.global.json { Output.line(ChatOptions.json(result)) } else { Output.line(id.description) }
    }
}

/// `chat accept` (acceptConversation).
struct ChatAccept: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accept", abstract: "Accept an invitation: one of this device's KeyPackages is reserved for a member to add it.")

    @OptionGroup var options: ChatOptions

    @Argument(help: "Conversation id.")
    var convo: String

    func run() throws {
        let id = try ChatOptions.conversation(convo)
        let recovery = try options.withClient { try $0.accept(id) }
        ChatRecoveryOutput.print(recovery, options: options)
    }
}

/// `chat request-leaf` (requestLeafRecovery, kind add or replace).
struct ChatRequestLeaf: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request-leaf",
        abstract: "Ask for a leaf in a conversation this account takes part in (a new device, or every device after a reset).",
        discussion: "With --replace, a device that holds a leaf it can no longer use asks for a new one in its place.")

    @OptionGroup var options: ChatOptions

    @Argument(help: "Conversation id.")
    var convo: String

    @Flag(help: "Replace this device's current leaf (kind replace) rather than add one.")
    var replace = false

    func run() throws {
        let id = try ChatOptions.conversation(convo)
        let recovery = try options.withClient { try $0.requestLeaf(id, kind: replace ? .replace : .add) }
        ChatRecoveryOutput.print(recovery, options: options)
    }
}

enum ChatRecoveryOutput {
    static func print(_ recovery: ChatValue, options: ChatOptions) {
        if options.global.json { Output.line(ChatOptions.json(recovery)); return }
        Output.line("recovery \(recovery["recoveryRequestId"]?.uuid?.description ?? "?") \(recovery["status"]?.text ?? "?")")
    }
}

/// `chat fulfil` (submitTransition with a leafRecoveryFulfillment).
struct ChatFulfil: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fulfil",
        abstract: "Add every device whose open recovery request is in this device's inbox, in conversations it holds a leaf in.")

    @OptionGroup var options: ChatOptions

    @Argument(help: "Only this conversation.")
    var convo: String?

    func run() throws {
        let only = try convo.map(ChatOptions.conversation)
        let failures = try options.withClient { client in
            let open = try client.inventory().recoveries.filter { recovery in
                guard recovery["status"]?.text == "open", let id = recovery["conversationId"]?.uuid else { return false }
                return ChatOptions.held(client, only: only).contains(id)
                    && recovery["requesterDeviceId"]?.uuid != client.device.deviceID
            }
            return ChatOptions.fulfilEach(open, none: "no open recovery request", done: "added", failed: "add", describe: { recovery in
                "\(recovery["requesterDid"]?.text ?? "?") device \(recovery["requesterDeviceId"]?.uuid?.description ?? "?") "
                    + "to \(recovery["conversationId"]?.uuid?.description ?? "?")"
            }, client.fulfil)
        }
        if failures > 0 { throw ExitCode.failure }
    }
}

/// `chat join` (getPendingWelcomes, then acknowledgeWelcome).
struct ChatJoin: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "join", abstract: "Join every conversation whose Welcome waits for this device, and acknowledge it.")

    @OptionGroup var options: ChatOptions

    func run() throws {
        let joined = try options.withClient { client in
            try client.inventory().welcomes.filter { $0["status"]?.text == "pending" }.map { welcome in
                let id = try client.join(welcome)
                return (id, client.conversations[id]?.group.epoch ?? 0)
            }
        }
        if joined.isEmpty { Output.line("no pending Welcome") }
        for (id, epoch) in joined { Output.line("joined \(id) at epoch \(epoch)") }
    }
}

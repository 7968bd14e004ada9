import ArgumentParser
import ChatProtocol
import MLSClient

/// `chat leave` (requestLeave).
struct ChatLeave: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "leave", abstract: "Leave a group.",
        discussion: """
        While this account's devices hold leaves, this asks: a request pending for 24 h, which a device of \
        another participant fulfils (chat fulfil-leave). Without leaves the account leaves at once.
        """)

    @OptionGroup var options: ChatOptions

    @Argument(help: "Conversation id.")
    var convo: String

    func run() throws {
        let id = try ChatOptions.conversation(convo)
        let result = try options.withClient { try $0.requestLeave(id) }
        if options.global.json { return Output.line(ChatOptions.json(result)) }
        if let request = result["leaveRequest"] {
            Output.line("leave requested \(request["leaveRequestId"]?.uuid?.description ?? "?") \(request["status"]?.text ?? "?")")
        } else {
            Output.line("left \(id) (state version \(ConversationCoordinates(result["coordinates"])?.stateVersion ?? 0))")
        }
    }
}

/// `chat cancel-leave` (cancelLeave).
struct ChatCancelLeave: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel-leave", abstract: "Withdraw this account's pending leave request (from any of its devices).")

    @OptionGroup var options: ChatOptions

    @Argument(help: "Conversation id.")
    var convo: String

    func run() throws {
        let id = try ChatOptions.conversation(convo)
        let output = try options.withClient { try $0.cancelLeave(id) }
        if options.global.json { return Output.line(ChatOptions.json(output)) }
        let request = output["leaveRequest"]
        Output.line("leave request \(request?["leaveRequestId"]?.uuid?.description ?? "?") \(request?["status"]?.text ?? "?")")
    }
}

/// `chat fulfil-leave` (submitTransition with a leaveCommitFulfillment).
struct ChatFulfilLeave: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fulfil-leave",
        abstract: "Remove every participant whose leave request is pending, in conversations this device holds a leaf in.")

    @OptionGroup var options: ChatOptions

    @Argument(help: "Only this conversation.")
    var convo: String?

    func run() throws {
        let only = try convo.map(ChatOptions.conversation)
        let failures = try options.withClient { client in
            let mine = client.device.did.rawValue
            let pending = try ChatOptions.held(client, only: only).flatMap { id in
                try client.pendingRequests(id).leaves.filter { $0["requesterDid"]?.text != mine }
            }
            return ChatOptions.fulfilEach(pending, none: "no pending leave request", done: "removed", failed: "remove", describe: { request in
                "\(request["requesterDid"]?.text ?? "?") from \(request["conversationId"]?.uuid?.description ?? "?")"
            }, client.fulfilLeave)
        }
        if failures > 0 { throw ExitCode.failure }
    }
}

/// `chat remove-device` (submitTransition: a commit with Removes).
struct ChatRemoveDevice: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove-device",
        abstract: "Remove devices' leaves in one commit (another account's, or this account's other devices).",
        discussion: "Their accounts stay participants. A device cannot remove its own leaf.")

    @OptionGroup var options: ChatOptions

    @Argument(help: "Conversation id.")
    var convo: String

    @Argument(help: "The devices' ids (see `chat state`).")
    var devices: [String]

    func validate() throws {
        if devices.isEmpty { throw ValidationError("name at least one device") }
    }

    func run() throws {
        let id = try ChatOptions.conversation(convo)
        let targets = try devices.map { text in
            guard let device = ChatUUID(text) else { throw ValidationError("not a device id: \(text)") }
            return device
        }
        let output = try options.withClient { try $0.removeDevices(targets, from: id) }
        if options.global.json { return Output.line(ChatOptions.json(output)) }
        Output.line("removed \(devices.joined(separator: " ")) from \(id) (seq \(output["entry"]?["seq"]?.integer ?? 0))")
    }
}

import ArgumentParser
import ChatProtocol
import MLSClient

/// `chat state` (getConversationState, after reading the log).
struct ChatState: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Show a conversation as the service holds it: coordinates, participants, leaves, pending requests.",
        discussion: """
        Reads the log first (as chat read, keeping the messages for it), so the title shown is the one this device \
        decrypted. A device whose interval ended says so and asks nothing.
        """)

    @OptionGroup var options: ChatOptions

    @Argument(help: "Conversation id.")
    var convo: String

    func run() throws {
        let id = try ChatOptions.conversation(convo)
        let (output, membership) = try options.withClient { client -> (ChatValue?, ChatClient.ChatMembership?) in
            if let membership = client.conversations[id], membership.ended != nil { return (nil, membership) }
            if client.conversations[id] != nil { try client.sync(id) }
            return (try client.conversationState(id), client.conversations[id])
        }
        if let ended = membership?.ended { return Output.line("this device: \(ended)") }
        guard let output, let state = output["state"], let coordinates = ConversationCoordinates(state["coordinates"]) else { return }
        if options.global.json { return Output.line(ChatOptions.json(output)) }
        Output.line("\(id) \(state["conversationKind"]?.text ?? "?") generation \(coordinates.generation) epoch \(coordinates.epoch) "
                    + "state version \(coordinates.stateVersion) \(coordinates.lifecycle.rawValue)")
        if let membership { Output.line("title \(membership.title)") }
        for participant in state["participants"]?.array ?? [] {
            Output.line("participant \(participant["userDid"]?.text ?? "?") \(participant["role"]?.text ?? "?") "
                        + "\(participant["status"]?.text ?? "?") \(participant["leafCount"]?.integer ?? 0) leaves")
        }
        for leaf in state["leaves"]?.array ?? [] {
            Output.line("leaf \(leaf["userDid"]?.text ?? "?") \(leaf["deviceId"]?.uuid?.description ?? "?")")
        }
        for request in output["pendingLeaveRequests"]?.array ?? [] {
            Output.line("leave request \(request["leaveRequestId"]?.uuid?.description ?? "?") \(request["requesterDid"]?.text ?? "?")")
        }
        for request in output["pendingResetRequests"]?.array ?? [] {
            Output.line("reset request \(request["resetRequestId"]?.uuid?.description ?? "?") \(request["requesterDid"]?.text ?? "?") "
                        + (request["reason"]?.text ?? "?"))
        }
    }
}

/// `chat list` (getConversations: the inventory, with its tombstones).
struct ChatList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List this device's conversations: current ones, and tombstones of those it left or that closed.")

    @OptionGroup var options: ChatOptions

    func run() throws {
        let items = try options.withClient(save: false) { try $0.inventory().conversations }
        if items.isEmpty { Output.line("no conversation") }
        for item in items {
            if options.global.json {
                Output.line(ChatOptions.json(item))
                continue
            }
            let id = item["conversationId"]?.uuid?.description ?? "?"
            switch item.type {
            case ChatSchema.typePrefix + "conversationRemovalTombstone":
                Output.line("\(id) removed at #\(item["terminalSeq"]?.integer ?? 0)")
            case ChatSchema.typePrefix + "conversationCloseTombstone":
                Output.line("\(id) closed at #\(item["terminalSeq"]?.integer ?? 0) by \(item["closedByDid"]?.text ?? "?")")
            default:
                let state = item["state"]
                let coordinates = ConversationCoordinates(state?["coordinates"])
                Output.line("\(coordinates?.conversationID.description ?? "?") \(state?["conversationKind"]?.text ?? "?") "
                            + "\(state?["participants"]?.array?.count ?? 0) participants, generation \(coordinates?.generation ?? 0)")
            }
        }
    }
}

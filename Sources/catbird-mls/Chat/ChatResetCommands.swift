import ArgumentParser
import ChatProtocol
import MLSClient

/// `chat request-reset` (requestReset).
struct ChatRequestReset: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "request-reset", abstract: "Ask that a conversation be reset; an admin activates it (chat activate-reset).")

    @OptionGroup var options: ChatOptions

    @Argument(help: "Conversation id.")
    var convo: String

    @Option(help: "Why: \(ChatClient.ResetReason.allCases.map(\.rawValue).joined(separator: ", ")).")
    var reason: String = ChatClient.ResetReason.manualRecovery.rawValue

    func validate() throws {
        if ChatClient.ResetReason(rawValue: reason) == nil { throw ValidationError("unknown --reason \(reason)") }
    }

    func run() throws {
        let id = try ChatOptions.conversation(convo)
        let output = try options.withClient { try $0.requestReset(id, reason: ChatClient.ResetReason(rawValue: reason)!) }
        if options.global.json { return Output.line(ChatOptions.json(output)) }
        let request = output["resetRequest"]
        Output.line("reset requested \(request?["resetRequestId"]?.uuid?.description ?? "?") \(request?["status"]?.text ?? "?")")
    }
}

/// `chat activate-reset` (activateReset).
struct ChatActivateReset: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "activate-reset", abstract: "Activate a conversation's pending reset request (an active admin).",
        discussion: """
        Starts a new generation: a group holding only this device's leaf, with the same participants. Every \
        other device then asks for a leaf (chat request-leaf) and joins from its Welcome.
        """)

    @OptionGroup var options: ChatOptions

    @Argument(help: "Conversation id.")
    var convo: String

    @Option(help: "A new title for the new generation (default: the current one, re-encrypted).")
    var title: String?

    func run() throws {
        let id = try ChatOptions.conversation(convo)
        let output = try options.withClient { client in
            guard let request = try client.pendingRequests(id).resets.first else {
                throw MLSClientError.invalidArgument("no pending reset request in \(id)")
            }
            return try client.activateReset(request, title: title)
        }
        if options.global.json { return Output.line(ChatOptions.json(output)) }
        let successor = ConversationCoordinates(output["successorCoordinates"])
        Output.line("reset \(id): generation \(successor?.generation ?? 0) from seq \(output["entry"]?["seq"]?.integer ?? 0)")
    }
}

/// `chat close` (closeConversation).
struct ChatClose: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "close", abstract: "Close a conversation: a direct one by either side, a group by its one remaining admin.")

    @OptionGroup var options: ChatOptions

    @Argument(help: "Conversation id.")
    var convo: String

    func run() throws {
        let id = try ChatOptions.conversation(convo)
        let result = try options.withClient { try $0.close(id) }
        if options.global.json { return Output.line(ChatOptions.json(result)) }
        Output.line("closed \(id) at #\(result["tombstone"]?["terminalSeq"]?.integer ?? 0)")
    }
}

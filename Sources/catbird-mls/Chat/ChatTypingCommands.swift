import ArgumentParser
import ChatProtocol
import MLSClient

/// `chat typing` (publishTyping).
struct ChatTyping: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "typing", abstract: "Tell the conversation's other devices this one is typing (or, with --stop, no longer).")

    @OptionGroup var options: ChatOptions

    @Argument(help: "Conversation id.")
    var convo: String

    @Flag(help: "Say typing stopped.")
    var stop = false

    func run() throws {
        let id = try ChatOptions.conversation(convo)
        let event = try options.withClient(save: false) { try $0.publishTyping(id, isTyping: !stop) }
        if options.global.json { return Output.line(ChatOptions.json(event)) }
        Output.line("typing \(!stop) until \(event["expiresAt"]?.text ?? "?")")
    }
}

/// `chat entries` (getEntries): the log as the service lists it to this device, one line per entry.
struct ChatEntries: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "entries", abstract: "List the conversation's entries this device may read: seq, kind and signer. Changes no state.")

    @OptionGroup var options: ChatOptions

    @Argument(help: "Conversation id.")
    var convo: String

    @Option(help: "Entries after this seq (by default, from the start of this device's interval).")
    var after: UInt64?

    func run() throws {
        let id = try ChatOptions.conversation(convo)
        try options.withClient(save: false) { client in
            var after = after ?? client.conversations[id].map { $0.joinedAt > 0 ? $0.joinedAt - 1 : 0 } ?? 0
            while true {
                let page = try client.query("getEntries", [("conversationId", id.description), ("afterSeq", String(after)), ("limit", "100")])
                for entry in page["entries"]?.array ?? [] {
                    let kind = (entry.type ?? "?").split(separator: "#").last.map(String.init) ?? "?"
                    Output.line("#\(entry["seq"]?.integer ?? 0) \(kind) \(entry["signedRequest"]?["body"]?["actorDid"]?.text ?? "")")
                }
                guard page["hasMore"] == .bool(true), let next = page["nextAfterSeq"]?.integer, next > after else { break }
                after = next
            }
        }
    }
}

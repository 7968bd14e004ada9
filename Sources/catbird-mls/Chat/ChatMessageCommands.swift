import ArgumentParser
import ChatProtocol
import MLSClient

/// `chat send` (sendMessage).
struct ChatSend: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "send", abstract: "Encrypt and send a text message.")

    @OptionGroup var options: ChatOptions

    @Argument(help: "Conversation id.")
    var convo: String

    @Argument(help: "The text; several words are joined with spaces.")
    var text: [String]

    func validate() throws {
        if text.isEmpty { throw ValidationError("nothing to send") }
    }

    func run() throws {
        let id = try ChatOptions.conversation(convo)
        let entry = try options.withClient { try $0.send(id, text: text.joined(separator: " ")) }
        if options.global.json { Output.line(ChatOptions.json(entry)) } else { Output.line("sent #\(entry["seq"]?.integer ?? 0)") }
    }
}

/// `chat read` (getEntries).
struct ChatRead: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "read",
        abstract: "Read new entries: each signature verified against its signer's leaf, commits applied, other devices' messages printed.",
        discussion: "Once this device's interval ended (removed, closed, reset) it says so: \"this device: removed at #N\".")

    @OptionGroup var options: ChatOptions

    @Argument(help: "Conversation id.")
    var convo: String

    @Option(help: "Download, check and decrypt each image into this folder, named by its blob id.")
    var save: String?

    func run() throws {
        let id = try ChatOptions.conversation(convo)
        let (messages, ended, saved) = try options.withClient { client in
            let messages = try client.read(id)
            var saved: [String] = []
            if let save {
                for attachment in messages.compactMap(\.attachment) {
                    let path = save + "/" + attachment.blobID.description
                    try ChatFiles.write(try client.open(attachment), to: path)
                    saved.append(path)
                }
            }
            return (messages, client.conversations[id]?.ended, saved)
        }
        for message in messages {
            if options.global.json {
                var fields: [String: ChatValue] = [
                    "seq": .integer(message.seq), "senderDid": .text(message.senderDID), "senderDeviceId": .uuid(message.senderDevice),
                    "text": .text(message.text),
                ]
                fields["blobId"] = message.attachment.map { .uuid($0.blobID) }
                Output.line(ChatOptions.json(.object(fields)))
            } else {
                let image = message.attachment.map { " [\($0.mimeType) \($0.width)x\($0.height), blob \($0.blobID)]" } ?? ""
                Output.line("[\(message.seq)] \(message.senderDID): \(message.text)\(image)")
            }
        }
        for path in saved where !options.global.json { Output.line("saved \(path)") }
        // The entry that ended this device's interval was the last it read.
        if let ended, !options.global.json { Output.line("this device: \(ended)") }
    }
}

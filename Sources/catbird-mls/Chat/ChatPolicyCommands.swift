import ArgumentParser
import ChatProtocol
import MLSClient

/// `chat invite`, `uninvite`, `promote`, `demote` (submitTransition with a policyTransition): one
/// admin change of a group's participants each; the MLS epoch does not move.
struct ChatPolicyChange: ParsableArguments {
    @OptionGroup var options: ChatOptions

    @Argument(help: "Conversation id.")
    var convo: String

    @Argument(help: "The participants' DIDs.")
    var dids: [String]

    func validate() throws {
        if dids.isEmpty { throw ValidationError("name at least one DID") }
    }

    func run(_ verb: String, _ change: @escaping (ChatClient, ChatUUID, [String]) throws -> ChatValue) throws {
        let id = try ChatOptions.conversation(convo)
        let output = try options.withClient { try change($0, id, dids) }
        if options.global.json { return Output.line(ChatOptions.json(output)) }
        let coordinates = ConversationCoordinates(output["coordinates"])
        Output.line("\(verb) \(dids.joined(separator: " ")) in \(id) (state version \(coordinates?.stateVersion ?? 0))")
    }
}

struct ChatInvite: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "invite", abstract: "Invite accounts to a group (an admin): pending members until they accept.")
    @OptionGroup var change: ChatPolicyChange
    func run() throws { try change.run("invited") { try $0.policy($1, invite: $2) } }
}

struct ChatUninvite: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uninvite", abstract: "Remove participants without leaves (an invitation not accepted) from a group (an admin).")
    @OptionGroup var change: ChatPolicyChange
    func run() throws { try change.run("uninvited") { try $0.policy($1, remove: $2) } }
}

struct ChatPromote: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "promote", abstract: "Make active participants admins (an admin).")
    @OptionGroup var change: ChatPolicyChange
    func run() throws {
        try change.run("promoted") { try $0.policy($1, roles: Dictionary(uniqueKeysWithValues: $2.map { ($0, .admin) })) }
    }
}

struct ChatDemote: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demote", abstract: "Make admins members (an admin; an active admin must remain).")
    @OptionGroup var change: ChatPolicyChange
    func run() throws {
        try change.run("demoted") { try $0.policy($1, roles: Dictionary(uniqueKeysWithValues: $2.map { ($0, .member) })) }
    }
}

/// `chat rename` (submitTransition with a metadataTransition).
struct ChatRename: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename", abstract: "Set a group's title (an admin): a new metadata version, encrypted for the members.")

    @OptionGroup var options: ChatOptions

    @Argument(help: "Conversation id.")
    var convo: String

    @Argument(help: "The title; several words are joined with spaces.")
    var title: [String]

    func validate() throws {
        guard title.joined(separator: " ").utf8.count <= 256 else { throw ValidationError("a title is at most 256 bytes") }
    }

    func run() throws {
        let id = try ChatOptions.conversation(convo)
        let text = title.joined(separator: " ")
        let output = try options.withClient { try $0.rename(id, title: text) }
        if options.global.json { return Output.line(ChatOptions.json(output)) }
        Output.line("renamed \(id): \(text)")
    }
}

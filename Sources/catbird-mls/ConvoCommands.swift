import ArgumentParser
import Foundation
import Lexicon
import MLSClient

/// `create`.
struct Create: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Create a conversation (optionally inviting DIDs at once).")

    @OptionGroup var options: GlobalOptions

    @Option(help: "Conversation name (≤ 128 characters).")
    var name: String?

    @Option(help: "Description (≤ 512 characters).")
    var description: String?

    @Flag(help: "Sealed handshakes: commits and proposals as PrivateMessages (as the Catbird app sends them), each commit checked by the service through its GroupInfo.")
    var sealed = false

    @Argument(help: "DIDs to add in the first commit; each needs a published key package.")
    var invite: [String] = []

    func validate() throws {
        if let name, name.count > 128 { throw ValidationError("--name is at most 128 characters") }
        if let description, description.count > 512 { throw ValidationError("--description is at most 512 characters") }
    }

    func run() async throws {
        if options.transport == .mqtt {
            let convoId = try await options.relayClient().createConvo(name: name, inviting: invite, sealed: sealed)
            struct Result: Encodable { var id: String }
            if options.json { Output.json(Result(id: convoId)) } else { Output.line(convoId) }
            return
        }
        let view = try await options.client().createConvo(name: name, description: description, inviting: invite, sealed: sealed)
        if options.json { Output.json(view) } else { Output.line(view.id) }
    }
}

/// `invite`.
struct Invite: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Add members by DID (uses one key package of each).")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Conversation id.")
    var convo: String

    @Argument(help: "DIDs to add.")
    var dids: [String]

    func validate() throws {
        if dids.isEmpty { throw ValidationError("name at least one DID") }
    }

    func run() async throws {
        if options.transport == .mqtt {
            let epoch = try await options.relayClient().invite(convoId: convo, dids: dids)
            Output.line("added \(dids.joined(separator: ", ")); epoch \(epoch)")
            return
        }
        let output = try await options.client().invite(convoId: convo, dids: dids)
        if options.json { Output.json(output) } else { Output.line("added \(output.addedMembers.joined(separator: ", ")); epoch \(output.newEpoch)") }
    }
}

/// `join`.
struct Join: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Join a conversation from the Welcome waiting for you.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Conversation id.")
    var convo: String

    func run() async throws {
        let group = options.transport == .mqtt ? try await options.relayClient().join(convoId: convo)
            : try await options.client().join(convoId: convo)
        if options.json {
            struct Result: Encodable { var convoId: String; var epoch: UInt64; var members: Int }
            Output.json(Result(convoId: convo, epoch: group.epoch, members: group.members.count))
        } else {
            Output.line("joined \(convo) at epoch \(group.epoch) with \(group.members.count) members")
        }
    }
}

/// `send`.
struct Send: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Encrypt and send a text message.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Conversation id.")
    var convo: String

    @Argument(help: "The text; several words are joined with spaces.")
    var text: [String]

    func validate() throws {
        if text.isEmpty { throw ValidationError("nothing to send") }
    }

    func run() async throws {
        if options.transport == .mqtt {
            try await options.relayClient().send(convoId: convo, text: text.joined(separator: " "))
            Output.line("sent")
            return
        }
        let output = try await options.client().send(convoId: convo, text: text.joined(separator: " "))
        if options.json { Output.json(output) } else { Output.line("sent #\(output.seq)") }
    }
}

/// `read`.
struct Read: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Fetch, apply and decrypt new messages; print those not shown before.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Conversation id.")
    var convo: String

    @Flag(help: "Print the whole local transcript, not only what is new.")
    var all = false

    func run() async throws {
        let entries: [ChatEntry]
        let me: String
        if options.transport == .mqtt {
            let client = try options.relayClient()
            let fresh = try await client.unread(convoId: convo)
            entries = all ? try client.store.transcript(convoId: convo) : fresh
            me = client.identity.did
        } else {
            let client = try options.client()
            let fresh = try await client.unread(convoId: convo)
            entries = all ? try await client.transcript(convoId: convo) : fresh
            me = await client.did
        }
        if options.json {
            Output.json(entries)
        } else {
            for entry in entries { Output.line(Output.describe(entry, me: me)) }
        }
    }
}

/// `remove`.
struct Remove: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Remove a member (admins only).")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Conversation id.")
    var convo: String

    @Argument(help: "The member's DID.")
    var did: String

    func run() async throws {
        if options.transport == .mqtt {
            let epoch = try await options.relayClient().remove(convoId: convo, did: did)
            Output.line("removed \(did); epoch \(epoch)")
            return
        }
        let output = try await options.client().remove(convoId: convo, did: did)
        if options.json { Output.json(output) } else { Output.line("removed \(did); epoch \(output.newEpoch)") }
    }
}

/// `leave`.
struct Leave: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Leave a conversation.",
        discussion: "Sends a self-Remove proposal; another member's next commit removes you. Local state is deleted.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Conversation id.")
    var convo: String

    func run() async throws {
        if options.transport == .mqtt {
            try await options.relayClient().leave(convoId: convo)
            Output.line("left \(convo)")
            return
        }
        let output = try await options.client().leave(convoId: convo)
        if options.json { Output.json(output) } else { Output.line(output.pendingRemoval ? "left (removal pending)" : "left") }
    }
}

/// `rejoin`.
struct Rejoin: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Rejoin by external commit after losing state.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Conversation id.")
    var convo: String

    func run() async throws {
        try options.requireXRPC("rejoin")
        let output = try await options.client().rejoin(convoId: convo)
        if options.json { Output.json(output) } else { Output.line("rejoined at epoch \(output.epoch)") }
    }
}

/// `convos`.
struct Convos: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "List your conversations.")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try options.requireXRPC("convos")
        let list = try await options.client().convos()
        if options.json {
            struct Item: Encodable { var convo: ConvoView; var local: ConvoRecord? }
            Output.json(list.map { Item(convo: $0.view, local: $0.local) })
        } else if list.isEmpty {
            Output.line("no conversations")
        } else {
            for (view, local) in list {
                let name = view.metadata?.name.map { " \"\($0)\"" } ?? ""
                let state = local == nil ? " (no local state)" : (local?.active == false ? " (inactive)" : "")
                let sealed = view.handshake == "sealed" ? ", sealed" : ""
                Output.line("\(view.id)\(name) epoch \(view.epoch), \(view.members.count) members\(sealed)\(state)")
            }
        }
    }
}

import Basics
import ArgumentParser
import Foundation
import MLSClient

/// `update`.
struct Update: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Refresh this member's keys (a self-update commit).",
        discussion: "An empty commit with an UpdatePath: new leaf and path keys, a new epoch for everyone.")

    @OptionGroup var options: GlobalOptions

    @Argument(help: "Conversation id.")
    var convo: String

    func run() async throws {
        if options.transport == .mqtt {
            let epoch = try await options.relayClient().selfUpdate(convoId: convo)
            Output.line("updated; epoch \(epoch)")
            return
        }
        let output = try await options.client().selfUpdate(convoId: convo)
        if options.json { Output.json(output) } else { Output.line("updated; epoch \(output.newEpoch)") }
    }
}

/// `export-secret`: a debugging aid, hidden from help. Interop tests compare it across implementations.
struct ExportSecret: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export-secret",
        abstract: "Print the local epoch and MLS-Exporter(label, context, length) in hex (RFC 9420 §8.5).",
        shouldDisplay: false)

    @OptionGroup var options: GlobalOptions

    @Option(help: "Exporter label.")
    var label: String

    @Option(help: "Exporter context, hex.")
    var context: String = ""

    @Option(help: "Bytes to export.")
    var length: Int = 32

    @Argument(help: "Conversation id.")
    var convo: String

    func validate() throws {
        guard Hex.decode(context) != nil else { throw ValidationError("--context must be hex") }
        guard (1...255).contains(length) else { throw ValidationError("--length must be 1...255") }
    }

    func run() async throws {
        let exported = try await options.client().exportSecret(convoId: convo, label: label, context: Hex.decode(context) ?? [],
                                                          length: length)
        struct Result: Encodable { var convoId: String; var epoch: UInt64; var secret: String }
        let result = Result(convoId: convo, epoch: exported.epoch, secret: Hex.encode(exported.secret))
        if options.json { Output.json(result) } else { Output.line("epoch \(result.epoch) \(result.secret)") }
    }
}

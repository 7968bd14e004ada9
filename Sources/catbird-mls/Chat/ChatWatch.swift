import ArgumentParser
import Basics
import ChatProtocol
import Foundation
import HTTP
import MLSClient

/// `chat watch`: the inventory, a subscription ticket, then subscribeEvents (CHAT.md §3).
struct ChatWatch: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow this device's event stream; print each event's $type and fields.",
        discussion: """
        Pages the inventory (getConversations, getPendingWelcomes, getLeafRecoveryInbox) to its end, takes a \
        ticket for its cursor and subscribes: events after the inventory's snapshot arrive, each chained to \
        the one before. "watching" on stderr says the subscription is open. Changes no local state.
        """)

    @OptionGroup var options: ChatOptions

    @Option(help: "Exit after this many events.")
    var count: Int?

    @Option(help: "Exit after the first event of this type (e.g. welcomeAvailableEvent).")
    var until: String?

    @Option(help: "Give up after this many seconds; a --count or --until not reached by then fails.")
    var timeout: Double = 30

    func validate() throws {
        if let count, count < 1 { throw ValidationError("--count must be at least 1") }
        guard timeout > 0, timeout <= 86_400 else { throw ValidationError("--timeout must be 0...86400 seconds") }
    }

    func run() throws {
        let wanted = until.map { $0.contains("#") ? $0 : ChatSchema.typePrefix + $0 }
        let deadline = Date().addingTimeInterval(timeout)
        let reached = try options.withClient(save: false) { client in
            let inventory = try client.inventory()
            let stream = try client.subscribe(inventory)
            options.progress("watching from \(inventory.cursor) (\(inventory.conversations.count) conversations, "
                             + "\(inventory.welcomes.count) pending Welcomes, \(inventory.recoveries.count) recovery requests)")
            var seen = 0
            while deadline.timeIntervalSinceNow > 0 {
                let event: ChatEventStream.Event
                do { event = try stream.next(timeout: deadline.timeIntervalSinceNow) } catch HTTPClientError.timeout { break }
                seen += 1
                Output.line(options.global.json ? ChatOptions.json(event.envelope) : Self.describe(event.payload))
                if let count, seen >= count { return true }
                if let wanted, event.payload.type == wanted { return true }
            }
            return count == nil && wanted == nil
        }
        if !reached {
            FileHandle.standardError.write(Data("Error: timed out after \(timeout) s without \(until ?? "\(count ?? 0) events")\n".utf8))
            throw ExitCode.failure
        }
    }

    /// `$type field=value …`, fields in name order.
    static func describe(_ payload: ChatValue) -> String {
        let fields = (payload.members ?? [:]).filter { $0.key != "$type" }.sorted { $0.key < $1.key }.map { "\($0.key)=\(text($0.value))" }
        return ([payload.type ?? "?"] + fields).joined(separator: " ")
    }

    static func text(_ value: ChatValue) -> String {
        switch value {
        case .text(let text): text
        case .uuid(let uuid): uuid.description
        case .integer(let number): String(number)
        case .bool(let flag): String(flag)
        case .bytes(let bytes): Base64.encode(bytes)
        case .array, .object: ChatOptions.json(value)
        }
    }
}

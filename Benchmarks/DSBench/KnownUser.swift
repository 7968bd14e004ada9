import Foundation
import MLS

/// The known user of the abuse benches: an account whose key the service already holds, calling
/// at a steady rate while an attack runs. A call returns the seconds its HTTP exchange took (its
/// token, and any ciphertext, are made before the clock starts); a call that fails stops the bench.
struct KnownUser {
    static let getConvos = "blue.catbird.mls.getConvos"

    let user: BenchUser
    let client: XRPCClient

    /// Publishes the user's DID document and makes a first call, which fetches it; from then on
    /// the server has the key cached.
    init(_ user: BenchUser, client: XRPCClient, plcDirectory: String) throws {
        self.user = user
        self.client = client
        try PLCDirectory.publish(user, in: plcDirectory)
        _ = try getConvos()
    }

    func getConvos() throws -> Double {
        let token = try user.token(audience: client.audience, nsid: Self.getConvos)
        let clock = Stopwatch()
        try client.get(Self.getConvos, token: token)
        return clock.seconds
    }
}

/// A known member sending application messages (real PrivateMessages of its group) to one
/// conversation. One thread at a time: each message advances the group's ratchet.
final class KnownSender {
    let user: BenchUser
    let client: XRPCClient
    let convoID: String
    private var group: Group
    private let ids = MessageIDs()
    private var sent = 0

    init(_ user: BenchUser, client: XRPCClient, convoID: String, group: Group) {
        self.user = user
        self.client = client
        self.convoID = convoID
        self.group = group
    }

    func sendMessage() throws -> Double {
        sent += 1
        let message = try group.encrypt(Array("a known member's message \(sent)".utf8))
        let body = Array(try JSONSerialization.data(withJSONObject: [
            "convoId": convoID, "epoch": group.epoch, "ciphertext": WireFormat.bytes(message), "msgId": ids.id(sent),
        ]))
        let token = try user.token(audience: client.audience, nsid: SendMessageData.nsid)
        let clock = Stopwatch()
        try client.post(SendMessageData.nsid, token: token, body: body)
        return clock.seconds
    }
}

/// Calls at a steady rate, and their latencies in one line.
enum SteadyCalls {
    /// Calls `call` `rate` times a second (catching up after a slow call) for `seconds`.
    static func pace(rate: Int, for seconds: Double, _ call: () throws -> Void) throws {
        let clock = Stopwatch()
        var next = 0.0
        while clock.seconds < seconds {
            if next > clock.seconds { Thread.sleep(forTimeInterval: next - clock.seconds) }
            next += 1 / Double(rate)
            try call()
        }
    }

    /// "name   calls   p50   p99   max", the name padded to `width`.
    static func line(_ name: String, _ latencies: [Double], width: Int = 30) -> String {
        let sorted = latencies.sorted()
        guard !sorted.isEmpty else { return name + " (no calls)" }
        func at(_ fraction: Double) -> String {
            String(format: "%.2fms", sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))] * 1000)
        }
        return name.padding(toLength: max(width, name.count), withPad: " ", startingAt: 0)
            + String(format: " %9d calls   ", sorted.count) + "p50 " + at(0.5).leftPadded(9) + "   p99 " + at(0.99).leftPadded(9)
            + String(format: "   max %.1fms", (sorted.last ?? 0) * 1000)
    }
}

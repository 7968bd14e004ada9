import Dispatch
import Foundation
import Synchronization

/// Real-time events end to end: one conversation whose members hold `subscribers`
/// subscribeConvoEvents sockets (`socketsPerUser` each, within EVENTS_MAX_SOCKETS_PER_USER), one
/// more member sending `messages` sendMessage calls at `rate` per second, and every event's
/// receive time against its call's send time. Readers are a few poll(2) loops, so the client
/// costs little of the cores it shares with the server.
struct EventsBench {
    static let ticketNSID = "blue.catbird.mls.getSubscriptionTicket"
    /// Warm-up messages sent until every socket has seen one (ids after the measured ones).
    static let maxWarmUps = 10

    let client: XRPCClient
    let plcDirectory: String
    let port: Int
    let subscribers: Int
    let socketsPerUser: Int
    let messages: Int
    let rate: Double
    let senderThreads: Int
    let readerThreads: Int
    let ciphertextSize: Int
    let serverPID: Int?

    struct Outcome {
        var users: Int
        var ciphertextSize: Int
        var sent: Int
        /// Calls per second actually made (below `rate` when sendMessage could not keep up).
        var sendRate: Double
        var failedSends: [String]
        var expected: Int
        var latencies: [Double]
        var seconds: Double
        var closedSockets: [UInt16]
        var clientCPU: Double
        var serverCPU: Double?
        var boxCPU: Double?
    }

    func run() throws -> Outcome {
        let users = (subscribers + socketsPerUser - 1) / socketsPerUser
        let data = SendMessageData(client: client, plcDirectory: plcDirectory, senders: users + 1, convos: 1,
                                   ciphertextSize: ciphertextSize)
        let conversations = try data.setUp()
        let sender = conversations.users[0]
        let audience = client.audience
        let tokens = try Parallel.map(messages + Self.maxWarmUps) { _ in
            try sender.token(audience: audience, nsid: SendMessageData.nsid)
        }
        let ids = MessageIDs()
        let bodyPrefix = conversations.bodies[0]
        func body(_ index: Int) -> [UInt8] { Array((bodyPrefix + ids.id(index) + "\"}").utf8) }

        var sockets: [EventSubscriber] = []
        for index in 0..<subscribers {
            let owner = conversations.users[1 + index / socketsPerUser]
            let reply = try client.call(Self.ticketNSID, as: owner, json: ["convoId": conversations.convoIDs[0]])
            guard let ticket = reply["ticket"] as? String else { throw BenchError.unexpected("getSubscriptionTicket gave no ticket") }
            sockets.append(try EventSubscriber(port: port, ticket: ticket))
        }

        let readers = EventReaders(sockets: sockets, threads: readerThreads, ids: ids, measured: messages)
        readers.start()
        defer { readers.stop() }
        try warmUp(readers: readers, tokens: tokens, body: body)

        let cpuBefore = (ProcessClock.selfCPUSeconds(), serverPID.flatMap(ProcessClock.cpuSeconds(ofProcess:)),
                         ProcessClock.boxCPUSeconds())
        let sends = send(tokens: Array(tokens[..<messages]), body: body)
        let expected = sends.stamps.count * subscribers
        let deadline = ProcessClock.now() + 10_000_000_000
        while readers.received < expected, ProcessClock.now() < deadline { usleep(5_000) }
        let end = ProcessClock.now()
        let cpuAfter = (ProcessClock.selfCPUSeconds(), serverPID.flatMap(ProcessClock.cpuSeconds(ofProcess:)),
                        ProcessClock.boxCPUSeconds())
        let (receipts, closed) = readers.stop()

        let start = sends.stamps.values.min() ?? end
        let lastReceipt = receipts.map(\.nanos).max() ?? end
        let seconds = Double(lastReceipt - start) / 1e9
        let wall = Double(end - start) / 1e9
        let latencies = receipts.compactMap { receipt in
            sends.stamps[receipt.index].map { Double(Int64(receipt.nanos) - Int64($0)) / 1e6 }
        }
        var box: Double?
        if let before = cpuBefore.2, let after = cpuAfter.2, after.total > before.total {
            box = (after.busy - before.busy) / wall
        }
        let lastSend = sends.stamps.values.max() ?? start
        let sendRate = lastSend > start ? Double(sends.stamps.count - 1) / (Double(lastSend - start) / 1e9) : 0
        return Outcome(users: users, ciphertextSize: conversations.ciphertextSizes[0], sent: sends.stamps.count, sendRate: sendRate,
                       failedSends: sends.failures, expected: expected, latencies: latencies.sorted(), seconds: seconds,
                       closedSockets: closed, clientCPU: (cpuAfter.0 - cpuBefore.0) / wall,
                       serverCPU: cpuAfter.1.flatMap { after in cpuBefore.1.map { (after - $0) / wall } }, boxCPU: box)
    }

    /// Sends warm-up messages, one a second at most, until every socket has received one: the
    /// subscriptions are then live and the first measured message pays no start-up cost.
    private func warmUp(readers: EventReaders, tokens: [String], body: (Int) -> [UInt8]) throws {
        for attempt in 0..<Self.maxWarmUps {
            let index = messages + attempt
            try client.post(SendMessageData.nsid, token: tokens[index], body: body(index))
            let deadline = ProcessClock.now() + 1_000_000_000
            while readers.warmedUp < subscribers, ProcessClock.now() < deadline { usleep(2_000) }
            if readers.warmedUp == subscribers { return }
        }
        throw BenchError.unexpected("only \(readers.warmedUp) of \(subscribers) sockets received a warm-up event")
    }

    /// `tokens.count` sendMessage calls on a fixed schedule (call i is due at i / rate seconds),
    /// spread over `senderThreads` so one slow answer does not delay the next call.
    private func send(tokens: [String], body: (Int) -> [UInt8]) -> (stamps: [Int: UInt64], failures: [String]) {
        let bodies = tokens.indices.map(body)
        let results = SendLog()
        let client = client, rate = rate, threads = senderThreads
        let start = ProcessClock.now() + 10_000_000
        let bodiesByIndex = bodies, tokensByIndex = tokens
        Threads.start(threads) { thread in
            for index in stride(from: thread, to: tokensByIndex.count, by: threads) {
                let due = start + UInt64(Double(index) / rate * 1e9)
                let now = ProcessClock.now()
                if due > now { usleep(UInt32((due - now) / 1000)) }
                let stamp = ProcessClock.now()
                do {
                    try client.post(SendMessageData.nsid, token: tokensByIndex[index], body: bodiesByIndex[index])
                    results.state.withLock { $0.stamps[index] = stamp }
                } catch {
                    results.state.withLock { $0.failures.append("\(error)") }
                }
            }
        }.wait()
        return results.state.withLock { $0 }
    }
}

/// What the sender threads record: each call's send stamp, by index, and the errors of failed calls.
private final class SendLog: Sendable {
    let state = Mutex<(stamps: [Int: UInt64], failures: [String])>(([:], []))
}

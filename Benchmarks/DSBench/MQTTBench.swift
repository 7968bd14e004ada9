import Basics
import Foundation
import MLS
import MQTT
import MQTTClient
import Primitives
import Synchronization

/// MQTT fan-out (issue 19): `subscribers` connections on one topic, one publisher sending QoS 1
/// messages of about 1 KB with at most `window` unacknowledged, every delivery's receive time
/// against its message's publish time. Two phases per broker: flat out (`messages`, as fast as the
/// broker acknowledges: deliveries/s), then paced (`pacedMessages` at `rate` per second: latency
/// without a backlog; a broker that acknowledges faster than it delivers builds one flat out). Run against mosquitto (a plain broker: no
/// authentication, no validation, no persistence) and against the service's MQTT listener, where
/// the topic is a real conversation's relay/g/{id}/m, the subscribers 5 clients each of its members,
/// the messages real PrivateMessages of the publishing member, each validated and committed to
/// PostgreSQL before it is delivered. The same payload bytes in both runs.
struct MQTTBench {
    let subscribers: Int
    let clientsPerUser: Int
    let messages: Int
    let pacedMessages: Int
    let rate: Double
    let window: Int
    let ciphertextSize: Int

    struct Target {
        var name: String
        var port: Int
        var topic: String
        /// CONNECT options for subscriber `index`, and for the publisher.
        var subscriber: (Int) throws -> MQTTClient.Options
        var publisher: () throws -> MQTTClient.Options
        var serverPID: Int?
    }

    struct Outcome {
        var name: String
        var delivered: Int
        var expected: Int
        var deliveriesPerSecond: Double
        var publishesPerSecond: Double
        var latencies: [Double]
        var refused: [String]
        var serverCPU: Double?
        /// Publish rate asked for (nil: flat out).
        var rate: Double?
    }

    /// The conversation for the service's run and the payloads: real PrivateMessages of member 0.
    struct Group {
        var users: [BenchUser]
        var convoID: String
        var payloads: [[UInt8]]
    }

    static func prepare(client: XRPCClient, plcDirectory: String, members: Int, messages: Int, ciphertextSize: Int) throws -> Group {
        // `messages` in all: the caller splits them between its runs.
        let data = SendMessageData(client: client, plcDirectory: plcDirectory, senders: members + 1, convos: 1, ciphertextSize: ciphertextSize)
        let users = try (0..<(members + 1)).map { _ in try BenchUser() }
        for user in users { try PLCDirectory.publish(user, in: plcDirectory) }
        var (convoID, groups) = try data.createConvo(creator: 0, users: users)
        let size = try data.plaintextSize(probing: &groups[0])
        let plaintext = Array(String(repeating: "mqtt bench ", count: size / 11 + 1).utf8.prefix(size))
        // Every payload is published once (the service stores a msgId once); one spare per run for its warm-up.
        let payloads = try (0..<messages).map { _ in try groups[0].encrypt(Array(plaintext)).encoded() }
        return Group(users: users, convoID: convoID, payloads: payloads)
    }

    /// A key for a payload: its last 16 bytes (the AEAD tag of a PrivateMessage).
    static func key(_ payload: [UInt8]) -> [UInt8] { Array(payload.suffix(16)) }

    /// One run: `payloads.last` is the warm-up, the others are published (at `rate` per second, or
    /// flat out).
    func run(_ target: Target, payloads: [[UInt8]], rate: Double? = nil) throws -> Outcome {
        let messages = payloads.count - 1
        var index: [[UInt8]: Int] = [:]
        for (position, payload) in payloads.enumerated() { index[Self.key(payload)] = position }
        let warmUp = payloads.count - 1
        let receipts = Receipts(subscribers: subscribers, warmUp: warmUp)
        var clients: [MQTTClient] = []
        for number in 0..<subscribers {
            let client = try MQTTClient(host: "127.0.0.1", port: target.port, options: try target.subscriber(number))
            client.autoAcknowledge = true
            guard try client.subscribe(target.topic) == .grantedQoS1 else { throw BenchError.unexpected("\(target.name): SUBSCRIBE refused") }
            clients.append(client)
        }
        let stop = Atomic<Bool>(false)
        let threads = DispatchGroup()
        let lookup = index
        for (number, client) in clients.enumerated() {
            threads.enter()
            // Each client is used by its thread alone from here on.
            let owned = OwnedByThread(client)
            let thread = Thread {
                let client = owned.value
                defer { threads.leave() }
                var stamps: [(Int, UInt64)] = []
                stamps.reserveCapacity(lookup.count)
                while !stop.load(ordering: .relaxed) {
                    guard let message = try? client.receive(timeout: 0.2) else { continue }
                    let now = ProcessClock.now()
                    if let position = lookup[Self.key(message.payload)] {
                        stamps.append((position, now))
                        if position != warmUp { receipts.delivered.add(1, ordering: .relaxed) }
                    }
                    if stamps.last?.0 == warmUp { receipts.warmedUp(number) }
                }
                receipts.add(stamps)
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        let publisher = try MQTTClient(host: "127.0.0.1", port: target.port, options: try target.publisher())
        // Every subscription live before the clock starts.
        _ = try publisher.publish(topic: target.topic, payload: payloads[warmUp])
        // On our broker a new subscriber of a conversation first gets its log since the member
        // joined (docs/mqtt.md): before a second run's warm-up, every subscriber replays the
        // first run's messages (200 × 2,001 deliveries); the deadline leaves room for that on a
        // slow box. The clock starts only once all are caught up.
        let warmDeadline = ProcessClock.now() + 60_000_000_000
        while receipts.warmed < subscribers, ProcessClock.now() < warmDeadline { usleep(2_000) }
        guard receipts.warmed == subscribers else {
            stop.store(true, ordering: .relaxed)
            threads.wait()
            throw BenchError.unexpected("\(target.name): \(receipts.warmed) of \(subscribers) subscribers got the warm-up message")
        }

        let cpuBefore = target.serverPID.flatMap(ProcessClock.cpuSeconds(ofProcess:))
        var sent: [UInt64] = Array(repeating: 0, count: messages)
        var refused: [String] = []
        var outstanding = 0
        let start = ProcessClock.now()
        for position in 0..<messages {
            if let rate {
                let due = start + UInt64(Double(position) / rate * 1e9)
                let now = ProcessClock.now()
                if due > now { usleep(UInt32((due - now) / 1000)) }
            }
            while outstanding >= window {
                for ack in try publisher.takePublishAcks(timeout: 10) {
                    outstanding -= 1
                    if ack.reasonCode.isFailure { refused.append("\(ack.reasonCode) \(ack.properties.reasonString ?? "")") }
                }
            }
            sent[position] = ProcessClock.now()
            try publisher.send(topic: target.topic, payload: payloads[position])
            outstanding += 1
        }
        while outstanding > 0 {
            for ack in try publisher.takePublishAcks(timeout: 10) {
                outstanding -= 1
                if ack.reasonCode.isFailure { refused.append("\(ack.reasonCode) \(ack.properties.reasonString ?? "")") }
            }
        }
        let lastPublish = ProcessClock.now()
        let expected = (messages - refused.count) * subscribers
        let deadline = ProcessClock.now() + 20_000_000_000
        while receipts.count < expected, ProcessClock.now() < deadline { usleep(5_000) }
        let cpuAfter = target.serverPID.flatMap(ProcessClock.cpuSeconds(ofProcess:))
        stop.store(true, ordering: .relaxed)
        threads.wait()
        publisher.disconnect()
        for client in clients { client.disconnect() }

        let stamps = receipts.all.filter { $0.0 < messages }
        let last = stamps.map(\.1).max() ?? start
        let seconds = Double(last - start) / 1e9
        let latencies = stamps.map { Double(Int64($0.1) - Int64(sent[$0.0])) / 1e6 }.sorted()
        return Outcome(name: target.name, delivered: stamps.count, expected: expected,
                       deliveriesPerSecond: seconds > 0 ? Double(stamps.count) / seconds : 0,
                       publishesPerSecond: Double(messages) / (Double(lastPublish - start) / 1e9), latencies: latencies,
                       refused: refused, serverCPU: cpuAfter.flatMap { after in cpuBefore.map { (after - $0) / seconds } }, rate: rate)
    }

    /// Receipts of every subscriber thread, gathered at the end.
    final class Receipts: Sendable {
        private let state = Mutex<(stamps: [(Int, UInt64)], warmed: Set<Int>)>(([], []))
        /// Measured deliveries so far, across the subscriber threads.
        let delivered = Atomic<Int>(0)
        let warmUp: Int

        init(subscribers: Int, warmUp: Int) { self.warmUp = warmUp }

        func warmedUp(_ subscriber: Int) { state.withLock { _ = $0.warmed.insert(subscriber) } }
        var warmed: Int { state.withLock { $0.warmed.count } }
        var count: Int { delivered.load(ordering: .relaxed) }
        /// A thread's stamps, added when it stops.
        func add(_ stamps: [(Int, UInt64)]) { state.withLock { $0.stamps += stamps } }
        var all: [(Int, UInt64)] { state.withLock { $0.stamps } }
    }

    static func report(_ outcome: Outcome, anchor: Outcome?) {
        func percentile(_ p: Double) -> Double {
            guard !outcome.latencies.isEmpty else { return 0 }
            return outcome.latencies[min(outcome.latencies.count - 1, Int(Double(outcome.latencies.count) * p))]
        }
        let name = outcome.name + (outcome.rate.map { String(format: ", %.0f/s", $0) } ?? ", flat out")
        var line = name.padding(toLength: 40, withPad: " ", startingAt: 0)
            + String(format: "%9.0f deliveries/s   p50 %7.2fms   p99 %7.2fms   (%d/%d delivered, %.0f publishes/s)",
                     outcome.deliveriesPerSecond, percentile(0.5), percentile(0.99), outcome.delivered, outcome.expected,
                     outcome.publishesPerSecond)
        if let anchor, anchor.deliveriesPerSecond > 0, let anchorP99 = anchor.latencies.isEmpty ? nil : anchor.latencies[min(anchor.latencies.count - 1, Int(Double(anchor.latencies.count) * 0.99))] {
            line += String(format: "   | %.2f× mosquitto's deliveries/s, p99 %.1f× mosquitto's (goal ≥ 0.5×, ≤ 3×)",
                           outcome.deliveriesPerSecond / anchor.deliveriesPerSecond, percentile(0.99) / anchorP99)
        }
        if let cpu = outcome.serverCPU { line += String(format: "   server %.2f cores", cpu) }
        print(line)
        if !outcome.refused.isEmpty { print("    \(outcome.refused.count) publishes refused, e.g. \(outcome.refused[0])") }
    }
}

/// A value handed to one thread, which alone uses it from then on.
final class OwnedByThread<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

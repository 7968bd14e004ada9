import Basics
import Foundation
import MLS
import Synchronization

/// `ds-bench failover`: one failure of the database under load, as scripts/ha-test.sh makes each
/// kind of it (docs/operations.md, "High availability"). Senders keep sendMessage going through
/// every service node, subscribers on every node follow the conversation, `kill` (a shell command)
/// makes the failure, and a racing pair of commits straddles it. The run then checks:
///   - every acknowledged message is stored with its seq and bytes (getMessages), seqs are dense
///     and no msgId is stored twice;
///   - every subscriber received each acknowledged message exactly once, with its seq and bytes,
///     and nothing that is not stored;
///   - of the racing commits one got 200 and the other 409, and the epoch moved by one;
///   - a 2xx came again within `recoverWithin` seconds of the failure; no call took longer than
///     `hangLimit` seconds; no answer was a 5xx but 503, and every 503 carried Retry-After;
///   - every node's `/xrpc/_health`, asked every 0.2 s, named `primary` when it answered 200 and
///     `unavailable` with Retry-After when 503; with `expectOutage` it said 503 at least once after
///     the failure, and its last answer was 200.
/// It prints the time from the failure to the first 2xx (of a call sent after it) and exits 1 on
/// any failed check.
struct FailoverRun {
    struct Settings {
        var label: String
        var kill: String
        var senders: Int
        var subscribersPerNode: Int
        var before: Double
        var after: Double
        var recoverWithin: Double
        var hangLimit: Double
        /// Whether the failure leaves the service without a primary for a while (not so when only
        /// a standby fails).
        var expectOutage: Bool
    }

    let nodes: [XRPCClient]
    let plcDirectory: String
    let settings: Settings

    func run() throws -> Bool {
        let clock = Stopwatch()
        let setup = try prepare()
        let race = try CommitRace(client: nodes[0], plcDirectory: plcDirectory)
        let load = FailoverLoad(nodes: nodes, convoID: setup.convoID, requestTimeout: settings.hangLimit + 15,
                                retryDeadline: settings.hangLimit * 2)
        var senders = setup.senders
        // Every subscriber has seen a message before the load starts: the subscriptions are live.
        let subscribers = try setup.subscribers.map { subscriber in (subscriber, try subscriber.start()) }
        try warmUp(load, sender: &senders[0], subscribers: subscribers.map(\.0))
        print("failover \(settings.label): \(settings.senders) senders and \(subscribers.count) subscribers "
              + "on \(nodes.count) nodes ready in \(String(format: "%.1f", clock.seconds)) s")

        let health = HealthWatch(nodes: nodes)
        let watching = health.start()
        let start = ProcessClock.now()
        let running = load.start(senders: senders)
        usleep(UInt32(settings.before * 1e6))

        // The race: one commit just before the failure, the other just after.
        let raceResults = Mutex<[Int: (status: Int, unavailable: Int)]>([:])
        let timeout = settings.hangLimit + 15
        let first = Threads.start(1) { _ in
            let result = race.send(0, to: nodes[0], requestTimeout: timeout, deadline: timeout * 2)
            raceResults.withLock { $0[0] = result }
        }
        let (killOutput, killed) = try runKill()
        let second = Threads.start(1) { _ in
            let result = race.send(1, to: nodes[nodes.count - 1], requestTimeout: timeout, deadline: timeout * 2)
            raceResults.withLock { $0[1] = result }
        }
        print("failover \(settings.label): \(killOutput)")

        // Load until the first 2xx of a call sent after the failure, then `after` seconds more.
        let recoveryDeadline = killed + UInt64((settings.hangLimit * 2) * 1e9)
        var firstOK: UInt64?
        while firstOK == nil, ProcessClock.now() < recoveryDeadline {
            usleep(50_000)
            firstOK = Self.firstSuccess(in: load.snapshot.calls, after: killed)
        }
        usleep(UInt32(settings.after * 1e6))
        load.stop()
        let stopped = running.wait(timeout: .now() + settings.hangLimit * 3) == .success
        _ = first.wait(timeout: .now() + timeout * 3)
        _ = second.wait(timeout: .now() + timeout * 3)
        let end = ProcessClock.now()
        health.stop()
        _ = watching.wait(timeout: .now() + 10)

        var checks = FailoverChecks()
        checks.health(health.snapshot, killed: killed, expectOutage: settings.expectOutage)
        if !stopped { checks.fail("the senders did not stop within \(settings.hangLimit * 3) s") }
        let log = load.snapshot
        checks.calls(log, killed: killed, firstOK: firstOK, settings: settings)
        let stored = try readBack(setup.convoID, as: setup.senders[0].user)
        checks.stored(stored, acks: log.acks)
        // The subscribers get until every acknowledged message could have reached them.
        let wanted = Set(log.acks.map(\.msgID))
        let arrival = ProcessClock.now() + 30_000_000_000
        while ProcessClock.now() < arrival,
              !subscribers.allSatisfy({ subscriber in wanted.isSubset(of: subscriber.0.snapshot.received.keys) }) {
            usleep(100_000)
        }
        for (subscriber, thread) in subscribers {
            subscriber.stop()
            _ = thread.wait(timeout: .now() + 10)
            checks.subscriber(subscriber, acks: log.acks, stored: stored)
        }
        let raced = raceResults.withLock { $0 }
        checks.race(raced, epoch: try? race.currentEpoch(nodes[0]), startEpoch: race.startEpoch)

        func seconds(_ from: UInt64, _ to: UInt64) -> Double { Double(Int64(to) - Int64(from)) / 1e9 }
        let beforeKill = log.calls.filter { (200..<300).contains($0.status) && $0.answeredAt < killed }.count
        let rate = Double(beforeKill) / max(0.001, seconds(start, killed))
        let unavailable = log.calls.filter { $0.status == 503 }.count
        let longest = log.calls.map { seconds($0.sentAt, $0.answeredAt) }.max() ?? 0
        let recovery = firstOK.map { String(format: "%.1f s", seconds(killed, $0)) } ?? "never"
        let raceText = raced.keys.sorted().map { String(raced[$0]!.status) }.joined(separator: " + ")
        let resumed = subscribers.map { $0.0.snapshot.reconnects }.reduce(0, +)
        var line = "failover \(settings.label): first 2xx \(recovery) after the failure; \(log.acks.count) acknowledged"
        line += String(format: " (%.0f msg/s before it), ", rate)
        line += "\(log.unacknowledged.count) given up, \(unavailable) answered 503, longest call " + String(format: "%.1f s; ", longest)
        line += "race \(raceText); \(subscribers.count) subscribers, \(resumed) resumed" + String(format: " (%.0f s)", seconds(start, end))
        print(line)
        print("first2xx \(settings.label) " + (firstOK.map { String(format: "%.2f", seconds(killed, $0)) } ?? "-"))
        // The slowest calls, when the limit was passed: when each was sent (relative to the
        // failure), how long it took and how it ended.
        if log.calls.contains(where: { seconds($0.sentAt, $0.answeredAt) > settings.hangLimit }) {
            for call in log.calls.sorted(by: { $0.answeredAt - $0.sentAt > $1.answeredAt - $1.sentAt }).prefix(8) {
                print(String(format: "  slow call: sent %+.2f s, took %.2f s, status %d", seconds(killed, call.sentAt),
                             seconds(call.sentAt, call.answeredAt), call.status))
            }
        }
        for problem in checks.problems.prefix(30) { print("  FAILED: \(problem)") }
        if checks.problems.count > 30 { print("  … and \(checks.problems.count - 30) more") }
        return checks.problems.isEmpty
    }

    // MARK: Set-up

    struct Setup {
        let convoID: String
        let senders: [(user: BenchUser, group: Group)]
        let subscribers: [FailoverSubscriber]
    }

    /// The senders and the subscribers' users, all members of one new conversation.
    private func prepare() throws -> Setup {
        let subscriberCount = settings.subscribersPerNode * nodes.count
        let users = try (0..<(settings.senders + subscriberCount)).map { _ in try BenchUser() }
        for user in users { try PLCDirectory.publish(user, in: plcDirectory) }
        let data = SendMessageData(client: nodes[0], plcDirectory: plcDirectory, senders: users.count, convos: 1, ciphertextSize: 256)
        let (convoID, groups) = try data.createConvo(creator: 0, users: users)
        let senders = (0..<settings.senders).map { (users[$0], groups[$0]) }
        let subscribers = try (0..<subscriberCount).map { index in
            try FailoverSubscriber(user: users[settings.senders + index], node: nodes[index % nodes.count], convoID: convoID)
        }
        return Setup(convoID: convoID, senders: senders, subscribers: subscribers)
    }

    private func warmUp(_ load: FailoverLoad, sender: inout (user: BenchUser, group: Group), subscribers: [FailoverSubscriber]) throws {
        for _ in 0..<5 {
            guard load.sendOne(from: sender.user, group: &sender.group) else { continue }
            let deadline = ProcessClock.now() + 5_000_000_000
            let wanted = Set(load.snapshot.acks.map(\.msgID))
            while ProcessClock.now() < deadline {
                if subscribers.allSatisfy({ wanted.isSubset(of: $0.snapshot.received.keys) }) { return }
                usleep(20_000)
            }
        }
        throw BenchError.unexpected("the subscribers did not receive a warm-up message: \(load.snapshot.unacknowledged.suffix(3))")
    }

    /// Runs the failure's command; its output, and the moment it returned.
    private func runKill() throws -> (String, UInt64) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", settings.kill]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let killed = ProcessClock.now()
        guard process.terminationStatus == 0 else {
            throw BenchError.unexpected("`\(settings.kill)` exited \(process.terminationStatus): \(String(decoding: output, as: UTF8.self))")
        }
        return (String(decoding: output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines), killed)
    }

    static func firstSuccess(in calls: [FailoverLoad.Call], after moment: UInt64) -> UInt64? {
        calls.filter { $0.sentAt >= moment && (200..<300).contains($0.status) }.map(\.answeredAt).min()
    }

    /// The conversation's whole log through getMessages: seq → (msgId, ciphertext), every seq once.
    private func readBack(_ convoID: String, as user: BenchUser) throws -> FailoverChecks.Stored {
        var stored = FailoverChecks.Stored()
        var since: Int64 = 0
        let nsid = "blue.catbird.mls.getMessages"
        while true {
            let token = try user.token(audience: nodes[0].audience, nsid: nsid)
            let reply = try nodes[0].get(nsid, query: "convoId=\(convoID)&sinceSeq=\(since)&limit=100", token: token)
            let messages = reply["messages"] as? [[String: Any]] ?? []
            if messages.isEmpty { return stored }
            for message in messages {
                guard let seq = (message["seq"] as? NSNumber)?.int64Value, let id = message["id"] as? String else {
                    stored.problems.append("getMessages returned a message without seq or id")
                    continue
                }
                let bytes = ((message["ciphertext"] as? [String: Any])?["$bytes"] as? String).flatMap { Base64.decode($0) }
                stored.add(seq: seq, msgID: id, ciphertext: bytes)
                since = max(since, seq)
            }
        }
    }
}

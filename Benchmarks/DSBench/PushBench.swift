import Basics
import Dispatch
import Foundation
import Primitives
import Push
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Push through APNs (issue 34): a push-enabled server (its own process, the bench's database) and
/// the APNs stand-in (Tests/PushStandIns, the PyPI `h2` library), `recipients` members of one
/// conversation with `devicesEach` iOS devices each, none holding a socket, and one member sending.
/// Each push's receipt time (the stand-in's CLOCK_MONOTONIC) is set against its message's 2xx.
/// Two phases: flat out (`messages` sendMessage calls back to back: pushes/s, with coalescing), and
/// paced (`pacedMessages`, one per `pacedInterval` seconds, each burst of pushes through before the
/// next: the latency of a fan-out to every device without a backlog). The anchor is
/// h2load (nghttp2's load generator) sending the same request to the same stand-in: the stand-in's
/// own ceiling, so the ratio says how much of it the service's outbox, claims and HTTP/2 client reach.
struct PushBench {
    let client: XRPCClient
    let plcDirectory: String
    let recipients: Int
    let devicesEach: Int
    let messages: Int
    let pacedMessages: Int
    /// Seconds between the paced phase's messages.
    let pacedInterval: Double
    let ciphertextSize: Int
    let standIn: StandIn
    let serverPID: Int
    let standInPID: Int

    /// The stand-in as a child process: commands on stdin, events from stdout, each line parsed once
    /// as it arrives (pushes kept as (seq, receipt time, status)), so that watching costs the shared
    /// box little.
    final class StandIn: @unchecked Sendable {
        struct Receipt {
            var seq: Int?
            var time: UInt64
            var status: Int?
        }

        let process = Process()
        private let input = Pipe()
        /// The lines of every other event (few: ready, the commands' answers).
        private let others = Mutex<[String]>([])
        private let receipts = Mutex<[Receipt]>([])
        private(set) var port = 0

        init(python: String, script: String, directory: String) throws {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            process.executableURL = URL(fileURLWithPath: python)
            process.arguments = [script, "--dir", directory]
            let output = Pipe()
            process.standardOutput = output
            process.standardInput = input
            try process.run()
            let reader = output.fileHandleForReading
            Thread.detachNewThread { [self] in
                var pending = Data()
                while true {
                    let chunk = reader.availableData
                    if chunk.isEmpty { return }
                    pending.append(chunk)
                    var pushes: [Receipt] = []
                    var rest: [String] = []
                    while let newline = pending.firstIndex(of: 0x0a) {
                        let line = pending[pending.startIndex..<newline]
                        pending.removeSubrange(pending.startIndex...newline)
                        guard let event = (try? JSONSerialization.jsonObject(with: line)) as? [String: Any] else { continue }
                        if event["event"] as? String == "push" {
                            pushes.append(Receipt(seq: (event["payload"] as? [String: Any])?["seq"] as? Int,
                                                  time: (event["t"] as? NSNumber)?.uint64Value ?? 0, status: event["status"] as? Int))
                        } else {
                            rest.append(String(decoding: line, as: UTF8.self))
                        }
                    }
                    if !pushes.isEmpty { receipts.withLock { $0 += pushes } }
                    if !rest.isEmpty { others.withLock { $0 += rest } }
                }
            }
            guard let ready = try wait(for: "ready", timeout: 30).first, let port = ready["port"] as? Int else {
                throw BenchError.unexpected("the APNs stand-in did not start")
            }
            self.port = port
        }

        /// Pushes received so far.
        var pushCount: Int { receipts.withLock { $0.count } }

        /// Pushes from index `start` on.
        func pushes(from start: Int) -> [Receipt] { receipts.withLock { Array($0[min(start, $0.count)...]) } }

        func events(_ name: String) -> [[String: Any]] {
            others.withLock { $0 }.compactMap { line in
                let event = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
                return event?["event"] as? String == name ? event : nil
            }
        }

        func wait(for name: String, timeout: Double) throws -> [[String: Any]] {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                let found = events(name)
                if !found.isEmpty { return found }
                usleep(20_000)
            }
            return []
        }

        func command(_ command: [String: Any]) throws -> [String: Any] {
            let before = events("ok").count
            input.fileHandleForWriting.write(try JSONSerialization.data(withJSONObject: command) + Data([0x0a]))
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let replies = events("ok")
                if replies.count > before { return replies[before] }
                usleep(20_000)
            }
            throw BenchError.unexpected("the stand-in did not answer \(command)")
        }

        func stop() {
            if process.isRunning {
                process.terminate()
                process.waitUntilExit()
            }
        }
    }

    struct Phase {
        var name: String
        var sent: Int
        var offered: Int
        var received: Int
        var seconds: Double
        var latencies: [Double]
        var serverCPU: Double
        var standInCPU: Double
        var failures: [String]
    }

    /// Users, the conversation, the devices; then both phases.
    func run() throws -> (flat: Phase, paced: Phase) {
        let data = SendMessageData(client: client, plcDirectory: plcDirectory, senders: recipients + 1, convos: 1,
                                   ciphertextSize: ciphertextSize)
        let conversations = try data.setUp()
        let sender = conversations.users[0]
        for (index, user) in conversations.users.dropFirst().enumerated() {
            for device in 0..<devicesEach {
                let token = String(format: "%08x", index) + String(format: "%08x", device) + Hex.random(24)
                try client.call("blue.catbird.mls.registerDeviceToken", as: user,
                                json: ["deviceId": "d\(device)", "platform": "ios", "pushToken": token])
            }
        }
        let tokens = try Parallel.map(messages + pacedMessages + 1) { _ in
            try sender.token(audience: client.audience, nsid: SendMessageData.nsid)
        }
        let ids = MessageIDs()
        func body(_ index: Int) -> [UInt8] { Array((conversations.bodies[0] + ids.id(index) + "\"}").utf8) }
        // One message first, so that the connection to APNs is made before anything is measured.
        let warm = standIn.pushCount
        _ = try client.post(SendMessageData.nsid, token: tokens[messages + pacedMessages], body: body(messages + pacedMessages))
        while standIn.pushCount - warm < recipients * devicesEach { usleep(20_000) }
        let flat = try phase("flat out", tokens: Array(tokens[0..<messages]), firstID: 0, interval: 0, body: body)
        let paced = try phase(String(format: "one message / %.1f s", pacedInterval),
                              tokens: Array(tokens[messages..<(messages + pacedMessages)]), firstID: messages, interval: pacedInterval,
                              body: body)
        return (flat, paced)
    }

    private func phase(_ name: String, tokens: [String], firstID: Int, interval: Double,
                       body: (Int) -> [UInt8]) throws -> Phase {
        let start = standIn.pushCount
        let cpuBefore = (ProcessClock.cpuSeconds(ofProcess: serverPID) ?? 0, ProcessClock.cpuSeconds(ofProcess: standInPID) ?? 0)
        var sentAt: [Int: UInt64] = [:]
        var failures: [String] = []
        let began = ProcessClock.now()
        for (offset, token) in tokens.enumerated() {
            if interval > 0 {
                let due = began + UInt64(Double(offset) * interval * 1e9)
                let now = ProcessClock.now()
                if due > now { usleep(useconds_t((due - now) / 1000)) }
            }
            do {
                let reply = try client.post(SendMessageData.nsid, token: token, body: body(firstID + offset))
                if let seq = reply["seq"] as? Int { sentAt[seq] = ProcessClock.now() }
            } catch {
                failures.append("\(error)")
            }
        }
        let offered = sentAt.count * recipients * devicesEach
        let last = sentAt.keys.max() ?? 0
        // Every device's newest push is the last message's (the older ones may have been coalesced).
        let deadline = ProcessClock.now() + 60_000_000_000
        var pushes: [StandIn.Receipt] = []
        var finished = 0
        while ProcessClock.now() < deadline, finished < recipients * devicesEach {
            usleep(20_000)
            let fresh = standIn.pushes(from: start + pushes.count)
            finished += fresh.filter { $0.seq == last }.count
            pushes += fresh
        }
        let cpuAfter = (ProcessClock.cpuSeconds(ofProcess: serverPID) ?? 0, ProcessClock.cpuSeconds(ofProcess: standInPID) ?? 0)
        var latencies: [Double] = []
        var lastReceipt = began
        for push in pushes where push.status == 200 {
            guard let seq = push.seq, let sent = sentAt[seq] else { continue }
            let received = push.time
            lastReceipt = max(lastReceipt, received)
            latencies.append(received > sent ? Double(received - sent) / 1e6 : 0)
        }
        latencies.sort()
        return Phase(name: name, sent: sentAt.count, offered: offered, received: latencies.count,
                     seconds: Double(lastReceipt - began) / 1e9, latencies: latencies, serverCPU: cpuAfter.0 - cpuBefore.0,
                     standInCPU: cpuAfter.1 - cpuBefore.1, failures: failures)
    }

    struct Anchor {
        var rate: Double
        var seconds: Double
        var standInCPU: Double
        var clientCPU: Double
    }

    /// h2load against the stand-in: `requests` pushes of the same shape (a valid provider token, the
    /// headers, a 1 KB-ciphertext payload), `streams` at once on one connection, as the service's
    /// one connection per host. Returns requests per second and the stand-in's CPU per request.
    static func anchor(port: Int, key: [String: Any], requests: Int, streams: Int, standInPID: Int,
                       directory: String) throws -> Anchor {
        guard let file = key["file"] as? String, let keyID = key["key_id"] as? String, let teamID = key["team_id"] as? String,
              let topic = key["topic"] as? String else { throw BenchError.unexpected("no key") }
        let pem = Array(try Data(contentsOf: URL(fileURLWithPath: file)))
        let provider = APNsProviderToken(key: try PEMPrivateKey.ecdsa(pem: pem, curve: .p256), keyID: keyID, teamID: teamID)
        let notification = PushNotification(kind: "mlsMessage", convoID: Hex.random(16), seq: 1, epoch: 1, messageID: "bench",
                                            ciphertext: [UInt8](repeating: 0x5a, count: 1100), timeToLive: 3600,
                                            createdAt: Date().timeIntervalSince1970)
        let request = try APNsRequest(notification: notification, deviceToken: Hex.random(32), topic: topic, priority: 10)
        let payloadFile = directory + "/h2load-payload.json"
        try Data(request.payload).write(to: URL(fileURLWithPath: payloadFile))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/h2load")
        var arguments = ["-n", String(requests), "-c", "1", "-m", String(streams), "-d", payloadFile]
        arguments += ["-H", "authorization: bearer " + (try provider.token())]
        for (name, value) in request.headers { arguments += ["-H", name + ": " + value] }
        arguments.append("https://127.0.0.1:\(port)" + request.path)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let before = ProcessClock.cpuSeconds(ofProcess: standInPID) ?? 0
        let childrenBefore = childrenCPU()
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let after = ProcessClock.cpuSeconds(ofProcess: standInPID) ?? 0
        // "finished in 1.23s, 8130.08 req/s, 1.05MB/s" and "requests: N total, N started, N done, N succeeded, …"
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("finished in") }),
              let rate = line.split(separator: ",").dropFirst().first.flatMap({ Double($0.split(separator: " ")[0]) }),
              text.contains("\(requests) succeeded") else {
            throw BenchError.unexpected("h2load: \(text.suffix(400))")
        }
        return Anchor(rate: rate, seconds: Double(requests) / rate, standInCPU: (after - before) / Double(requests),
                      clientCPU: (childrenCPU() - childrenBefore) / Double(requests))
    }

    /// CPU seconds of this process's children that have ended and been waited for (h2load).
    static func childrenCPU() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_CHILDREN.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}

extension Hex {
    /// `count` random bytes as lower-case hex.
    static func random(_ count: Int) -> String { Hex.encode(SecureRandom.bytes(count)) }
}

extension PushBench {
    /// The section's lines, as `summarise` in scripts/bench.sh prints wrk's.
    /// `anchor`: h2load's run at the stand-in's ceiling (pushes/s); `burst`: h2load's time for one
    /// fan-out's worth of requests (the floor of a fan-out's last push).
    static func report(_ phase: Phase, anchor: Anchor?, burst: Anchor? = nil) {
        let rate = Double(phase.received) / max(phase.seconds, 1e-9)
        func percentile(_ fraction: Double) -> String {
            guard !phase.latencies.isEmpty else { return "-" }
            return String(format: "%.1fms", phase.latencies[min(phase.latencies.count - 1, Int(Double(phase.latencies.count) * fraction))])
        }
        var line = ("APNs push, " + phase.name).padding(toLength: 30, withPad: " ", startingAt: 0)
        // Paced, the rate is the offered one (a fan-out every interval), not a capacity: left out.
        line += burst == nil ? String(format: " %9.0f push/s  ", rate) : "                   "
        line += "p50 " + percentile(0.5).leftPadded(9) + "   p99 " + percentile(0.99).leftPadded(9)
        line += "   (sendMessage 2xx → push received by the stand-in)"
        if let anchor { line += String(format: "  | %.2f× h2load's %.0f req/s at the same stand-in", rate / anchor.rate, anchor.rate) }
        if let burst {
            line += String(format: "  | h2load sends %d requests (one fan-out) in %.0fms", phase.offered / max(phase.sent, 1), burst.seconds * 1000)
        }
        Swift.print(line)
        var second = "  \(phase.sent) messages to 1,000 offline devices: \(phase.received) pushes of \(phase.offered) offered"
        if phase.received < phase.offered { second += " (the rest coalesced: one pending push per device and conversation)" }
        second += String(format: " in %.2f s; CPU per push: server %.0f µs, stand-in %.0f µs", phase.seconds,
                         phase.serverCPU / Double(max(phase.received, 1)) * 1e6, phase.standInCPU / Double(max(phase.received, 1)) * 1e6)
        if let anchor {
            second += String(format: "; h2load run: stand-in %.0f µs, h2load %.0f µs per request", anchor.standInCPU * 1e6, anchor.clientCPU * 1e6)
        }
        Swift.print(second)
        if !phase.failures.isEmpty { Swift.print("  \(phase.failures.count) sendMessage calls failed, first: \(phase.failures[0])") }
    }
}

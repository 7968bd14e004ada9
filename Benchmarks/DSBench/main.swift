// `ds-bench`: the delivery-service load generator of `make bench` (scripts/bench.sh). A client
// only: it talks to a running server over HTTP and never links server code.
//
//   ds-bench plc --port P --dir D [--junk-delay S]
//       serves the DID documents written to D as a PLC directory, until killed; with --junk-delay,
//       DIDs not in D get their 404 only after S seconds
//   ds-bench push --work DIR --python PY --standin apns_standin.py --server-binary BIN --port P --audience DID
//                 --plc-url URL --plc-dir D [--recipients 100] [--devices-each 10] [--messages 20] [--paced-messages 10]
//                 [--paced-interval-ms 2000]
//       APNs pushes/s and 2xx → push latency through the APNs stand-in, next to h2load at the same stand-in
//   ds-bench abuse --server URL --audience DID --plc-dir D [--junk-rate 100] [--seconds 10] [--known-rate 20]
//       a known user's getConvos latency while tokens for unknown DIDs arrive at --junk-rate per second
//   ds-bench abuse-items --server URL --server-pid PID --audience DID --plc-dir D
//                        [--limited-server URL --limited-pid PID --limited-message-quota BYTES --limited-mqtt-port P]
//                        [--seconds 4] [--baseline 2] [--known-rate 20] [--attacker-address 127.0.0.2] [--only 2,7b,8]
//       issue 14's items 2–8, each the attack over HTTP from --attacker-address: a known user's
//       latency alone and during it, what the server answered, the server's RSS and CPU; the
//       limited server (production rate limits and connection cap) takes the attacks those stop, and
//       the MQTT listener's (m1, m2, m4) on its MQTT port
//   ds-bench prepare --server URL --audience DID --plc-dir D --out O
//                    [--senders 16] [--convos 16] [--send-requests 30000] [--key-packages 25000]
//                    [--ciphertext-size 1024] [--read-requests 40000]
//       creates users and conversations over the API and writes wrk data files to O:
//       send-bodies.txt, send-hot.txt (all in one conversation), send-spread.txt, publish.txt,
//       get-messages.txt, get-convos.txt
//   ds-bench chat-prepare --server URL --audience DID --plc-dir D --state S
//                         [--senders 16] [--convos 16] [--ciphertext-size 1024]
//       the chat contract's sendMessage set-up in prepare's shapes: users, one enrolled device each,
//       every device a leaf of every conversation (X-Wing), a warm-up message per device; saved to S
//   ds-bench chat-load --server URL --audience DID --state S --convos K --requests N --out F [--mint-seconds 40]
//       right before a run: N signed chat sendMessage requests over the first K conversations, each
//       with its own 60 s token, as wrk publish lines `<token> <JSON body>` (fewer if minting their
//       tokens would take longer than --mint-seconds); the earliest iat (Unix seconds) in F.iat
//   ds-bench add-members --server URL --audience DID --plc-dir D [--adds 100] [--rounds 5]
//       prints the client commit-creation time and the server request time, medians of the rounds
//   ds-bench events --server URL --audience DID --plc-dir D [--subscribers 200] [--sockets-per-user 5]
//                   [--messages 500] [--rate 100] [--sender-threads 4] [--reader-threads 2]
//                   [--ciphertext-size 1024] [--server-pid PID] [--label NAME]
//       subscribeConvoEvents: events/s delivered to the sockets and sendMessage → receipt latency
//   ds-bench mqtt --server URL --audience DID --plc-dir D --mqtt-port P [--mosquitto-port M]
//                 [--subscribers 200] [--clients-per-user 5] [--messages 2000] [--paced-messages 1000]
//                 [--rate 100] [--window 32]
//                 [--ciphertext-size 1024] [--server-pid PID] [--mosquitto-pid PID]
//       MQTT fan-out: deliveries/s and publish → receive latency, mosquitto and the service's listener
//   ds-bench failover --servers URL,URL… --audience DID --plc-dir D --kill COMMAND [--label NAME]
//                     [--senders 4] [--subscribers-per-node 2] [--before 3] [--after 3]
//                     [--recover-within 15] [--hang-limit 30] [--no-outage 1]
//       one database failure (COMMAND, run with bash) under sendMessage load through every node,
//       with subscribers on every node and a racing pair of commits; checks what scripts/ha-test.sh
//       lists (Failover.swift) and exits 1 if one fails; --no-outage: the failure leaves a primary
//       (a standby's), so _health need not answer 503
//   ds-bench send-rate --server URL --audience DID --plc-dir D [--clients 16] [--seconds 5] [--label NAME]
//       sendMessage calls per second for closed-loop clients, each call a fresh message and token
import Foundation
import HTTP
import MQTTClient
import Primitives

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func prepare(_ options: Options) throws {
    let client = try options.client()
    let plc = try options.string("plc-dir")
    let out = try options.string("out")
    let requests = try options.int("send-requests", default: 30_000)
    let clock = Stopwatch()
    let send = SendMessageData(client: client, plcDirectory: plc, senders: try options.int("senders", default: 16),
                               convos: try options.int("convos", default: 16),
                               ciphertextSize: try options.int("ciphertext-size", default: 1024))
    let conversations = try send.setUp()
    try SendMessageData.writeBodies(conversations, to: out + "/send-bodies.txt")
    let ids = MessageIDs()
    try send.writeLoad(conversations, usingConvos: 1, count: requests, idOffset: 0, ids: ids, to: out + "/send-hot.txt")
    try send.writeLoad(conversations, usingConvos: send.convos, count: requests, idOffset: requests, ids: ids,
                       to: out + "/send-spread.txt")
    let reads = try options.int("read-requests", default: 40_000)
    try ReadData.write(conversations, audience: client.audience, count: reads, messagesTo: out + "/get-messages.txt",
                       convosTo: out + "/get-convos.txt")
    let packages = try options.int("key-packages", default: 25_000)
    let owners = try KeyPackageData(client: client, plcDirectory: plc).write(count: packages, to: out + "/publish.txt")
    let sizes = conversations.ciphertextSizes
    print("prepared: \(send.senders) senders in \(send.convos) convos, PrivateMessage \(sizes.min()!)–\(sizes.max()!) B, "
        + "2 × \(requests) sendMessage tokens, 2 × \(reads) read tokens; \(packages) KeyPackages of \(owners) users "
        + String(format: "(%.1f s)", clock.seconds))
    let rates = try TokenSignatureRate.measure()
    print(String(format: "ES256K on one core: sign %.0f/s (OpenSSL); verify (native secp256k1, the server's call, once per request) "
                 + "%.0f/s with a key seen before, %.0f/s at a key's first use", rates.sign, rates.verify, rates.firstUse))
}

func chatPrepare(_ options: Options) throws {
    let clock = Stopwatch()
    let data = ChatSendData(server: try options.string("server"), serviceDID: try options.string("audience"))
    let senders = try options.int("senders", default: 16), convos = try options.int("convos", default: 16)
    let state = try data.setUp(senders: senders, convos: convos, ciphertextSize: try options.int("ciphertext-size", default: 1024),
                               plcDirectory: try options.string("plc-dir"), stateDirectory: try options.string("state"))
    try state.save()
    print("chat prepared: \(senders) devices, each a leaf of \(convos) conversations (X-Wing), a warm-up message each "
        + String(format: "(%.1f s)", clock.seconds))
}

func chatLoad(_ options: Options) throws {
    let data = ChatSendData(server: try options.string("server"), serviceDID: try options.string("audience"))
    var state = try ChatBenchState.load(from: try options.string("state"))
    let out = try options.string("out")
    let count = try options.int("requests", default: 150_000)
    let mintSeconds = Double(try options.int("mint-seconds", default: 40))
    let load = try data.writeLoad(&state, usingConvos: try options.int("convos", default: 16), count: count, mintSeconds: mintSeconds,
                                  to: out)
    try Data("\(Int(load.issuedAt.timeIntervalSince1970))\n".utf8).write(to: URL(fileURLWithPath: out + ".iat"))
    print(String(format: "chat: %d sendMessage bodies sealed and signed in %.1f s; %d tokens minted in %.1f s%@ (%.0f MB)",
                 count, load.sealSeconds, load.requests, load.tokenSeconds,
                 load.requests < count ? String(format: ", as many as %.0f s allow", mintSeconds) : "", Double(load.bytes) / 1e6))
}

func addMembers(_ options: Options) throws {
    let adds = try options.int("adds", default: 100)
    let rounds = try options.int("rounds", default: 5)
    let bench = AddMembersBench(client: try options.client(), plcDirectory: try options.string("plc-dir"))
    let results = try bench.run(adds: adds, rounds: rounds)
    let requests = results.map(\.requestSeconds)
    let name = "addMembers, \(adds) adds".padding(toLength: 30, withPad: " ", startingAt: 0)
    print(name + String(format: "client Group.add %.1f ms   server request %.1f ms (min %.1f, max %.1f; body %d KB; median of %d fresh convos)",
                        median(results.map(\.commitSeconds)) * 1000, median(requests) * 1000, requests.min()! * 1000,
                        requests.max()! * 1000, results[0].requestBytes / 1024, rounds))
}

func abuse(_ options: Options) throws {
    let bench = AbuseBench(client: try options.client(), plcDirectory: try options.string("plc-dir"),
                           junkRate: try options.int("junk-rate", default: 100), seconds: try options.int("seconds", default: 10),
                           knownRate: try options.int("known-rate", default: 20))
    try bench.run()
}

func abuseItems(_ options: Options) throws {
    let plc = try options.string("plc-dir")
    let attackerAddress = options.optionalString("attacker-address") ?? "127.0.0.2"
    func target(_ name: String, url: String, pid: Int) throws -> AbuseItemsBench.Target {
        guard let port = url.split(separator: ":").last.flatMap({ Int($0) }) else {
            throw BenchError.usage("server URLs must be http://127.0.0.1:PORT for abuse-items")
        }
        let client = XRPCClient(baseURL: url, audience: try options.string("audience"))
        return AbuseItemsBench.Target(name: name, client: client, process: ServerProcess(pid: pid),
                                      known: try KnownUser(try BenchUser(), client: client, plcDirectory: plc),
                                      attacker: AttackRequest(port: port, source: attackerAddress))
    }
    var limited = try options.optionalString("limited-server").map { url in
        try target("limited server", url: url, pid: try options.int("limited-pid", default: 0))
    }
    limited?.mqttPort = try options.optionalInt("limited-mqtt-port")
    let bench = AbuseItemsBench(
        bench: try target("bench server", url: try options.string("server"), pid: try options.int("server-pid", default: 0)),
        limited: limited, limitedMessageQuota: try options.optionalInt("limited-message-quota"), plcDirectory: plc,
        seconds: Double(try options.int("seconds", default: 4)), baseline: Double(try options.int("baseline", default: 2)),
        knownRate: try options.int("known-rate", default: 20),
        only: options.optionalString("only").map { Set($0.split(separator: ",").map(String.init)) })
    try bench.run()
}

func events(_ options: Options) throws {
    let server = try options.string("server")
    guard let port = server.split(separator: ":").last.flatMap({ Int($0) }) else {
        throw BenchError.usage("--server must be http://127.0.0.1:PORT for events")
    }
    let bench = EventsBench(
        client: try options.client(), plcDirectory: try options.string("plc-dir"), port: port,
        subscribers: try options.int("subscribers", default: 200), socketsPerUser: try options.int("sockets-per-user", default: 5),
        messages: try options.int("messages", default: 500), rate: Double(try options.int("rate", default: 100)),
        senderThreads: try options.int("sender-threads", default: 4), readerThreads: try options.int("reader-threads", default: 2),
        ciphertextSize: try options.int("ciphertext-size", default: 1024),
        serverPID: try options.optionalInt("server-pid"))
    try EventsReport(bench: bench, outcome: try bench.run(), label: options.optionalString("label")).print()
}

func mqtt(_ options: Options) throws {
    let client = try options.client()
    let subscribers = try options.int("subscribers", default: 200)
    let perUser = try options.int("clients-per-user", default: 5)
    let bench = MQTTBench(subscribers: subscribers, clientsPerUser: perUser, messages: try options.int("messages", default: 2000),
                          pacedMessages: try options.int("paced-messages", default: 1000),
                          rate: Double(try options.int("rate", default: 100)),
                          window: try options.int("window", default: 32), ciphertextSize: try options.int("ciphertext-size", default: 1024))
    // Each broker: a flat-out run and a paced one, each with its own warm-up message.
    let group = try MQTTBench.prepare(client: client, plcDirectory: try options.string("plc-dir"),
                                      members: (subscribers + perUser - 1) / perUser,
                                      messages: 2 * (bench.messages + 1 + bench.pacedMessages + 1), ciphertextSize: bench.ciphertextSize)
    let flat = bench.messages + 1, paced = bench.pacedMessages + 1
    func runs(_ offset: Int) -> (flat: [[UInt8]], paced: [[UInt8]]) {
        (Array(group.payloads[offset..<offset + flat]), Array(group.payloads[offset + flat..<offset + flat + paced]))
    }
    func clientID() -> String { SecureRandom.bytes(16).map { String(format: "%02x", $0) }.joined() }
    func connectOptions(as user: BenchUser) throws -> MQTTClient.Options {
        MQTTClient.Options(clientIdentifier: clientID(), userName: user.did.rawValue,
                           password: Array(try user.token(audience: client.audience, nsid: "blue.catbird.mls.mqttConnect").utf8),
                           receiveMaximum: 256)
    }
    var anchors: (flat: MQTTBench.Outcome, paced: MQTTBench.Outcome)?
    if let mosquitto = try options.optionalInt("mosquitto-port") {
        let plain = MQTTBench.Target(
            name: "mosquitto 2.0 (no persistence)", port: mosquitto, topic: "bench/fanout",
            subscriber: { _ in MQTTClient.Options(clientIdentifier: clientID(), receiveMaximum: 256) },
            publisher: { MQTTClient.Options(clientIdentifier: clientID()) }, serverPID: try options.optionalInt("mosquitto-pid"))
        let payloads = runs(0)
        let flatOutcome = try bench.run(plain, payloads: payloads.flat)
        MQTTBench.report(flatOutcome, anchor: nil)
        let pacedOutcome = try bench.run(plain, payloads: payloads.paced, rate: bench.rate)
        MQTTBench.report(pacedOutcome, anchor: nil)
        anchors = (flatOutcome, pacedOutcome)
    }
    let ours = MQTTBench.Target(
        name: "catbird-mls MQTT (validated)", port: try options.int("mqtt-port", default: 0), topic: "relay/g/\(group.convoID)/m",
        subscriber: { index in try connectOptions(as: group.users[1 + index / perUser]) },
        publisher: { try connectOptions(as: group.users[0]) }, serverPID: try options.optionalInt("server-pid"))
    let payloads = runs(flat + paced)
    MQTTBench.report(try bench.run(ours, payloads: payloads.flat), anchor: anchors?.flat)
    MQTTBench.report(try bench.run(ours, payloads: payloads.paced, rate: bench.rate), anchor: anchors?.paced)
}

/// `ds-bench push`: the APNs stand-in and a push-enabled server (children of this process, on the
/// database of DATABASE_URL), then `PushBench`'s two phases and h2load's anchor.
func push(_ options: Options) throws {
    let work = try options.string("work")
    let standIn = try PushBench.StandIn(python: try options.string("python"), script: try options.string("standin"), directory: work)
    defer { standIn.stop() }
    let key = try standIn.command(["cmd": "key"])
    guard let file = key["file"] as? String, let keyID = key["key_id"] as? String, let teamID = key["team_id"] as? String,
          let topic = key["topic"] as? String else { throw BenchError.unexpected("the stand-in made no key") }
    let port = try options.int("port", default: 0)
    let server = Process()
    server.executableURL = URL(fileURLWithPath: try options.string("server-binary"))
    server.environment = ProcessInfo.processInfo.environment.merging([
        "SERVICE_DID": try options.string("audience"), "PLC_URL": try options.string("plc-url"), "DID_RESOLVER_ALLOW_PRIVATE": "1",
        "LOG_LEVEL": "warning", "RATE_LIMIT_ENABLED": "0", "MAX_CONNECTIONS_PER_IP": "0", "PORT": String(port),
        "APNS_KEY_FILE": file, "APNS_KEY_ID": keyID, "APNS_TEAM_ID": teamID, "APNS_TOPIC": topic,
        "APNS_HOST": "https://127.0.0.1:\(standIn.port)", "APNS_CA_FILE": work + "/standin-cert.pem",
    ]) { _, new in new }
    try server.run()
    defer {
        server.terminate()
        server.waitUntilExit()
    }
    let client = XRPCClient(baseURL: "http://127.0.0.1:\(port)", audience: try options.string("audience"))
    var healthy = false
    for _ in 0..<200 where !healthy {
        healthy = (try? HTTPClient(timeout: 1, allowPrivateAddresses: true).get(client.baseURL + "/xrpc/_health").status) == 200
        if !healthy { usleep(50_000) }
    }
    guard healthy else { throw BenchError.unexpected("the push server did not start") }
    let bench = PushBench(client: client, plcDirectory: try options.string("plc-dir"), recipients: try options.int("recipients", default: 100),
                          devicesEach: try options.int("devices-each", default: 10), messages: try options.int("messages", default: 20),
                          pacedMessages: try options.int("paced-messages", default: 10),
                          pacedInterval: Double(try options.int("paced-interval-ms", default: 2000)) / 1000, ciphertextSize: 1024, standIn: standIn,
                          serverPID: Int(server.processIdentifier), standInPID: Int(standIn.process.processIdentifier))
    let (flat, paced) = try bench.run()
    let anchor = try PushBench.anchor(port: standIn.port, key: key, requests: 20_000, streams: 64,
                                      standInPID: Int(standIn.process.processIdentifier), directory: work)
    let burst = try PushBench.anchor(port: standIn.port, key: key, requests: bench.recipients * bench.devicesEach, streams: 64,
                                     standInPID: Int(standIn.process.processIdentifier), directory: work)
    PushBench.report(flat, anchor: anchor)
    PushBench.report(paced, anchor: nil, burst: burst)
}

func failover(_ options: Options) throws {
    let audience = try options.string("audience")
    let nodes = try options.string("servers").split(separator: ",").map { XRPCClient(baseURL: String($0), audience: audience) }
    func seconds(_ name: String, _ fallback: Int) throws -> Double { Double(try options.int(name, default: fallback)) }
    let run = FailoverRun(nodes: nodes, plcDirectory: try options.string("plc-dir"), settings: FailoverRun.Settings(
        label: options.optionalString("label") ?? "failover", kill: try options.string("kill"),
        senders: try options.int("senders", default: 4), subscribersPerNode: try options.int("subscribers-per-node", default: 2),
        before: try seconds("before", 3), after: try seconds("after", 3),
        recoverWithin: try seconds("recover-within", 15), hangLimit: try seconds("hang-limit", 30),
        expectOutage: options.optionalString("no-outage") == nil))
    if !(try run.run()) { exit(1) }
}

func sendRate(_ options: Options) throws {
    let clients = try options.int("clients", default: 16)
    let seconds = try options.int("seconds", default: 5)
    let (rate, failed) = try SendRate(node: try options.client(), plcDirectory: try options.string("plc-dir"), clients: clients,
                                      seconds: Double(seconds)).run()
    print(String(format: "send-rate%@: %.0f sendMessage/s (%d closed-loop clients, %d s)",
                 options.optionalString("label").map { " " + $0 } ?? "", rate, clients, seconds) + (failed > 0 ? ", \(failed) calls failed" : ""))
    if failed > 0 { exit(1) }
}

do {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    switch options.command {
    case "plc":
        try PLCDirectory.serve(port: try options.int("port", default: 0), directory: try options.string("dir"),
                               junkDelay: try options.optionalInt("junk-delay").map(Double.init))
    case "abuse": try abuse(options)
    case "abuse-items": try abuseItems(options)
    case "prepare": try prepare(options)
    case "chat-prepare": try chatPrepare(options)
    case "chat-load": try chatLoad(options)
    case "add-members": try addMembers(options)
    case "events": try events(options)
    case "mqtt": try mqtt(options)
    case "push": try push(options)
    case "failover": try failover(options)
    case "send-rate": try sendRate(options)
    default: throw BenchError.usage("unknown command \(options.command)")
    }
} catch {
    FileHandle.standardError.write(Data("ds-bench: \(error)\n".utf8))
    exit(1)
}

import ATProto
import Foundation

/// Item 7, connections and workers: slow uploads holding workers, one address opening connections
/// without end, and large bodies sent with a token that cannot pass.
extension AbuseItemsBench {
    func transportItems() -> [(String, () throws -> Item?)] {
        [("7a", slowUploadsItem), ("7b", connectionFloodItem), ("7c", badTokenBodiesItem)]
    }

    /// 8 accounts × 5 createConvo heads declaring 1 MiB, then a byte every 100 ms on each: 40
    /// uploads for 32 workers. An upload the server answers (or closes) is opened again at the next tick.
    func slowUploadsItem() throws -> Item? {
        let accounts = try (0..<8).map { _ in try attackerAccount() }
        let audience = bench.client.audience, request = bench.attacker
        let nsid = "blue.catbird.mls.createConvo"
        return Item(number: "7a", attack: "slow uploads: 8 accounts × 5 createConvo bodies of 1 MiB, each sent a byte per 100 ms "
                        + "(40 for 32 workers); answered ones reopened",
                    stoppedBy: "MAX_UPLOADS_PER_USER (4) and MAX_UPLOADS (half of WORKER_THREADS: 16) bodies streaming at once, "
                        + "more answered 429 / 503; BODY_MIN_RATE (4096 B/s) cuts a drip with 408 only after BODY_READ_TIMEOUT "
                        + "(30 s), beyond this run (AbuseTransportTests shows it)",
                    target: bench, knownCall: "getConvos", knownRate: knownRate, call: bench.known.getConvos, threads: 1) { _, run in
            var open: [LoopbackSocket?] = Array(repeating: nil, count: accounts.count * 5)
            while run.isRunning {
                for slot in open.indices {
                    guard let socket = open[slot] else {
                        open[slot] = try? Self.startUpload(request, nsid, token: try? accounts[slot / 5].token(audience: audience, nsid: nsid))
                        if open[slot] == nil { run.tally.add("connect failed") }
                        continue
                    }
                    if socket.hasInput || (try? socket.sendAll([UInt8(ascii: " ")], retryingWhenFull: false)) == nil {
                        run.tally.add(AttackRequest.readAnswer(socket).label)
                        socket.close()
                        open[slot] = nil
                    }
                }
                Thread.sleep(forTimeInterval: 0.1)
            }
            Self.settle(open.compactMap { $0 }, run, otherwise: "still streaming when the attack stopped")
        }
    }

    /// Counts and closes the connections left when an attack stops: those opened last get their
    /// answer within 200 ms; the others are what the server still holds.
    static func settle(_ sockets: [LoopbackSocket], _ run: AttackRun, otherwise label: String) {
        Thread.sleep(forTimeInterval: 0.2)
        for socket in sockets {
            run.tally.add(socket.hasInput ? AttackRequest.readAnswer(socket).label : label)
            socket.close()
        }
    }

    /// The head of a 1 MiB POST and its first body byte, on a non-blocking connection.
    static func startUpload(_ request: AttackRequest, _ nsid: String, token: String?) throws -> LoopbackSocket {
        let socket = try LoopbackSocket.connect(port: request.port, from: request.source, timeout: 5)
        try socket.sendAll(Array(("POST /xrpc/\(nsid) HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer \(token ?? "-")\r\n"
            + "Content-Type: application/json\r\nContent-Length: \(1 << 20)\r\n\r\n{").utf8), retryingWhenFull: false)
        socket.setNonBlocking()
        return socket
    }

    /// One address opening connections without end (up to 5000 at once, more than MAX_CONNECTIONS'
    /// 4096), sending nothing; each one the server answers or closes is replaced, at most 2000 a second.
    func connectionFloodItem() throws -> Item? {
        guard let limited else { return nil }
        let request = limited.attacker
        return Item(number: "7b", attack: "connection flood from one address: up to 5000 idle connections at once (MAX_CONNECTIONS is "
                        + "4096), refused ones replaced at up to 2000/s",
                    stoppedBy: "MAX_CONNECTIONS_PER_IP (64): more are answered 503 and closed",
                    target: limited, knownCall: "getConvos", knownRate: knownRate, call: limited.known.getConvos, threads: 1) { _, run in
            guard let readiness = try? ReadinessSet(capacity: 1024) else { return run.tally.add("epoll failed") }
            var open: [Int: LoopbackSocket] = [:]
            var opened = 0
            let clock = Stopwatch()
            while run.isRunning {
                for _ in 0..<max(0, min(Int(clock.seconds * 2000) - opened, 5000 - open.count)) {
                    opened += 1
                    guard let socket = try? LoopbackSocket.connect(port: request.port, from: request.source, timeout: 2),
                          (try? readiness.add(socket, token: opened)) != nil else {
                        run.tally.add("connect failed")
                        continue
                    }
                    socket.setNonBlocking()
                    open[opened] = socket
                }
                for token in readiness.wait(timeoutMilliseconds: 10) {
                    guard let socket = open.removeValue(forKey: token) else { continue }
                    readiness.remove(socket)
                    run.tally.add(AttackRequest.readAnswer(socket).label)
                    socket.close()
                }
            }
            Self.settle(Array(open.values), run, otherwise: "held open when the attack stopped")
        }
    }

    /// 16 MiB createConvo bodies with a token that is garbage or signed by the wrong key (claiming
    /// the known user's DID), eight connections back to back.
    func badTokenBodiesItem() throws -> Item? {
        let nsid = "blue.catbird.mls.createConvo"
        let forger = try BenchUser()
        let victim = bench.known.user.did, audience = bench.client.audience, request = bench.attacker
        let body = [UInt8](repeating: UInt8(ascii: "a"), count: 16 << 20)
        return Item(number: "7c", attack: "createConvo bodies of 16 MiB with a garbage token or one signed by the wrong key, "
                        + "8 connections back to back",
                    stoppedBy: "the token judged from the request head: 401, then a lingering close that drops what follows "
                        + "(for up to 2 s) without keeping it",
                    target: bench, knownCall: "getConvos", knownRate: knownRate, call: bench.known.getConvos, threads: 8) { thread, run in
            run.repeatedly {
                let token = thread % 2 == 0 ? "garbage"
                    : try ServiceAuthToken.mint(issuer: victim, audience: audience, lexiconMethod: nsid, key: forger.key)
                return request.send("POST /xrpc/\(nsid) HTTP/1.1\r\nHost: bench\r\nAuthorization: Bearer \(token)\r\n"
                    + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n", body: body)
            }
        }
    }
}

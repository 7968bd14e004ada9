import Dispatch
import Foundation
import HTTP
import Synchronization

/// Issue 14's abuse line: a known user's getConvos latency, alone and then while tokens for DIDs
/// the PLC directory does not know (and, with `ds-bench plc --junk-delay`, answers only after a long
/// wait) arrive at `junkRate` per second, each on its own connection as a botnet would send them.
struct AbuseBench {
    let client: XRPCClient
    let plcDirectory: String
    let junkRate: Int
    let seconds: Int
    let knownRate: Int

    func run() throws {
        let known = try KnownUser(try BenchUser(), client: client, plcDirectory: plcDirectory)
        var alone: [Double] = [], during: [Double] = []
        try SteadyCalls.pace(rate: knownRate, for: 3) { alone.append(try known.getConvos()) }
        let junk = JunkSender(url: client.baseURL + "/xrpc/" + KnownUser.getConvos, audience: client.audience, rate: junkRate)
        junk.start()
        try SteadyCalls.pace(rate: knownRate, for: Double(seconds)) { during.append(try known.getConvos()) }
        junk.stop()
        let answered = junk.finish(waitingUpTo: 30)

        print(SteadyCalls.line("getConvos, known user alone", alone))
        print(SteadyCalls.line("getConvos + \(junkRate) junk DIDs/s", during)
            + "   (\(junk.sentCount) junk tokens: " + answered.map { "\($0.value)× \($0.key == -1 ? "no answer" : String($0.key))" }.joined(separator: ", ") + ")")
    }
}

/// Sends getConvos with a token for a fresh random did:plc at a fixed rate, each request on its
/// own thread and connection, and counts the answers by status.
final class JunkSender: Sendable {
    let url: String
    let audience: String
    let rate: Int
    private let running = Atomic<Bool>(false)
    private let statuses = Mutex<[Int: Int]>([:])
    private let sent = Atomic<Int>(0)
    private let outstanding = DispatchGroup()

    init(url: String, audience: String, rate: Int) {
        self.url = url
        self.audience = audience
        self.rate = rate
    }

    var sentCount: Int { sent.load(ordering: .relaxed) }

    func start() {
        running.store(true, ordering: .relaxed)
        Thread { [self] in
            let clock = Stopwatch()
            var next = 0.0
            while running.load(ordering: .relaxed) {
                if next > clock.seconds { Thread.sleep(forTimeInterval: next - clock.seconds) }
                next += 1 / Double(rate)
                sendOne()
            }
        }.start()
    }

    func stop() { running.store(false, ordering: .relaxed) }

    /// Waits for the answers still outstanding; statuses by count (-1: none within the wait).
    func finish(waitingUpTo seconds: Double) -> [Int: Int] {
        _ = outstanding.wait(timeout: .now() + seconds)
        var counts = statuses.withLock { $0 }
        let missing = sentCount - counts.values.reduce(0, +)
        if missing > 0 { counts[-1] = missing }
        return counts
    }

    private func sendOne() {
        guard let junk = try? BenchUser(), let token = try? junk.token(audience: audience, nsid: KnownUser.getConvos) else { return }
        sent.add(1, ordering: .relaxed)
        outstanding.enter()
        let url = url
        Thread { [self] in
            let http = HTTPClient(timeout: 60, allowPrivateAddresses: true)
            let status = (try? http.send(method: "GET", url, headers: [("Authorization", "Bearer " + token)]).status) ?? 0
            statuses.withLock { $0[status, default: 0] += 1 }
            outstanding.leave()
        }.start()
    }
}

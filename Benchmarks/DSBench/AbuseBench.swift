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

    static let nsid = "blue.catbird.mls.getConvos"

    func run() throws {
        let known = try BenchUser()
        try PLCDirectory.publish(known, in: plcDirectory)
        let url = client.baseURL + "/xrpc/" + Self.nsid
        let http = HTTPClient(timeout: 60, allowPrivateAddresses: true)
        // The first call fetches the user's document; from then on the key is cached.
        let first = try http.send(method: "GET", url, headers: [("Authorization", "Bearer " + known.token(audience: client.audience, nsid: Self.nsid))])
        guard first.status == 200 else { throw BenchError.call(nsid: Self.nsid, status: first.status, body: String(decoding: first.body, as: UTF8.self)) }

        let alone = try knownUser(known, url: url, for: 3, while: nil)
        let junk = JunkSender(url: url, audience: client.audience, rate: junkRate)
        let during = try knownUser(known, url: url, for: Double(seconds), while: junk)
        let answered = junk.finish(waitingUpTo: 30)

        print(line("getConvos, known user alone", alone))
        print(line("getConvos + \(junkRate) junk DIDs/s", during)
            + "   (\(junk.sentCount) junk tokens: " + answered.map { "\($0.value)× \($0.key == -1 ? "no answer" : String($0.key))" }.joined(separator: ", ") + ")")
    }

    private func line(_ name: String, _ latencies: [Double]) -> String {
        let sorted = latencies.sorted()
        func at(_ fraction: Double) -> String {
            String(format: "%.2fms", sorted[min(sorted.count - 1, Int(Double(sorted.count) * fraction))] * 1000)
        }
        return name.padding(toLength: max(30, name.count), withPad: " ", startingAt: 0)
            + String(format: " %9d calls   ", sorted.count) + "p50 " + at(0.5).leftPadded(9) + "   p99 " + at(0.99).leftPadded(9)
            + String(format: "   max %.1fms", (sorted.last ?? 0) * 1000)
    }

    /// getConvos at `knownRate` per second for `duration` seconds; every call must succeed.
    private func knownUser(_ user: BenchUser, url: String, for duration: Double, while junk: JunkSender?) throws -> [Double] {
        let http = HTTPClient(timeout: 60, allowPrivateAddresses: true)
        junk?.start()
        let clock = Stopwatch()
        var latencies: [Double] = []
        var next = 0.0
        while clock.seconds < duration {
            if next > clock.seconds { Thread.sleep(forTimeInterval: next - clock.seconds) }
            next += 1 / Double(knownRate)
            let token = try user.token(audience: client.audience, nsid: Self.nsid)
            let call = Stopwatch()
            let response = try http.send(method: "GET", url, headers: [("Authorization", "Bearer " + token)])
            latencies.append(call.seconds)
            guard response.status == 200 else {
                throw BenchError.call(nsid: Self.nsid, status: response.status, body: String(decoding: response.body, as: UTF8.self))
            }
        }
        junk?.stop()
        return latencies
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
        guard let junk = try? BenchUser(), let token = try? junk.token(audience: audience, nsid: AbuseBench.nsid) else { return }
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

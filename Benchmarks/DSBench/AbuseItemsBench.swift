import Dispatch
import Foundation
import Synchronization

/// Issue 14's items 2–8, each the real attack over HTTP against a running server: a known user's
/// calls at a steady rate, alone and then while the attack repeats, with what the server answered
/// the attacker, the server's RSS before and after (and its sampled peak), and the CPU the
/// attacker (this process) and the server used meanwhile. Item 1 is `AbuseBench`.
///
/// The attacker connects from `attackerAddress` (another address of 127.0.0.0/8), the known user
/// from 127.0.0.1, so per-address limits tell them apart as they would two hosts.
struct AbuseItemsBench {
    /// The server an attack is aimed at, with the known user that calls it meanwhile.
    struct Target {
        let name: String
        let client: XRPCClient
        let process: ServerProcess
        let known: KnownUser
        /// The attacker's requests go here, from `source`.
        let attacker: AttackRequest
        /// The server's MQTT listener, if the items may use it.
        var mqttPort: Int? = nil
    }

    /// One attack: what it is, what is meant to stop it, what the known user does meanwhile, and
    /// the attacker's loop (run on `threads` threads until the run stops).
    struct Item {
        let number: String
        let attack: String
        let stoppedBy: String
        let target: Target
        let knownCall: String
        let knownRate: Int
        let call: () throws -> Double
        let threads: Int
        let attacker: @Sendable (_ thread: Int, _ run: AttackRun) -> Void
        /// A line on what the attack left behind, measured after it.
        var afterwards: ((AttackRun) throws -> String)? = nil
    }

    let bench: Target
    /// A server with the production defaults (rate limits and the per-address connection cap on);
    /// nil: the attacks whose defence those are are not run.
    let limited: Target?
    /// The limited server's MESSAGE_QUOTA_BYTES (lowered, so that item 8b reaches it in seconds).
    let limitedMessageQuota: Int?
    let plcDirectory: String
    let seconds: Double
    let baseline: Double
    let knownRate: Int
    /// Item numbers to run ("7"), or every one.
    let only: Set<String>?

    func run() throws {
        var steps: [(String, () throws -> Item?)] = []
        steps += mlsItems()
        steps += transportItems()
        steps += quotaItems()
        steps += mqttItems()
        // `--only 7` runs 7a, 7b and 7c.
        for (number, make) in steps where only.map({ $0.contains(number) || $0.contains(String(number.prefix(1))) }) ?? true {
            guard let item = try make() else {
                print("item \(number): not run (needs --limited-server: a server with the production rate limits and connection cap)")
                continue
            }
            try measure(item)
        }
    }

    private func measure(_ item: Item) throws {
        print("item \(item.number)  \(item.attack)  [\(item.target.name)]")
        print("    stopped by: \(item.stoppedBy)")
        let alone = try calls(item, for: baseline)
        let process = item.target.process
        let rssBefore = process.rssKiB, serverCPU = process.cpuSeconds, ownCPU = ProcessClock.selfCPUSeconds()
        let sampler = PeakSampler(process)
        let run = AttackRun()
        let clock = Stopwatch()
        let attacker = item.attacker
        let attackers = Threads.start(item.threads) { attacker($0, run) }
        let during: Outcome
        do {
            defer { run.stop() }
            during = try calls(item, for: seconds)
        }
        // The attackers finish the requests they started (each bounded by its socket timeout).
        let drained = attackers.wait(timeout: .now() + 40) == .success
        let attackSeconds = clock.seconds
        let rssAfter = process.rssKiB
        // The samples may miss a short peak; the readings before and after bound it from below too.
        let peak = max(sampler.stop(), rssBefore ?? 0, rssAfter ?? 0)
        let serverUsed = serverCPU.flatMap { before in process.cpuSeconds.map { String(format: "%.1f s", $0 - before) } } ?? "?"

        print(String(format: "    attacker: %d attempts in %.1f s: ", run.tally.total, attackSeconds) + run.tally.summary
            + (drained ? "" : " (some still unanswered after 40 s)"))
        print(String(format: "    CPU while attacked: ds-bench (attacker + known user) %.1f s, server %@", ProcessClock.selfCPUSeconds() - ownCPU,
                     serverUsed))
        print("    " + alone.line("\(item.knownCall) alone", rate: item.knownRate))
        print("    " + during.line("\(item.knownCall) attacked", rate: item.knownRate))
        print("    server RSS: \(ServerProcess.mebibytes(rssBefore)) before, \(ServerProcess.mebibytes(rssAfter)) after "
            + "(sampled peak \(ServerProcess.mebibytes(peak)))")
        if let afterwards = item.afterwards { print("    afterwards: " + (try afterwards(run))) }
    }

    /// The known user's latencies, and its failures (counted, not fatal: a refused known user is
    /// what an attack may achieve).
    struct Outcome {
        var latencies: [Double]
        var failures: Tally

        func line(_ name: String, rate: Int) -> String {
            SteadyCalls.line(name + " (\(rate)/s)", latencies, width: 44)
                + (failures.total == 0 ? "" : "   FAILED \(failures.summary)")
        }
    }

    private func calls(_ item: Item, for seconds: Double) throws -> Outcome {
        let failures = Tally()
        var latencies: [Double] = []
        try SteadyCalls.pace(rate: item.knownRate, for: seconds) {
            do {
                latencies.append(try item.call())
            } catch BenchError.call(_, let status, let body) {
                failures.add(AttackRequest.Answer(status: status, body: Array(body.utf8)).label)
            }
        }
        return Outcome(latencies: latencies, failures: failures)
    }
}

/// One attack's run: whether its threads should go on, and what the server answered them.
final class AttackRun: Sendable {
    let tally = Tally()
    private let running = Atomic<Bool>(true)

    var isRunning: Bool { running.load(ordering: .relaxed) }

    func stop() { running.store(false, ordering: .relaxed) }

    /// Sends `request()` back to back until the run stops, counting the answers.
    func repeatedly(_ request: () throws -> AttackRequest.Answer) {
        while isRunning {
            do { tally.add(try request().label) } catch { tally.add("not sent: \(error)") }
        }
    }
}

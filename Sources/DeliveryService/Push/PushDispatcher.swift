import Basics
import DeliveryStore
import Dispatch
import Foundation
import Push
import Synchronization

/// Delivers the outbox (docs/push.md): one thread per node claims due pushes (SKIP LOCKED, leased
/// to this node), hands each to its platform's sender, and settles the outcomes in batches. At most
/// `concurrency` pushes are in flight; a claim takes only what the free slots allow, so a silent
/// push service costs slots, never memory. Any number of nodes share the outbox: a row is claimed
/// by one node at a time, and a node that dies leaves its leases to lapse.
///
/// It wakes when the event channel announces a change (`nudge`), when a push completes, and every
/// second for retries that came due.
public final class PushDispatcher: Sendable {
    /// The largest payload any platform carries: contents over it are not read.
    static let maxContent = 4096

    private struct Completion {
        let push: ClaimedPush
        let platform: PushPlatform
        let outcome: PushOutcome
    }

    private struct State {
        var completions: [Completion] = []
        var inFlight = 0
        var nudged = true
        var stopped = false
    }

    let node: String
    private let store: DeliveryStore
    private let senders: [PushPlatform: any PushSender]
    private let contents: [String: any PushContentSource]
    private let metrics: PushMetrics
    private let log: Log
    private let concurrency: Int
    /// The free slots a claim waits for while pushes are in flight.
    private let batch: Int
    private let lease: Double
    private let timeToLive: Int
    private let policy: PushRetryPolicy
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    private let started = Atomic<Bool>(false)

    public init(store: DeliveryStore, senders: [any PushSender], contentSources: [any PushContentSource],
                settings: PushSettings, metrics: PushMetrics, log: Log, node: String) {
        self.store = store
        self.senders = Dictionary(uniqueKeysWithValues: senders.map { ($0.platform, $0) })
        contents = Dictionary(uniqueKeysWithValues: contentSources.map { ($0.source, $0) })
        self.metrics = metrics
        self.log = log
        self.node = node
        concurrency = settings.concurrency
        batch = max(1, settings.concurrency / 4)
        // Longer than any request may take, so that a live node's lease never lapses under it.
        lease = settings.timeout * 2 + 10
        timeToLive = settings.timeToLive
        policy = PushRetryPolicy(deadline: settings.deadline)
    }

    public func start() {
        guard !started.exchange(true, ordering: .relaxed) else { return }
        metrics.enable()
        let thread = Thread { [self] in
            defer { finished.signal() }
            run()
        }
        thread.name = "push-dispatch"
        thread.start()
    }

    /// Something may be due: a message, commit or Welcome was stored somewhere.
    public func nudge() {
        let first = state.withLock { state in
            defer { state.nudged = true }
            return !state.nudged
        }
        if first { wake.signal() }
    }

    /// Stops claiming, waits up to `timeout` seconds for the pushes in flight, settles them and stops
    /// the senders. What is still leased lapses and is delivered by the next claim on any node.
    public func stop(timeout: Double = 5) {
        guard started.load(ordering: .relaxed) else { return }
        state.withLock { $0.stopped = true }
        wake.signal()
        _ = finished.wait(timeout: .now() + timeout + 1)
        for sender in senders.values { sender.shutdown() }
    }

    private func run() {
        var lastStats = 0.0
        var lastEmptyClaim = 0.0
        while true {
            let (completions, stopped, inFlight, nudged) = state.withLock { state in
                defer { state.completions = [] }
                return (state.completions, state.stopped, state.inFlight, state.nudged)
            }
            settle(completions)
            let now = Date().timeIntervalSince1970
            if now - lastStats >= 2 {
                lastStats = now
                if let stats = try? store.pushOutboxStats() { metrics.setOutbox(depth: stats.depth, oldestAge: stats.oldestAgeSeconds) }
            }
            if stopped {
                if inFlight == 0 { return }
                _ = wake.wait(timeout: .now() + 0.1)
                continue
            }
            let free = concurrency - inFlight
            var again = false
            // After a claim that found nothing, a burst of news waits a few milliseconds: one claim
            // serves them all. While pushes are in flight, slots are refilled a quarter at a time, so
            // that a claim (and its content read) serves many pushes rather than each completion.
            if free > 0, free >= batch || inFlight == 0, nudged || now - lastEmptyClaim >= 1 {
                if now - lastEmptyClaim < 0.005 { Thread.sleep(forTimeInterval: 0.005) }
                let limit = min(free, 128)
                state.withLock { $0.nudged = false }
                let claimed = claim(limit: limit)
                if claimed == 0 { lastEmptyClaim = Date().timeIntervalSince1970 }
                again = claimed == limit
            }
            if again {
                state.withLock { $0.nudged = true }
                continue
            }
            _ = wake.wait(timeout: .now() + 1)
        }
    }

    /// Claims up to `limit` pushes and sends them; returns how many were claimed.
    private func claim(limit: Int) -> Int {
        let claim: DeliveryStore.PushClaim
        do { claim = try store.claimPushes(node: node, limit: limit, leaseSeconds: lease) } catch {
            log.warning("push claim failed", ["error": String(describing: error)])
            return 0
        }
        if claim.skippedLive > 0 { metrics.skippedLive.increment(by: UInt64(claim.skippedLive)) }
        guard !claim.pushes.isEmpty else { return 0 }
        var bytes: [Int64: [UInt8]] = [:]
        for (source, pushes) in Dictionary(grouping: claim.pushes, by: \.event.source) {
            guard let reader = contents[source] else { continue }
            do { bytes.merge(try reader.contents(of: pushes, maxBytes: Self.maxContent)) { first, _ in first } } catch {
                // Pushed without their bytes: the app fetches them.
                log.warning("push content read failed", ["error": String(describing: error)])
            }
        }
        var dropped: [PushSettlement] = []
        let createdAt = Date().timeIntervalSince1970
        for push in claim.pushes {
            guard let target = push.target, let sender = senders[target.address.platform], contents[push.event.source] != nil else {
                // Unregistered since, or a platform or source this node does not serve.
                dropped.append(PushSettlement(id: push.id, revision: push.revision, verdict: .dropped))
                continue
            }
            let event = push.event
            let notification = PushNotification(kind: event.kind, convoID: event.convoID, seq: event.seq, epoch: event.epoch,
                                                messageID: event.messageID, ciphertext: bytes[push.id], timeToLive: timeToLive,
                                                createdAt: createdAt)
            state.withLock { $0.inFlight += 1 }
            let platform = target.address.platform
            sender.send(notification, to: target.address) { [self] outcome in
                state.withLock { state in
                    state.inFlight -= 1
                    state.completions.append(Completion(push: push, platform: platform, outcome: outcome))
                }
                wake.signal()
            }
        }
        if !dropped.isEmpty { _ = try? store.settlePushes(dropped, node: node) }
        return claim.pushes.count
    }

    /// Records the outcomes and settles their rows in one statement.
    private func settle(_ completions: [Completion]) {
        guard !completions.isEmpty else { return }
        let now = Date()
        var settlements: [PushSettlement] = []
        var generator = SystemRandomNumberGenerator()
        for completion in completions {
            let push = completion.push
            let age = now.timeIntervalSince(push.enqueuedAt)
            let decision = policy.decide(completion.outcome, attempts: push.attempts, age: age,
                                         random: Double.random(in: 0..<1, using: &generator))
            switch decision {
            case .delivered:
                metrics.recordSent(completion.platform)
                settlements.append(PushSettlement(id: push.id, revision: push.revision, verdict: .delivered))
            case .retry(let delay):
                metrics.recordRetried(completion.platform)
                settlements.append(PushSettlement(id: push.id, revision: push.revision, verdict: .retry, delay: delay))
            case .drop:
                metrics.recordFailed(completion.platform, reason: Self.failureReason(completion.outcome))
                settlements.append(PushSettlement(id: push.id, revision: push.revision, verdict: .dropped))
            case .removeToken:
                metrics.recordFailed(completion.platform, reason: completion.outcome.reason)
                if let target = push.target,
                   (try? store.removeInvalidPushToken(did: target.did, deviceID: target.deviceID, token: target.address.token)) == true {
                    metrics.recordTokenRemoved(completion.platform)
                    log.info("push token removed", ["platform": completion.platform.rawValue, "reason": completion.outcome.reason])
                }
            }
        }
        do { try store.settlePushes(settlements, node: node) } catch {
            // The leases lapse, and the rows are claimed again: at least once, never lost.
            log.warning("push settle failed", ["error": String(describing: error)])
        }
    }

    /// A retryable outcome given up at its deadline counts as `expired`; a refusal under its own reason.
    static func failureReason(_ outcome: PushOutcome) -> String {
        if case .retry = outcome { return "expired" }
        return outcome.reason
    }
}

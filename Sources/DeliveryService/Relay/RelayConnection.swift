import ATProto
import Basics
import DeliveryStore
import MQTT
import MQTTServer
import Synchronization

/// One MQTT connection's side of the service. The connection's I/O thread hands it the state
/// machine's service actions; authentication, publishes, subscriptions and the Session's end run on
/// the relay workers, one at a time and in the order they arrived (a commit is stored before the
/// application message that follows it), each answered through the connection's link. Consecutive
/// application messages go to the store together: one transaction, seqs in publish order.
///
/// Bounded and fair (docs/SECURITY.md, "The MQTT listener"): past `maxQueuedJobs` jobs or
/// `maxQueuedBytes` bytes waiting, the connection is not read until half of them are done; a worker
/// runs at most `RelaySettings.jobsPerTurn` of one connection's jobs, then queues the rest behind
/// every other connection's.
final class RelayConnection: MQTTConnectionDelegate, Sendable {
    /// Application messages stored in one transaction at most.
    static let maxBatch = 64

    private enum Job: Sendable {
        /// `attempt`: how many DID document fetches this CONNECT waited for so far.
        case authenticate(ConnectRequest, attempt: Int)
        case publish(InboundPublish)
        case subscribe(RelaySubscribeWork)
        case unsubscribe(UInt16, [TopicFilter])
        case disconnected(UInt32?)

        /// How many jobs it counts as against `maxQueuedJobs`: a SUBSCRIBE as many as the jobs its
        /// distinct filters will take at most, so that no more filters are decoded ahead of the
        /// workers than they examine in a few turns.
        var weight: Int {
            guard case .subscribe(let work) = self else { return 1 }
            return max(1, (work.requests.count + RelaySettings.filtersPerJob - 1) / RelaySettings.filtersPerJob)
        }

        /// What the job holds, roughly, for the bound in bytes.
        var bytes: Int {
            switch self {
            case .publish(let publish): 64 + publish.message.topic.value.utf8.count + publish.message.payload.count
            case .subscribe(let work): 64 + work.requests.reduce(0) { $0 + 16 + $1.topicFilter.value.utf8.count }
            case .unsubscribe(_, let filters): 64 + filters.reduce(0) { $0 + 16 + $1.value.utf8.count }
            case .authenticate, .disconnected: 256
            }
        }
    }

    private struct State {
        var jobs: [Job] = []
        var head = 0
        var queuedBytes = 0
        /// The queued jobs' weights (`Job.weight`).
        var queuedWeight = 0
        var running = false
        /// Reading paused: too much waits.
        var backlogged = false
        /// Reading paused: the DID's `RATE_LIMIT_SUBSCRIBE` is spent; what it sends would only be
        /// decoded to be refused.
        var throttled = false
        var identity: RelayIdentity?
        var session: RelaySession?
        var connectExpiry: UInt32 = 0
        var closed = false
        var ended = false

    }

    let link: MQTTLink
    let broker: RelayBroker
    private let state = Mutex(State())

    init(link: MQTTLink, broker: RelayBroker) {
        self.link = link
        self.broker = broker
    }

    private var id: ObjectIdentifier { ObjectIdentifier(self) }
    private var settings: RelaySettings { broker.context.settings }

    // MARK: MQTTConnectionDelegate (I/O thread)

    func perform(_ action: MQTTServerAction) {
        switch action {
        case .authenticate(let request): enqueue(.authenticate(request, attempt: 0))
        case .publish(let publish): enqueue(.publish(publish))
        case let .subscribe(identifier, requests): enqueue(.subscribe(RelaySubscribeWork(packetIdentifier: identifier, requests: requests)))
        case let .unsubscribe(identifier, filters): enqueue(.unsubscribe(identifier, filters))
        case let .delivered(messageID, packetIdentifier):
            session?.delivered(messageID, packetIdentifier: packetIdentifier, by: id)
        case let .acknowledged(messageID, _, _):
            session?.finished(messageID, by: id)
        case let .discarded(messageID, reason):
            session?.discarded(messageID, reason: reason, by: id)
        case .sessionDisconnected(let end):
            state.withLock { $0.ended = true }
            enqueue(.disconnected(end.sessionExpiryInterval))
        case .send, .sendBytes, .armDeadline, .pauseReading, .resumeReading, .close:
            break
        }
    }

    var acceptsInput: Bool { state.withLock { !$0.backlogged && !$0.throttled } }

    /// Stops reading the connection for `seconds` (at least one): its DID's subscription budget is
    /// spent, and TCP holds the client back rather than every packet being read, decoded and refused.
    private func throttle(for seconds: Int) {
        state.withLock { $0.throttled = true }
        broker.context.workers.submit(after: Double(max(1, seconds))) { [self] in
            state.withLock { $0.throttled = false }
            link.resumeInput()
        }
    }

    func closed() {
        // A connection that closed without a Session end (while authenticating) still lets go of
        // the Session its authentication may attach meanwhile.
        let pending = state.withLock { state -> Bool in
            state.closed = true
            return !state.ended
        }
        if pending { enqueue(.disconnected(nil)) }
    }

    private var session: RelaySession? { state.withLock { $0.session } }

    // MARK: The job queue (relay workers)

    private func enqueue(_ job: Job) {
        let (maxJobs, maxBytes) = (settings.maxQueuedJobs, settings.maxQueuedBytes)
        let start = state.withLock { state -> Bool in
            state.jobs.append(job)
            state.queuedBytes += job.bytes
            state.queuedWeight += job.weight
            if state.queuedWeight > maxJobs || state.queuedBytes > maxBytes { state.backlogged = true }
            guard !state.running else { return false }
            state.running = true
            return true
        }
        // A connection's first job (its CONNECT) does not wait behind every other connection's turn.
        if start { broker.context.workers.submit(urgent: isAuthentication(job)) { [self] in drain() } }
    }

    private func isAuthentication(_ job: Job) -> Bool {
        if case .authenticate = job { true } else { false }
    }

    /// The next job, or a run of consecutive publishes (classified by the worker).
    private func take() -> [Job]? {
        let (maxJobs, maxBytes) = (settings.maxQueuedJobs, settings.maxQueuedBytes)
        let (taken, resume) = state.withLock { state -> ([Job]?, Bool) in
            guard state.head < state.jobs.count else {
                state.jobs = []
                state.head = 0
                state.queuedBytes = 0
                state.queuedWeight = 0
                state.running = false
                let resume = state.backlogged
                state.backlogged = false
                return (nil, resume)
            }
            var taken: [Job] = []
            while state.head < state.jobs.count, taken.count < Self.maxBatch {
                let job = state.jobs[state.head]
                if case .publish = job {
                    taken.append(job)
                    state.head += 1
                } else {
                    if taken.isEmpty {
                        taken.append(job)
                        state.head += 1
                    }
                    break
                }
            }
            state.queuedBytes -= taken.reduce(0) { $0 + $1.bytes }
            state.queuedWeight -= taken.reduce(0) { $0 + $1.weight }
            if state.head > 64, state.head * 2 > state.jobs.count {
                state.jobs.removeFirst(state.head)
                state.head = 0
            }
            // Reading resumes once half of what stopped it is done.
            guard state.backlogged, state.queuedWeight <= maxJobs / 2, state.queuedBytes <= maxBytes / 2 else { return (taken, false) }
            state.backlogged = false
            return (taken, true)
        }
        if resume { link.resumeInput() }
        return taken
    }

    /// Puts jobs back at the front (publishes after the application-message prefix of a run).
    private func putBack(_ jobs: ArraySlice<Job>) {
        guard !jobs.isEmpty else { return }
        state.withLock { state in
            state.jobs.replaceSubrange(state.head..<state.head, with: jobs)
            state.queuedBytes += jobs.reduce(0) { $0 + $1.bytes }
            state.queuedWeight += jobs.reduce(0) { $0 + $1.weight }
        }
    }

    /// One turn: at most `jobsPerTurn` jobs (a run of application messages is one), then the rest
    /// waits behind the other connections' turns.
    private func drain() {
        for _ in 0..<RelaySettings.jobsPerTurn {
            guard let jobs = take() else { return }
            if case .publish = jobs[0] {
                publishRun(jobs)
            } else {
                run(jobs[0])
            }
        }
        broker.context.workers.submit { [self] in drain() }
    }

    private func run(_ job: Job) {
        switch job {
        case let .authenticate(request, attempt): authenticate(request, attempt: attempt)
        case .publish(let publish): publishRun([.publish(publish)])
        case .subscribe(let work): subscribe(work)
        case let .unsubscribe(identifier, filters): unsubscribe(identifier, filters)
        case .disconnected(let expiry): disconnected(expiry)
        }
    }

    /// Authentication that waits for no DID document on this worker: a token whose issuer's document
    /// must be fetched first comes back as a new job once the resolver's threads have fetched it.
    private func authenticate(_ request: ConnectRequest, attempt: Int) {
        // The connection closed while its CONNECT waited for a document: nothing to open.
        guard !state.withLock({ $0.closed }) else { return }
        let authenticator = broker.authenticator
        switch authenticator.authenticate(request, remoteAddress: link.remoteAddress, attempt: attempt) {
        case .refused(let refusal):
            link.post(.authenticated(.refused(reasonCode: refusal.code, reasonString: refusal.reason)))
        case let .needsKey(did, forced):
            let again: @Sendable () -> Void = { [self] in enqueue(.authenticate(request, attempt: attempt + 1)) }
            switch authenticator.checks.fetch(did, forced, again) {
            case .started, .joined:
                break
            case .ready:
                again()
            case .refused:
                link.post(.authenticated(.refused(reasonCode: .serverUnavailable,
                                                  reasonString: "\(DIDResolver.busy.name): \(DIDResolver.busy.message)")))
            }
        case .accepted(let identity):
            open(request, identity: identity)
        }
    }

    private func open(_ request: ConnectRequest, identity: RelayIdentity) {
        do {
            let (session, events) = try broker.connect(request, identity: identity, connection: id, link: link)
            state.withLock { state in
                state.identity = identity
                state.session = session
                state.connectExpiry = request.sessionExpiryInterval
            }
            link.post(events)
            session.activate(id)
        } catch {
            broker.context.log.warning("relay session could not be opened", ["error": String(describing: type(of: error))])
            link.post(.authenticated(.refused(reasonCode: .serverUnavailable, reasonString: "ServiceUnavailable: retry later")))
        }
    }

    /// Publishes in arrival order: a leading run of application messages in one transaction, the
    /// first other publish alone, the rest back on the queue.
    private func publishRun(_ jobs: [Job]) {
        guard let (identity, session) = state.withLock({ state in state.identity.flatMap { id in state.session.map { (id, $0) } } }) else {
            return
        }
        let publisher = broker.publisher
        var batch: [(InboundPublish, NewMessage)] = []
        var index = 0
        while index < jobs.count, case .publish(let publish) = jobs[index] {
            guard case .groupMessages(let convoID)? = RelayTopic(publish.message.topic),
                  let message = RelayPublisher.applicationMessage(publish.message.payload, convoID: convoID, sender: identity.did)
            else { break }
            batch.append((publish, message))
            index += 1
        }
        if !batch.isEmpty {
            for (_, message) in batch { session.notePublished(message.msgID) }
            let verdicts = publisher.publishApplicationMessages(batch.map(\.1), identity: identity)
            link.post(zip(batch, verdicts).compactMap { entry, verdict in Self.answer(entry.0, verdict) })
            putBack(jobs[index...])
            return
        }
        guard case .publish(let publish) = jobs[0] else { return }
        putBack(jobs[1...])
        if case .sync(let clientID)? = RelayTopic(publish.message.topic) {
            sync(publish, clientID: clientID, identity: identity, session: session)
            return
        }
        session.notePublished(RelayPublisher.messageID(publish.message.payload))
        if let answer = Self.answer(publish, publisher.publish(publish.message, identity: identity)) { link.post(answer) }
    }

    /// `relay/s/{client_id}`: once accepted (the PUBACK decided), the Session answers the nonce
    /// after everything committed before it (docs/mqtt.md, "Sync").
    private func sync(_ publish: InboundPublish, clientID: String, identity: RelayIdentity, session: RelaySession) {
        var verdict = RelayPublisher.checkSync(publish.message.payload, clientID: clientID, identity: identity)
        // Each barrier reads every followed conversation from the log: a read, as XRPC counts them.
        if verdict == .accepted, let refusal = broker.publisher.limited(identity, .read) {
            verdict = refusal
        } else if verdict == .accepted, !session.addBarrier(publish.message.payload, by: id) {
            verdict = .refused(.quotaExceeded, "QuotaExceeded: \(RelaySession.maxBarriers) syncs are already waiting")
        }
        if let answer = Self.answer(publish, verdict) { link.post(answer) }
        if verdict == .accepted { session.scheduleCatchUp() }
    }

    private static func answer(_ publish: InboundPublish, _ verdict: RelayVerdict) -> MQTTServerEvent? {
        guard let identifier = publish.packetIdentifier else { return nil }
        switch verdict {
        case .accepted: return .publishAccepted(packetIdentifier: identifier)
        case let .refused(code, reason): return .publishRefused(packetIdentifier: identifier, reasonCode: code, reasonString: reason)
        }
    }

    /// A few more of the SUBSCRIBE's filters; the rest waits for the connection's next turn (at the
    /// front of its queue). Once all are examined: the SUBACK, then the catch-up hands the retained
    /// values and what the new follows missed.
    private func subscribe(_ work: RelaySubscribeWork) {
        guard let session else { return }
        var work = work
        session.subscribe(&work, budget: RelaySettings.filtersPerJob)
        guard work.isDone else { return putBack([.subscribe(work)]) }
        if let seconds = work.rateLimited { throttle(for: seconds) }
        link.post(.subscribed(packetIdentifier: work.packetIdentifier, reasonCodes: work.codes))
        session.scheduleCatchUp()
    }

    private func unsubscribe(_ identifier: UInt16, _ filters: [TopicFilter]) {
        guard let session else { return }
        let (codes, rateLimited) = session.unsubscribe(filters)
        if let seconds = rateLimited { throttle(for: seconds) }
        link.post(.unsubscribed(packetIdentifier: identifier, reasonCodes: codes))
    }

    private func disconnected(_ expiry: UInt32?) {
        let (session, fallback) = state.withLock { state -> (RelaySession?, UInt32) in (state.session, state.connectExpiry) }
        guard let session else { return }
        broker.disconnect(session, connection: id, expiryInterval: expiry ?? fallback)
    }
}

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
final class RelayConnection: MQTTConnectionDelegate, Sendable {
    /// Application messages stored in one transaction at most.
    static let maxBatch = 64

    private enum Job: Sendable {
        case authenticate(ConnectRequest)
        case publish(InboundPublish)
        case subscribe(UInt16, [SubscriptionRequest])
        case unsubscribe(UInt16, [TopicFilter])
        case disconnected(UInt32?)
    }

    private struct State {
        var jobs: [Job] = []
        var head = 0
        var running = false
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

    // MARK: MQTTConnectionDelegate (I/O thread)

    func perform(_ action: MQTTServerAction) {
        switch action {
        case .authenticate(let request): enqueue(.authenticate(request))
        case .publish(let publish): enqueue(.publish(publish))
        case let .subscribe(identifier, requests): enqueue(.subscribe(identifier, requests))
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
        let start = state.withLock { state -> Bool in
            state.jobs.append(job)
            guard !state.running else { return false }
            state.running = true
            return true
        }
        if start { broker.context.workers.submit { [self] in drain() } }
    }

    /// The next job, or a run of consecutive publishes (classified by the worker).
    private func take() -> [Job]? {
        state.withLock { state in
            guard state.head < state.jobs.count else {
                state.jobs = []
                state.head = 0
                state.running = false
                return nil
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
            return taken
        }
    }

    /// Puts jobs back at the front (publishes after the application-message prefix of a run).
    private func putBack(_ jobs: ArraySlice<Job>) {
        guard !jobs.isEmpty else { return }
        state.withLock { state in
            state.jobs.replaceSubrange(state.head..<state.head, with: jobs)
        }
    }

    private func drain() {
        while let jobs = take() {
            if case .publish = jobs[0] {
                publishRun(jobs)
            } else {
                run(jobs[0])
            }
        }
    }

    private func run(_ job: Job) {
        switch job {
        case .authenticate(let request): authenticate(request)
        case .publish(let publish): publishRun([.publish(publish)])
        case let .subscribe(identifier, requests): subscribe(identifier, requests)
        case let .unsubscribe(identifier, filters): unsubscribe(identifier, filters)
        case .disconnected(let expiry): disconnected(expiry)
        }
    }

    private func authenticate(_ request: ConnectRequest) {
        switch broker.authenticator.authenticate(request, remoteAddress: link.remoteAddress) {
        case .failure(let refusal):
            link.post(.authenticated(.refused(reasonCode: refusal.code, reasonString: refusal.reason)))
        case .success(let identity):
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
        if verdict == .accepted, !session.addBarrier(publish.message.payload, by: id) {
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

    private func subscribe(_ identifier: UInt16, _ requests: [SubscriptionRequest]) {
        guard let session else { return }
        let (codes, retained) = session.subscribe(requests)
        link.post(.subscribed(packetIdentifier: identifier, reasonCodes: codes))
        session.deliverRetained(retained)
    }

    private func unsubscribe(_ identifier: UInt16, _ filters: [TopicFilter]) {
        guard let session else { return }
        link.post(.unsubscribed(packetIdentifier: identifier, reasonCodes: session.unsubscribe(filters)))
    }

    private func disconnected(_ expiry: UInt32?) {
        let (session, fallback) = state.withLock { state -> (RelaySession?, UInt32) in (state.session, state.connectExpiry) }
        guard let session else { return }
        broker.disconnect(session, connection: id, expiryInterval: expiry ?? fallback)
    }
}

import ATProto
import Basics
import DeliveryStore
import Dispatch
import Foundation
import MQTT
import MQTTServer
import Synchronization

/// The Relay protocol behind the MQTT listener (docs/mqtt.md): authentication, the Sessions attached
/// on this node, what a publish does, and the Relay channel's announcements. One per process.
final class RelayBroker: MQTTBroker, Sendable {
    let configuration: MQTTServerConfiguration
    let context: RelayContext
    let authenticator: RelayAuthenticator
    let publisher: RelayPublisher
    /// Sessions whose client is connected to this node, by client_id.
    private let sessions = Mutex<[String: RelaySession]>([:])
    /// Serializes attaching and detaching one client's Session (striped by client_id).
    private let clientLocks: [ClientLock] = (0..<64).map { _ in ClientLock() }
    /// How long a CONNECT waits for another node to let go of the Session (takeover).
    static let takeoverWait: Double = 2

    init(configuration: MQTTServerConfiguration, context: RelayContext, authenticator: RelayAuthenticator, publisher: RelayPublisher) {
        self.configuration = configuration
        self.context = context
        self.authenticator = authenticator
        self.publisher = publisher
    }

    func open(_ link: MQTTLink) -> any MQTTConnectionDelegate {
        RelayConnection(link: link, broker: self)
    }

    // MARK: Lifecycle

    func start() {
        context.workers.start()
        context.hub.onRelayNotification { [self] payload in relayNotification(payload) }
        context.workers.submit(after: 60) { [self] in sweep() }
    }

    /// Every minute: forget held GroupInfos and Welcomes past their time, delete expired Sessions,
    /// unbind client_ids idle for `clientIdleDays`.
    private func sweep() {
        publisher.pending.expire()
        do {
            _ = try context.store.purgeRelaySessions()
            let idleBefore = Date().addingTimeInterval(-Double(context.settings.clientIdleDays) * 86_400)
            _ = try context.store.purgeIdleRelayClients(idleBefore: idleBefore)
        } catch {
            context.log.warning("relay session purge failed", ["error": String(describing: type(of: error))])
        }
        context.workers.submit(after: 60) { [self] in sweep() }
    }

    /// Keeps every attached Session's state (the server has already closed their connections), then
    /// stops the workers.
    func stop() {
        let attached = sessions.withLock { sessions in
            let all = Array(sessions.values)
            sessions = [:]
            return all
        }
        for session in attached {
            let connection = session.state.withLock { $0.connection }
            if let connection { persist(session, connection: connection, expiryInterval: nil) }
        }
        context.workers.stop()
    }

    private func withClientLock<T>(_ clientID: String, _ body: () throws -> T) rethrows -> T {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in clientID.utf8 { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        return try clientLocks[Int(hash % UInt64(clientLocks.count))].mutex.withLock { _ in try body() }
    }

    // MARK: Sessions

    /// Opens the Session of an authenticated CONNECT (MQTT 5.0 §3.1.2.4, §4.1): Clean Start = 1 ends
    /// any existing one; otherwise the Session this node holds (its connection is taken over, 0x8E),
    /// or the stored one (another node holding it is asked to let go first), or a new one. Returns
    /// the Session and the events that open the connection (CONNACK, resends).
    func connect(_ request: ConnectRequest, identity: RelayIdentity, connection: ObjectIdentifier,
                 link: MQTTLink) throws -> (RelaySession, [MQTTServerEvent]) {
        let clientID = identity.clientID
        return try withClientLock(clientID) {
            let local = sessions.withLock { $0[clientID] }
            var session: RelaySession
            var resumed = false
            if let local, !request.cleanStart {
                session = local
                resumed = true
                try context.store.markRelaySessionAttached(clientID, did: identity.did, node: context.node)
            } else {
                if let local {
                    local.end()
                    sessions.withLock { _ = $0.removeValue(forKey: clientID) }
                } else {
                    try awaitRelease(clientID)
                }
                session = RelaySession(identity: identity, context: context)
                if let stored = try context.store.attachRelaySession(clientID, did: identity.did, node: context.node,
                                                                      resume: !request.cleanStart) {
                    try session.restore(RelaySessionState(decoding: stored))
                    resumed = true
                }
            }
            sessions.withLock { $0[clientID] = session }
            let events = session.attach(connection, link: link, sessionPresent: resumed, expiryInterval: request.sessionExpiryInterval)
            return (session, events)
        }
    }

    /// When another node holds the Session, asks it to let go (Relay channel `t`) and waits for its
    /// state to be stored (at most `takeoverWait`; a node that stopped lets go of nothing).
    private func awaitRelease(_ clientID: String) throws {
        guard let stored = try context.store.relaySession(clientID), let holder = stored.attachedNode, holder != context.node else { return }
        try context.store.notifyRelay("t \(clientID) \(context.node)")
        let deadline = Date().addingTimeInterval(Self.takeoverWait)
        while Date() < deadline {
            Thread.sleep(forTimeInterval: 0.02)
            if try context.store.relaySession(clientID)?.attachedNode != holder { return }
        }
    }

    /// The connection ended: the Session is kept for its expiry interval (stored for any node), or
    /// ends now with interval 0.
    func disconnect(_ session: RelaySession, connection: ObjectIdentifier, expiryInterval: UInt32) {
        withClientLock(session.identity.clientID) {
            persist(session, connection: connection, expiryInterval: expiryInterval)
        }
    }

    private func persist(_ session: RelaySession, connection: ObjectIdentifier, expiryInterval: UInt32?) {
        guard let (state, expiry) = session.detach(connection, expiryInterval: expiryInterval) else { return }
        let clientID = session.identity.clientID
        sessions.withLock { sessions in
            if sessions[clientID] === session { sessions[clientID] = nil }
        }
        do {
            if expiry == 0 {
                try context.store.deleteRelaySession(clientID, node: context.node)
            } else {
                try context.store.saveRelaySession(clientID, node: context.node, state: state.encoded(),
                                                   detachUntil: Date().addingTimeInterval(Double(expiry)))
            }
        } catch {
            context.log.warning("relay session could not be stored", ["error": String(describing: type(of: error))])
        }
    }

    private var attachedSessions: [RelaySession] { sessions.withLock { Array($0.values) } }

    /// The Session of `clientID` on this node, attached or kept (tests).
    func session(clientID: String) -> RelaySession? { sessions.withLock { $0[clientID] } }

    // MARK: The Relay channel (listener thread: hand everything to the workers)

    /// `<kind> <key>` (migrations/0012_mqtt_relay.sql): w (Welcomes for a client), k (a client's
    /// KeyPackages), u (a DID's clients), i (a conversation's GroupInfo or epoch), t (take a Session
    /// over), `*` after the listener reconnected (anything may have been missed).
    private func relayNotification(_ payload: String) {
        let parts = payload.split(separator: " ")
        guard let kind = parts.first else { return }
        let key = parts.count > 1 ? String(parts[1]) : ""
        context.workers.submit { [self] in
            do {
                switch kind {
                case "w":
                    sessions.withLock { $0[key] }?.welcomesChanged()
                case "k":
                    for session in attachedSessions { session.retainedChanged(.keyPackages(clientID: key)) }
                case "u":
                    for session in attachedSessions { session.retainedChanged(.user(did: key)) }
                case "i":
                    for session in attachedSessions { session.retainedChanged(.groupInfo(convoID: key)) }
                    // GroupInfos held for an epoch the conversation has reached can lead nowhere now
                    // (among them those of members it removed, from any node or transport).
                    if publisher.pending.holdsGroupInfo(convoID: key) {
                        publisher.pending.dropGroupInfos(convoID: key, throughEpoch: try context.store.loadConvo(key).epoch)
                    }
                case "t":
                    let requester = parts.count > 2 ? String(parts[2]) : ""
                    guard requester != context.node, let session = sessions.withLock({ $0[key] }) else { return }
                    withClientLock(key) {
                        guard let connection = session.state.withLock({ $0.connection }) else { return }
                        session.state.withLock { $0.link ?? $0.pendingLink }?.post(.disconnect(reasonCode: .sessionTakenOver,
                                                                             reasonString: "the Session was taken over on another node"))
                        persist(session, connection: connection, expiryInterval: nil)
                    }
                case "*":
                    for session in attachedSessions { session.welcomesChanged() }
                default:
                    break
                }
            } catch {
                context.log.warning("relay notification failed", ["error": String(describing: type(of: error))])
            }
        }
    }
}

private final class ClientLock: Sendable {
    let mutex = Mutex(())
}

import ATProto
import Basics
import DeliveryStore
import Foundation
import HTTP
import Store

/// Real-time events: tickets (getSubscriptionTicket) and the subscribeConvoEvents WebSocket, over
/// the process's `EventHub`. See docs/ARCHITECTURE.md, "Events".
final class EventService: Sendable {
    static let subscribeNSID = "blue.catbird.mls.subscribeConvoEvents"
    static let ticketKeyName = "subscription_ticket_key"

    let store: DeliveryStore
    let log: Log
    let hub: EventHub
    let workers: EventWorkers
    let source: EventSource
    let signer: SubscriptionTicketSigner
    let tickets: SubscriptionTicketStore
    let endpoint: String
    private let clock: @Sendable () -> Date

    init(store: DeliveryStore, settings: EventSettings, serviceEndpoint: String, log: Log,
         clock: @escaping @Sendable () -> Date = Date.init) throws {
        self.store = store
        self.log = log
        self.clock = clock
        tickets = SubscriptionTicketStore(database: store.database)
        signer = SubscriptionTicketSigner(key: try settings.ticketKey ?? tickets.sharedSecret(Self.ticketKeyName),
                                          lifetime: settings.ticketLifetime)
        source = EventSource(store: store, inlineCiphertextLimit: settings.inlineCiphertextLimit, batchSize: 200)
        workers = EventWorkers(threads: settings.workerThreads)
        endpoint = EventSettings.subscriptionEndpoint(serviceEndpoint: serviceEndpoint)
        let tickets = self.tickets
        hub = EventHub(source: source, maxSocketsPerUser: settings.maxSocketsPerUser, log: log, onIdle: {
            _ = try? tickets.deleteExpired(now: clock())
        })
    }

    func start(databaseURL: String) {
        workers.start()
        hub.start(databaseURL: databaseURL, channel: store.configuration.eventChannel)
    }

    func stop() {
        hub.stop()
        workers.stop()
    }

    /// A fresh ticket for `did`, optionally bound to one conversation, and naming the device whose
    /// live subscription the socket is (docs/push.md).
    func issueTicket(did: DID, convoID: String?, deviceID: String? = nil) -> (text: String, expiresAt: Date) {
        let issued = signer.issue(did: did.rawValue, convoID: convoID, deviceID: deviceID, now: clock())
        return (issued.text, issued.ticket.expiresAt)
    }

    /// Decides a subscribeConvoEvents upgrade (on a worker thread): the ticket verifies, has not
    /// expired and was never used; an `Authorization` header, if sent, names the ticket's DID; the
    /// cursor parses; the DID is under its socket limit; a one-conversation ticket's caller is
    /// still a member (or, with a cursor, has events to replay up to its departure).
    /// - Parameter authenticate: verifies an `Authorization` header when the request carries one.
    func upgrade(_ request: HTTPRequest, authenticate: (String) throws -> DID) throws -> WebSocketUpgrade {
        let parameters = XRPCParameters(query: request.query)
        let text = try parameters.requiredString("ticket")
        let cursor: EventCursor?
        do {
            cursor = try parameters.string("cursor").map { try EventCursor(decoding: $0) }
        } catch {
            throw XRPCError.invalidRequest("malformed cursor")
        }
        let ticket: SubscriptionTicket
        do {
            ticket = try signer.verify(text, now: clock())
        } catch .expired {
            throw XRPCError(401, .expiredTicket, "the ticket has expired; request a new one")
        } catch {
            throw XRPCError(401, .invalidTicket, "the ticket is not valid")
        }
        // Issued only for a DID service auth verified (getSubscriptionTicket), under the MAC.
        guard let did = try? DID(ticket.did) else { throw XRPCError(401, .invalidTicket, "the ticket is not valid") }
        if let header = request.headers["Authorization"] {
            guard try authenticate(header) == did else {
                throw XRPCError(403, .ticketMismatch, "the ticket was issued to another account")
            }
        }
        guard hub.socketCount(of: did) < hub.maxSocketsPerUser else {
            throw XRPCError(429, .tooManySubscriptions, "at most \(hub.maxSocketsPerUser) subscriptions per account")
        }
        if let convoID = ticket.convoID, cursor == nil, !(try store.isMember(convoID: convoID, did: did)) {
            throw DeliveryStoreError.notMember
        }
        guard try tickets.consume(ticket) else {
            throw XRPCError(401, .ticketAlreadyUsed, "the ticket was used before; request a new one")
        }
        let scope: EventSubscription.Scope = ticket.convoID.map { .convo($0) } ?? .allConvos
        // Without a cursor the stream starts here: every event committed after this read is sent.
        var initial: [String: Int64] = [:]
        if cursor == nil {
            if let convoID = ticket.convoID {
                initial[convoID] = try store.lastEventSeq(convoID: convoID) ?? 0
            } else {
                for convo in try store.currentConvos(of: did) { initial[convo.convoID] = convo.lastEventSeq }
            }
        }
        return .accept(EventSubscription(did: did, scope: scope, cursor: cursor, initial: initial, service: self,
                                         pushDeviceID: ticket.deviceID))
    }
}

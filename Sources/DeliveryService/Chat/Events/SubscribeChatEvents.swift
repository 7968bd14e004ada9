import Basics
import ChatProtocol
import DeliveryStore
import HTTP
import Primitives

/// `blue.catbird.chat.subscribeEvents`: the WebSocket upgrade, authenticated by its ticket alone
/// (an `Authorization` header is ignored: the app sends its session token there, CHAT.md §6 item
/// 6). The ticket is used up atomically, must name exactly the `cursor` given, and its device must
/// still be active at the generation the ticket was issued for.
enum SubscribeChatEvents {
    static func method() -> XRPCMethod {
        XRPCMethod.unauthenticated(ChatMethods.subscribeEvents, .query, maxBodySize: 0) { _ in
            throw ChatRefusal(.invalidRequest, "subscribeEvents is a WebSocket endpoint: send an Upgrade request")
        }
    }

    static func upgrade(_ request: HTTPRequest, hub: ChatEventHub) throws -> WebSocketUpgrade {
        let parameters = XRPCParameters(query: request.query)
        guard parameters.all("ticket").count == 1, parameters.all("cursor").count == 1,
              let ticket = parameters.string("ticket"), let cursor = parameters.string("cursor") else {
            throw ChatRefusal(.invalidTicket, "ticket and cursor are required, once each")
        }
        guard let position = ChatCursor.position(cursor) else { throw ChatRefusal(.cursorExpired, "cursor is not one of this service's") }
        guard (32...4096).contains(ticket.utf8.count), let raw = Base64.decode(ticket, alphabet: .url), raw.count == 32 else {
            throw ChatRefusal(.invalidTicket, "the ticket is not valid")
        }
        let store = hub.store
        let consumed = try store.chat { tx -> ChatTicket? in
            guard let consumed = try tx.consumeTicket(hash: HashAlgorithm.sha256.hash(raw), position: position) else { return nil }
            guard position >= (try tx.eventHorizon()) else {
                throw ChatRefusal(.cursorExpired, "events after this cursor were purged: page the inventory again")
            }
            guard let device = try tx.device(did: consumed.userDID, id: consumed.deviceID), device.isActive,
                  device.authGeneration == consumed.authGeneration else {
                throw ChatRefusal(.deviceRevoked, "the device was revoked")
            }
            return consumed
        }
        guard let consumed else { throw ChatRefusal(.invalidTicket, "the ticket is unknown, used, expired or for another cursor") }
        return .accept(ChatSubscription(did: consumed.userDID, device: consumed.deviceID, position: consumed.position, hub: hub))
    }
}

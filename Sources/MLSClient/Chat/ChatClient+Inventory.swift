import ATProto
import Basics
import ChatProtocol
import Foundation
import MLS
import Primitives

extension ChatClient {
    // MARK: Inventory and events

    /// The device's inventory, paged to the end: conversations, pending Welcomes, recovery inbox,
    /// and the session whose cursor a subscription starts from.
    public struct Inventory: Sendable {
        public var sessionID: String
        public var cursor: String
        public var conversations: [ChatValue]
        public var welcomes: [ChatValue]
        public var recoveries: [ChatValue]
    }

    public func inventory(pageSize: Int = 50) throws -> Inventory {
        var page = try query("getConversations", [("limit", String(pageSize))])
        guard let session = page["inventorySessionId"]?.text, let cursor = page["snapshotEventCursor"]?.text else {
            throw MLSClientError.invalidServerData("no inventory session")
        }
        var inventory = Inventory(sessionID: session, cursor: cursor, conversations: page["items"]?.array ?? [], welcomes: [], recoveries: [])
        while let next = page["nextPageCursor"]?.text {
            page = try query("getConversations", [("limit", String(pageSize)), ("pageCursor", next)])
            inventory.conversations += page["items"]?.array ?? []
        }
        for (method, keyPath) in [("getPendingWelcomes", \Inventory.welcomes), ("getLeafRecoveryInbox", \Inventory.recoveries)] {
            var cursor: String?
            repeat {
                var parameters = [("inventorySessionId", session), ("limit", String(pageSize))]
                if let cursor { parameters.append(("pageCursor", cursor)) }
                let page = try query(method, parameters)
                inventory[keyPath: keyPath] += page["items"]?.array ?? []
                cursor = page["nextPageCursor"]?.text
            } while cursor != nil
        }
        return inventory
    }

    /// A ticket for the stream from the inventory's snapshot.
    public func ticket(_ inventory: Inventory) throws -> String {
        let output = try api.procedure("getSubscriptionTicket", .object([
            "actorDeviceId": .text(device.deviceID.description), "inventorySessionId": .text(inventory.sessionID),
            "eventCursor": .text(inventory.cursor),
        ]))
        guard let ticket = output["ticket"]?.text else { throw MLSClientError.invalidServerData("no ticket") }
        return ticket
    }

    /// The event stream from the inventory's snapshot.
    public func subscribe(_ inventory: Inventory, extraHeaders: [(String, String)] = []) throws -> ChatEventStream {
        try ChatEventStream(baseURL: api.client.configuration.baseURL, ticket: try ticket(inventory), cursor: inventory.cursor,
                            extraHeaders: extraHeaders, capture: api.capture)
    }
}

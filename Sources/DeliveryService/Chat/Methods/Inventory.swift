import ChatProtocol
import DeliveryStore
import Foundation
import Basics
import Primitives

/// The inventory of one device (CHAT.md §3): `getConversations` opens a session as of one event
/// position (`snapshotEventCursor`); `getPendingWelcomes` and `getLeafRecoveryInbox` page the same
/// session; once all three reached their end, `getSubscriptionTicket` hands out a ticket for the
/// stream from that cursor, so that nothing that happened after the snapshot is missed.
struct InventoryPage {
    let query: ChatQuery
    let session: ChatInventorySession

    /// The session named by `inventorySessionId`, the caller's device's and still alive.
    init(_ query: ChatQuery) throws {
        self.query = query
        guard let id = try query.string("inventorySessionId", minLength: 32) else {
            throw ChatRefusal(.invalidRequest, "inventorySessionId is required")
        }
        session = try Self.session(id, query: query)
    }

    init(query: ChatQuery, session: ChatInventorySession) {
        self.query = query
        self.session = session
    }

    static func session(_ id: String, query: ChatQuery) throws -> ChatInventorySession {
        guard let session = try query.env.store.chat({ try $0.inventorySession(id) }),
              session.userDID == query.caller, session.deviceID == query.device.deviceID else {
            throw ChatRefusal(.inventorySessionMismatch, "the inventory session is not this device's")
        }
        guard session.expiresAt > query.env.clock(), session.authGeneration == query.device.authGeneration else {
            throw ChatRefusal(.inventorySessionExpired, "the inventory session expired; start again with getConversations")
        }
        return session
    }

    /// A page of `items`; the last one marks `part` done.
    func output(_ items: [ChatValue], next: String?, part: ChatInventorySession.Part) throws -> XRPCOutput {
        if next == nil { try query.env.store.chat { try $0.markInventory(session.id, done: part) } }
        var members: [String: ChatValue] = [
            "items": .array(items), "inventorySessionId": .text(session.id), "hasMore": .bool(next != nil),
            "snapshotEventCursor": .text(ChatCursor.text(session.position)), "snapshotExpiresAt": ChatViews.time(session.expiresAt),
        ]
        if let next { members["nextPageCursor"] = .text(next) }
        return query.env.output(.object(members))
    }

    static func hex(_ uuid: ChatUUID) -> String { uuid.bytes.map { String($0, radix: 16).leftPadded(2) }.joined() }

    static func uuid(hex text: String) -> ChatUUID? {
        guard text.utf8.count == 32 else { return nil }
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
            bytes.append(byte)
            index = next
        }
        return ChatUUID(bytes: bytes)
    }
}

extension String {
    fileprivate func leftPadded(_ width: Int) -> String { String(repeating: "0", count: max(0, width - count)) + self }
}

/// `blue.catbird.chat.getConversations`: the first page opens an inventory session; every
/// conversation the account takes part in (pending invitations included) as its current state,
/// and the tombstones of those the device was removed from or that closed (`item`).
enum GetConversations {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "getConversations", .query) { context in
            let query = try ChatQuery(context, env: env)
            let limit = try query.limit()
            let page: InventoryPage
            var after: ChatUUID?
            if let cursor = try query.string("pageCursor") {
                let parts = cursor.split(separator: ".", maxSplits: 1).map(String.init)
                guard parts.count == 2, let last = InventoryPage.uuid(hex: parts[1]) else {
                    throw ChatRefusal(.cursorExpired, "pageCursor is not one of this service's")
                }
                do {
                    page = InventoryPage(query: query, session: try InventoryPage.session(parts[0], query: query))
                } catch let refusal as ChatRefusal {
                    throw ChatRefusal(.cursorExpired, refusal.message)
                }
                after = last
            } else {
                let id = Base64.encode(SecureRandom.bytes(32), padding: false, alphabet: .url)
                let session = try env.store.chat {
                    try $0.openInventorySession(id: id, did: query.caller, device: query.device.deviceID,
                                                authGeneration: query.device.authGeneration)
                }
                page = InventoryPage(query: query, session: session)
            }
            let (items, last) = try env.store.chat { tx -> ([ChatValue], ChatUUID?) in
                let ids = try tx.inventoryConversationIDs(did: query.caller, device: query.device.deviceID, after: after, limit: limit + 1)
                var items: [ChatValue] = []
                for id in ids.prefix(limit) {
                    if let item = try item(id, did: query.caller, device: query.device.deviceID, tx: tx) { items.append(item) }
                }
                return (items, ids.count > limit ? ids[limit - 1] : nil)
            }
            let next = last.map { "\(page.session.id).\(InventoryPage.hex($0))" }
            return try page.output(items, next: next, part: .conversations)
        }
    }

    /// One conversation as the device's inventory shows it: a closed one as its close tombstone; one
    /// the account takes part in as its state, unless the device's own leaf was removed (and not
    /// given back), which shows as the removal tombstone; one the account left or was removed from
    /// as the removal tombstone of the device's last interval.
    static func item(_ id: ChatUUID, did: String, device: ChatUUID, tx: ChatTransaction) throws -> ChatValue? {
        guard let conversation = try tx.conversation(id) else { return nil }
        if let close = try tx.closeRecord(id) {
            return .tagged("conversationCloseTombstone", [
                "conversationId": .uuid(id), "conversationKind": .text(conversation.kind), "retired": conversation.coordinates.value,
                "closedByDid": .text(close.closedByDID), "closedByDeviceId": .uuid(close.closedByDeviceID),
                "terminalSeq": .integer(UInt64(close.terminalSeq)), "closedAt": ChatViews.time(close.closedAt),
            ])
        }
        let participant = try tx.participant(id, did: did)
        let interval = try tx.latestInterval(id, did: did, device: device)
        let holdsLeaf = try tx.leaf(id, did: did, device: device) != nil
        if let interval, let end = interval.endSeq, let endedAt = interval.endedAt,
           participant == nil || (interval.endKind == "removed" && !holdsLeaf) {
            return .tagged("conversationRemovalTombstone", [
                "conversationId": .uuid(id), "membershipIntervalId": .uuid(interval.intervalID), "userDid": .text(did),
                "deviceId": .uuid(device), "terminalSeq": .integer(UInt64(end)), "removedAt": ChatViews.time(endedAt),
            ])
        }
        guard participant != nil else { return nil }
        return .tagged("conversationInventoryState", ["state": try ChatViews.state(of: conversation, in: tx)])
    }
}

/// `blue.catbird.chat.getPendingWelcomes`: the device's Welcomes still waiting for an answer.
enum GetPendingWelcomes {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "getPendingWelcomes", .query) { context in
            let page = try InventoryPage(try ChatQuery(context, env: env))
            let query = page.query
            let limit = try query.limit()
            let after = try query.string("pageCursor").map { text -> ChatUUID in
                guard let uuid = InventoryPage.uuid(hex: text) else { throw ChatRefusal(.invalidRequest, "pageCursor is not one of ours") }
                return uuid
            }
            let welcomes = try env.store.chat { try $0.pendingWelcomes(did: query.caller, device: query.device.deviceID, after: after, limit: limit + 1) }
            let shown = welcomes.prefix(limit)
            let next = welcomes.count > limit ? shown.last.map { InventoryPage.hex($0.id) } : nil
            return try page.output(shown.map(ChatViews.welcome), next: next, part: .welcomes)
        }
    }
}

/// `blue.catbird.chat.getLeafRecoveryInbox`: open recovery requests the device made, and those of
/// other devices in conversations where this device holds a leaf and so may fulfil them (the
/// reserved KeyPackage is in the request: this is how a fulfiller obtains it); then the device's
/// recovery work (Welcomes it rejected or let expire).
enum GetLeafRecoveryInbox {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "getLeafRecoveryInbox", .query) { context in
            let page = try InventoryPage(try ChatQuery(context, env: env))
            let query = page.query
            let limit = try query.limit()
            var stage = "r"
            var after: ChatUUID?
            // "r.<id>": recoveries after id; "w": work from the start; "w.<id>": work after id.
            if let cursor = try query.string("pageCursor") {
                let parts = cursor.split(separator: ".", maxSplits: 1).map(String.init)
                guard ["r", "w"].contains(parts[0]), parts.count == 2 || cursor == "w" else {
                    throw ChatRefusal(.invalidRequest, "pageCursor is not one of ours")
                }
                if parts.count == 2 {
                    guard let last = InventoryPage.uuid(hex: parts[1]) else { throw ChatRefusal(.invalidRequest, "pageCursor is not one of ours") }
                    after = last
                }
                stage = parts[0]
            }
            let (items, next) = try env.store.chat { tx -> ([ChatValue], String?) in
                var items: [ChatValue] = []
                if stage == "r", after == nil {
                    // Welcomes that ran out become recovery work before the work is listed.
                    for expired in try tx.settleExpiredWelcomes(did: query.caller, device: query.device.deviceID) {
                        tx.emit(.tagged("welcomeDispositionEvent", ["welcomeId": .uuid(expired.id), "status": .text("expired")]),
                                to: .device(did: expired.recipientDID, device: expired.recipientDeviceID))
                    }
                }
                if stage == "r" {
                    let recoveries = try tx.inboxRecoveries(did: query.caller, device: query.device.deviceID, after: after, limit: limit + 1)
                    for recovery in recoveries.prefix(limit) {
                        let suite = try tx.conversation(recovery.conversationID)?.cipherSuite ?? ChatEnvironment.contractSuite
                        guard case .object(let members) = ChatViews.recovery(recovery, cipherSuite: suite) else { continue }
                        items.append(.tagged("leafRecoveryView", members))
                    }
                    if recoveries.count > limit { return (items, "r.\(InventoryPage.hex(recoveries[limit - 1].id))") }
                    after = nil
                }
                let room = limit - items.count
                guard room > 0 else { return (items, "w") }
                let work = try tx.recoveryWork(did: query.caller, device: query.device.deviceID, after: after, limit: room + 1)
                items += work.prefix(room).map(ChatViews.recoveryWork)
                return (items, work.count > room ? "w.\(InventoryPage.hex(work[room - 1].id))" : nil)
            }
            return try page.output(items, next: next, part: .recovery)
        }
    }
}

/// `blue.catbird.chat.getSubscriptionTicket`: a single-use ticket for `subscribeEvents`, bound to
/// the device, its inventory session and that session's cursor, once the session's three lists
/// were paged to their end (`InventoryIncomplete` before). Not signed: the token's account and the
/// device's registration are what it rests on.
enum GetChatSubscriptionTicket {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "getSubscriptionTicket", .procedure, maxBodySize: 16 << 10) { context in
            guard let schema = ChatSchema.contract.method(context.nsid)?.input else { throw XRPCError.internalError }
            let input: ChatValue
            do throws(ChatInputError) { input = try env.projection.project(json: context.request.body, as: schema) } catch {
                throw ChatRefusal(.invalidRequest, error.description)
            }
            guard let deviceText = input["actorDeviceId"]?.text, let deviceID = ChatUUID(deviceText),
                  let sessionID = input["inventorySessionId"]?.text, let cursor = input["eventCursor"]?.text else {
                throw ChatRefusal(.invalidRequest, "actorDeviceId must be a lowercase UUIDv4")
            }
            guard let device = try env.store.chat({ try $0.device(did: context.caller.rawValue, id: deviceID) }) else {
                throw ChatRefusal(.deviceNotRegistered, "no device \(deviceID) is registered for this account")
            }
            guard device.isActive else { throw ChatRefusal(.deviceRevoked, "the device was revoked") }
            let query = ChatQuery(env: env, caller: context.caller.rawValue, device: device, parameters: context.parameters)
            let session = try InventoryPage.session(sessionID, query: query)
            guard session.done == [.conversations, .welcomes, .recovery] else {
                throw ChatRefusal(.inventoryIncomplete, "page getConversations, getPendingWelcomes and getLeafRecoveryInbox to their end first")
            }
            guard cursor == ChatCursor.text(session.position) else {
                throw ChatRefusal(.inventorySessionMismatch, "eventCursor must be the session's snapshotEventCursor")
            }
            let ticket = SecureRandom.bytes(32)
            let expires = try env.store.chat { try $0.issueTicket(hash: HashAlgorithm.sha256.hash(ticket), session: session) }
            return env.output(.object(["ticket": .text(Base64.encode(ticket, padding: false, alphabet: .url)),
                                       "endpoint": .text(env.subscriptionEndpoint), "expiresAt": ChatViews.time(expires)]))
        }
    }
}

import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.getEntries`: a conversation's entries after `afterSeq`, each the signed
/// request that made it, as far as the reading device may see them: from the entry that gave it a
/// leaf to the one that took it away. Nothing from before a device joined, nothing between two of
/// its leaves; a device that never had a leaf here reads nothing (`NotEntitled`).
enum GetEntries {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "getEntries", .query) { context in
            let query = try ChatQuery(context, env: env)
            let id = try query.uuid("conversationId")
            guard let afterText = query.parameters.string("afterSeq"), let afterSeq = Int64(afterText), afterSeq >= 0,
                  String(afterSeq) == afterText else { throw ChatRefusal(.invalidRequest, "afterSeq must be an integer ≥ 0") }
            let limit = try query.limit(default: 100)
            let (entries, hasMore) = try env.store.chat { tx -> ([ChatEntry], Bool) in
                guard try tx.conversation(id) != nil else { throw ChatRefusal(.conversationNotFound, "no such conversation") }
                let intervals = try tx.intervals(id, did: query.caller, device: query.device.deviceID)
                guard let first = intervals.first else {
                    throw ChatRefusal(.notEntitled, "this device never held a leaf in this conversation")
                }
                guard afterSeq + 1 >= first.lowerBound else {
                    throw ChatRefusal(.accessOutsideMembershipInterval, "this device may read from seq \(first.lowerBound)")
                }
                let page = try tx.entries(id, afterSeq: afterSeq, intervals: intervals, limit: limit + 1)
                return (Array(page.prefix(limit)), page.count > limit)
            }
            return env.output(ChatJSON.object([
                "entries": .raw(ChatJSON.array(entries.map { ChatViews.entry($0) })),
                "nextAfterSeq": .value(.integer(UInt64(entries.last?.seq ?? afterSeq))), "hasMore": .value(.bool(hasMore)),
            ]))
        }
    }
}

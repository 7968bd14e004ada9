import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.getBlobUsage` (defs `blobUsageView`): the account's blob storage, v1's
/// attachments and chat blobs together since they share one quota: bytes stored, bytes reserved by
/// uploads prepared or streaming, blobs stored, and chat uploads not bound yet (at most 100).
/// `quotaBytes` is the contract's constant; the quota enforced is never larger (docs/chat.md "Blobs").
enum GetBlobUsage {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "getBlobUsage", .query) { context in
            let query = try ChatQuery(context, env: env)
            let usage = try env.store.chat { try $0.blobUsage(of: query.caller, now: env.clock()) }
            return env.output(.object(["usage": .object([
                "usedBytes": .integer(UInt64(usage.usedBytes)), "reservedBytes": .integer(UInt64(usage.reservedBytes)),
                "quotaBytes": .integer(UInt64(ChatTransaction.contractBlobQuota)), "blobCount": .integer(UInt64(usage.blobCount)),
                "liveUnboundCount": .integer(UInt64(min(usage.liveUnboundCount, ChatTransaction.maxLiveUnboundBlobs))),
            ])]))
        }
    }
}

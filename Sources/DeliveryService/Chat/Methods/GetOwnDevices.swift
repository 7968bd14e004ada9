import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.getOwnDevices`: the app's start-up probe (CHAT.md §4): the caller's devices,
/// or `DeviceNotRegistered` (401) for an unknown `actorDeviceId`, which makes the app enroll.
enum GetOwnDevices {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "getOwnDevices", .query) { context in
            let query = try ChatQuery(context, env: env)
            let limit = try query.limit()
            let offset = try query.string("pageCursor").map { text -> Int in
                guard let offset = Int(text), offset > 0 else { throw ChatRefusal(.invalidRequest, "pageCursor is not one of ours") }
                return offset
            } ?? 0
            let devices = try env.store.chat { try $0.devices(did: query.caller) }
            let page = devices.dropFirst(offset).prefix(limit)
            let hasMore = offset + page.count < devices.count
            var output: [String: ChatValue] = [
                "items": .array(page.map { .object(["device": ChatViews.device($0)]) }), "hasMore": .bool(hasMore),
                "snapshotExpiresAt": ChatViews.time(env.clock().addingTimeInterval(ChatTransaction.inventoryLifetime)),
            ]
            if hasMore { output["nextPageCursor"] = .text(String(offset + page.count)) }
            return env.output(.object(output))
        }
    }
}

import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.getDevices`: other users' active devices (up to 5 DIDs, strictly ordered),
/// with their capability and how many KeyPackages each has left. No KeyPackage bytes: the service
/// reserves packages itself (acceptConversation, requestLeafRecovery); an inviter never fetches one.
enum GetDevices {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "getDevices", .query) { context in
            let query = try ChatQuery(context, env: env)
            let dids = query.parameters.all("userDids")
            guard (1...5).contains(dids.count) else { throw ChatRefusal(.invalidRequest, "userDids takes 1 to 5 DIDs") }
            for (index, did) in dids.enumerated() {
                guard BareDIDGrammar.accepts(did) else { throw ChatRefusal(.invalidRequest, "userDids[\(index)] is not a bare DID") }
                if index > 0, !Array(dids[index - 1].utf8).lexicographicallyPrecedes(Array(did.utf8)) {
                    throw ChatRefusal(.invalidRequest, "userDids must be strictly ascending")
                }
            }
            let devices = try env.store.chat { try $0.activeDevices(dids: dids) }
            let views = try devices.map { device -> ChatValue in
                .object(["userDid": .text(device.userDID), "deviceId": .uuid(device.deviceID), "keyId": .text(device.keyID),
                         "capability": try ChatViews.json(device.capability, as: "deviceCapability"),
                         "availablePackageCount": .integer(UInt64(min(device.availablePackages, ChatTransaction.maxLivePackages)))])
            }
            return env.output(.object(["devices": .array(views)]))
        }
    }
}

import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.replenishKeyPackages`: more KeyPackages for the signing device, all or none,
/// at most 1000 live per device.
enum ReplenishKeyPackages {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "replenishKeyPackages", .procedure, maxBodySize: 16 << 20) { context in
            let call = try SignedCall(context, env: env)
            let (device, verified) = try call.verify()
            guard call.request.body["signaturePublicKey"]?.bytes == device.publicKey else {
                throw ChatRefusal(.deviceBindingMismatch, "signaturePublicKey is not the device's key")
            }
            let packages = try ChatKeyPackages.validate(call.request.body["keyPackages"]?.array ?? [], did: call.caller,
                                                        device: device.deviceID, publicKey: device.publicKey, env: env, now: env.clock())
            return try call.execute(verified, device: device) { tx in
                try tx.replenish(did: call.caller, device: device.deviceID, keyPackages: packages)
                guard let stored = try tx.device(did: call.caller, id: device.deviceID) else { throw XRPCError.internalError }
                return ChatJSON.render(.object(["device": ChatViews.device(stored)]))
            }
        }
    }
}

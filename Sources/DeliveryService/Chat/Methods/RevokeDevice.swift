import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.revokeDevice`: one of the caller's devices (the signing one included) is
/// revoked at the generation the body names: it can no longer sign or read, its KeyPackages and
/// reservations are released, and its leaves stay in their groups until a commit removes them.
enum RevokeDevice {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "revokeDevice", .procedure, maxBodySize: 64 << 10) { context in
            let call = try SignedCall(context, env: env)
            let (device, verified) = try call.verify()
            guard let target = call.request.body["targetDeviceId"]?.uuid,
                  let generation = call.request.body["targetAuthGeneration"]?.integer else {
                throw ChatRefusal(.invalidRequest, "incomplete revocation")
            }
            return try call.execute(verified, device: device) { tx in
                try tx.revoke(did: call.caller, device: target, generation: Int64(generation))
                guard let stored = try tx.device(did: call.caller, id: target) else { throw XRPCError.internalError }
                return ChatJSON.render(.object(["device": ChatViews.device(stored)]))
            }
        }
    }
}

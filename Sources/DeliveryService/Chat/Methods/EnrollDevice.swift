import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.enrollDevice`: a new device of the caller's (CHAT.md §4), signed with the
/// key it enrolls and carrying its first KeyPackages; it starts at authentication generation 1.
enum EnrollDevice {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        // 100 KeyPackages of up to 64 KiB, as base64 JSON.
        XRPCMethod(ChatMethods.prefix + "enrollDevice", .procedure, maxBodySize: 16 << 20) { context in
            let call = try SignedCall(context, env: env)
            let body = call.request.body
            guard let publicKey = body["signaturePublicKey"]?.bytes, let name = body["deviceName"]?.text,
                  let capability = body["capability"], let artifacts = body["keyPackages"]?.array else {
                throw ChatRefusal(.invalidRequest, "incomplete enrollment")
            }
            let verified = try call.verify(publicKey: publicKey)
            let now = env.clock()
            let packages = try ChatKeyPackages.validate(artifacts, did: call.caller, device: call.deviceID, publicKey: publicKey,
                                                        env: env, now: now)
            return try call.execute(verified, device: nil) { tx in
                let device = ChatDevice(userDID: call.caller, deviceID: call.deviceID, keyID: call.request.keyID,
                                        publicKey: publicKey, authGeneration: 1, isActive: true, name: name,
                                        capability: ChatJSON.render(capability), createdAt: tx.now, updatedAt: tx.now)
                try tx.enroll(device, keyPackages: packages)
                guard let stored = try tx.device(did: call.caller, id: call.deviceID) else { throw XRPCError.internalError }
                return ChatJSON.render(.object(["device": ChatViews.device(stored)]))
            }
        }
    }
}

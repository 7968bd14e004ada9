import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.acknowledgeWelcome` and `rejectWelcome`: the device a Welcome was for says it
/// joined, or could not (which leaves it recovery work in its inbox). Each Welcome is settled once
/// (acknowledged, rejected, expired or superseded); a settled one refuses any other answer.
enum WelcomeDisposition {
    static func method(_ env: ChatEnvironment, accept: Bool) -> XRPCMethod {
        let name = accept ? "acknowledgeWelcome" : "rejectWelcome"
        let conflict: ChatErrorCode = accept ? .acknowledgementConflict : .rejectionConflict
        return XRPCMethod(ChatMethods.prefix + name, .procedure, maxBodySize: 64 << 10) { context in
            let call = try SignedCall(context, env: env)
            let (device, verified) = try call.verify()
            let body = call.request.body
            guard let id = body["welcomeId"]?.uuid, let seq = body["transitionSeq"]?.integer,
                  let coordinates = ConversationCoordinates(body["coordinates"]) else {
                throw ChatRefusal(.invalidRequest, "incomplete disposition")
            }
            return try call.execute(verified, device: device) { tx in
                guard var welcome = try tx.welcome(id, lock: true), welcome.recipientDID == call.caller,
                      welcome.recipientDeviceID == device.deviceID else {
                    throw ChatRefusal(.welcomeNotFound, "no Welcome for this device has this id")
                }
                switch welcome.status {
                case "pending": break
                case "expired": throw ChatRefusal(.welcomeExpired, "the Welcome expired")
                case "superseded": throw ChatRefusal(.welcomeSuperseded, "the Welcome was superseded")
                default: throw ChatRefusal(conflict, "the Welcome was \(welcome.status) before")
                }
                guard UInt64(welcome.transitionSeq) == seq, welcome.coordinates == coordinates else {
                    throw ChatRefusal(conflict, "transitionSeq and coordinates must be the Welcome's")
                }
                let status = accept ? "acknowledged" : "rejected"
                try tx.dispose(&welcome, status: status)
                tx.emit(.tagged("welcomeDispositionEvent", ["welcomeId": .uuid(id), "status": .text(status)]),
                        to: .device(did: call.caller, device: device.deviceID))
                return ChatJSON.render(.object(["status": .text(status),
                                                (accept ? "acknowledgedAt" : "rejectedAt"): ChatViews.time(tx.now)]))
            }
        }
    }
}

enum AcknowledgeWelcome {
    static func method(_ env: ChatEnvironment) -> XRPCMethod { WelcomeDisposition.method(env, accept: true) }
}

enum RejectWelcome {
    static func method(_ env: ChatEnvironment) -> XRPCMethod { WelcomeDisposition.method(env, accept: false) }
}

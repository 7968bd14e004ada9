import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.cancelLeafRecovery`: the requesting device withdraws its open request; the
/// reserved KeyPackage becomes available again.
enum CancelLeafRecovery {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "cancelLeafRecovery", .procedure, maxBodySize: 64 << 10) { context in
            let call = try SignedCall(context, env: env)
            let (device, verified) = try call.verify()
            guard let id = call.request.body["recoveryRequestId"]?.uuid else { throw ChatRefusal(.invalidRequest, "incomplete request") }
            return try call.execute(verified, device: device) { tx in
                // The conversation's row first, as every transition takes it, then the request's.
                guard let found = try tx.recovery(id), found.requesterDID == call.caller, found.requesterDeviceID == device.deviceID,
                      let conversation = try tx.conversation(found.conversationID, lock: true),
                      var recovery = try tx.recovery(id, lock: true) else {
                    throw ChatRefusal(.leafRecoveryNotFound, "no recovery request of this device has this id")
                }
                guard recovery.status == "open" else { throw ChatRefusal(.cancellationConflict, "the request is \(recovery.status)") }
                try tx.closeRecovery(id, status: "cancelled")
                recovery.status = "cancelled"
                recovery.reservationStatus = "released"
                ChatEvents.recovery(recovery, status: "cancelled", in: tx)
                return ChatJSON.render(.object(["recovery": ChatViews.recovery(recovery, cipherSuite: conversation.cipherSuite)]))
            }
        }
    }
}

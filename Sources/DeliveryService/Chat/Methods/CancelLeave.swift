import ChatProtocol
import DeliveryStore

/// `blue.catbird.chat.cancelLeave`: the requester withdraws its pending leave request (defs
/// `leaveCancellationBody`); any device of the requesting account may. The cancellation is an
/// entry of the conversation; the coordinates do not move.
enum CancelLeave {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "cancelLeave", .procedure, maxBodySize: 64 << 10) { context in
            let call = try SignedCall(context, env: env)
            let (device, verified) = try call.verify()
            let body = call.request.body
            guard let conversationID = body["conversationId"]?.uuid, let id = body["leaveRequestId"]?.uuid else {
                throw ChatRefusal(.invalidRequest, "incomplete cancellation")
            }
            return try call.execute(verified, device: device) { tx in
                // The conversation's row first, as every change takes it, then the request's.
                guard let conversation = try tx.conversation(conversationID, lock: true),
                      var request = try tx.request(.leave, id: id, lock: true), request.conversationID == conversationID,
                      request.requesterDID == call.caller else {
                    throw ChatRefusal(.leaveRequestNotFound, "no leave request of this account in this conversation has this id")
                }
                try tx.expireRequests(.leave, conversationID)
                request = try tx.request(.leave, id: id) ?? request
                guard request.status == "pending" else { throw ChatRefusal(.cancellationConflict, "the leave request is \(request.status)") }
                try tx.setStatus(.leave, id: id, "cancelled")
                request.status = "cancelled"
                let entry = try ChatTransition(tx: tx, conversation: conversation, request: call.request).record(kind: "leaveCancellationEntry")
                ChatEvents.leaveRequest(request, in: tx)
                return ChatJSON.object(["leaveRequest": .value(ChatViews.leaveRequest(request)),
                                        "entry": .raw(ChatViews.entry(entry, tagged: false))])
            }
        }
    }
}

import ChatProtocol
import DeliveryStore

/// What every coordinate-changing transition does once its own checks passed, in its transaction
/// (defs `leafRecoveryRequestBody`, `applicationEntry`): the conversation moves to `next`; the
/// recovery requests still open at the coordinates it leaves are superseded and their KeyPackages
/// released; the signed request becomes the next entry; the devices that may read it hear of it
/// (`messageAvailableEvent`) and every participant's devices of the change (`conversationChangedEvent`).
struct ChatTransition {
    let tx: ChatTransaction
    let conversation: ChatConversation
    let request: SignedRequest

    /// Applies the transition and returns its entry (with its seq).
    func apply(to next: ConversationCoordinates, kind: String, serverFields: [UInt8]? = nil, publicState: [UInt8]? = nil,
               metadataSnapshot: [UInt8]? = nil, keepingRecovery: ChatUUID? = nil) throws -> ChatEntry {
        let id = conversation.id
        try tx.advance(id, to: next, publicState: publicState, metadataSnapshot: metadataSnapshot)
        for superseded in try tx.supersedeRecoveries(id, stateVersion: conversation.coordinates.stateVersion, except: keepingRecovery) {
            ChatEvents.recovery(superseded, status: "superseded", in: tx)
        }
        var entry = ChatEntry(conversationID: id, seq: 0, entryID: .random(), kind: kind, signedRequest: ChatJSON.render(request.wrapper),
                              serverFields: serverFields, requestDigest: request.requestDigest, receivedAt: tx.now)
        entry.seq = try tx.append(entry)
        ChatEvents.entry(entry, sender: request, in: tx)
        tx.emit(.tagged("conversationChangedEvent", ["conversationId": .uuid(id)]), to: .participants(conversation: id))
        return entry
    }
}

/// The events the contract's methods emit (defs `protocolEventPayload`).
enum ChatEvents {
    /// A new entry: every other device that holds a leaf may fetch it.
    static func entry(_ entry: ChatEntry, sender: SignedRequest, in tx: ChatTransaction) {
        let except = sender.actorDeviceID.map { (did: sender.actorDID, device: $0) }
        tx.emit(.tagged("messageAvailableEvent", ["conversationId": .uuid(entry.conversationID), "seq": .integer(UInt64(entry.seq))]),
                to: .leaves(conversation: entry.conversationID, except: except))
    }

    /// A recovery request changed: its requester hears of it, and while it is open so do the
    /// conversation's leaves, one of which may fulfil it.
    static func recovery(_ recovery: ChatRecovery, status: String, in tx: ChatTransaction) {
        let payload = ChatValue.tagged("leafRecoveryEvent", [
            "recoveryRequestId": .uuid(recovery.id), "conversationId": .uuid(recovery.conversationID), "status": .text(status),
        ])
        tx.emit(payload, to: .device(did: recovery.requesterDID, device: recovery.requesterDeviceID))
        if status == "open" {
            tx.emit(payload, to: .leaves(conversation: recovery.conversationID,
                                         except: (did: recovery.requesterDID, device: recovery.requesterDeviceID)))
        }
    }
}

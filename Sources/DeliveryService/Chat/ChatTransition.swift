import ChatProtocol
import DeliveryStore

/// What every coordinate-changing transition does once its own checks passed, in its transaction
/// (defs `leafRecoveryRequestBody`, `applicationEntry`): the conversation moves to `next`; the
/// recovery requests still open at the coordinates it leaves are superseded and their KeyPackages
/// released, and the leave and reset requests pending there become stale; the signed request becomes the next entry; the devices that may read it hear of it
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
        // Leave and reset requests are bound to the coordinates they were made at: those still
        // pending there are stale now (one this transition fulfils or consumes is no longer pending).
        for stale in try tx.staleRequests(.leave, id, stateVersion: conversation.coordinates.stateVersion) {
            ChatEvents.leaveRequest(stale, in: tx)
        }
        _ = try tx.staleRequests(.reset, id, stateVersion: conversation.coordinates.stateVersion)
        let entry = try record(kind: kind, serverFields: serverFields)
        tx.emit(.tagged("conversationChangedEvent", ["conversationId": .uuid(id)]), to: .participants(conversation: id))
        return entry
    }

    /// Ends the conversation's generation at `seq` (a close or a reset, whose entry `seq` is): every
    /// leaf leaves and its interval ends there; pending Welcomes are superseded, open recovery
    /// requests too (their KeyPackages released), pending leave and reset requests become stale and
    /// pending recovery work is superseded by `transitionID`. Returns the intervals ended.
    func endGeneration(at seq: Int64, transitionID: ChatUUID, how: ChatTransaction.IntervalEnd) throws -> [ChatEndedInterval] {
        let id = conversation.id
        let ended = try tx.endAllLeaves(id, at: seq, how: how)
        for welcome in try tx.supersedeWelcomes(id) {
            tx.emit(.tagged("welcomeDispositionEvent", ["welcomeId": .uuid(welcome.id), "status": .text("superseded")]),
                    to: .device(did: welcome.recipientDID, device: welcome.recipientDeviceID))
        }
        for recovery in try tx.supersedeAllRecoveries(id) { ChatEvents.recovery(recovery, status: "superseded", in: tx) }
        for stale in try tx.staleAllRequests(.leave, id) { ChatEvents.leaveRequest(stale, in: tx) }
        _ = try tx.staleAllRequests(.reset, id)
        try tx.supersedeRecoveryWork(id, transitionID: transitionID)
        return ended
    }

    /// Appends the signed request as the conversation's next entry without moving its coordinates
    /// (a leave or reset request, a leave's cancellation) and tells the devices that may read it.
    func record(kind: String, serverFields: [UInt8]? = nil) throws -> ChatEntry {
        var entry = ChatEntry(conversationID: conversation.id, seq: 0, entryID: .random(), kind: kind,
                              signedRequest: ChatJSON.render(request.wrapper), serverFields: serverFields,
                              requestDigest: request.requestDigest, receivedAt: tx.now)
        entry.seq = try tx.append(entry)
        ChatEvents.entry(entry, sender: request, in: tx)
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

    /// A leave request changed: the participants' devices hear of it (another participant's leaf
    /// fulfils it), and once fulfilled the requester's, no longer a participant's.
    static func leaveRequest(_ request: ChatRequest, in tx: ChatTransaction) {
        let payload = ChatValue.tagged("leaveRequestEvent", [
            "leaveRequestId": .uuid(request.id), "conversationId": .uuid(request.conversationID), "status": .text(request.status),
        ])
        tx.emit(payload, to: .participants(conversation: request.conversationID))
        if request.status == "fulfilled" { tx.emit(payload, to: .account(did: request.requesterDID)) }
    }

    /// Devices' leaves and their intervals ended: each device hears that its access ended.
    static func accessEnded(_ ended: [ChatEndedInterval], in tx: ChatTransaction) {
        for interval in ended {
            tx.emit(.tagged("accessEndedEvent", [
                "conversationId": .uuid(interval.conversationID), "membershipIntervalId": .uuid(interval.intervalID),
                "userDid": .text(interval.did), "deviceId": .uuid(interval.deviceID), "terminalSeq": .integer(UInt64(interval.terminalSeq)),
            ]), to: .device(did: interval.did, device: interval.deviceID))
        }
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

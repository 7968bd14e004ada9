import Basics
import ChatProtocol
import DeliveryStore
import Foundation

/// `blue.catbird.chat.createConversation`: a conversation at epoch 0 holding only the creator's
/// leaf (defs `creationBody`), from a GroupInfo the service validates in full (`GenesisGroupInfo`);
/// every other participant is invited, pending, with no leaf, and joins by accepting. A direct
/// conversation is one per pair of DIDs: creating a second returns the first
/// (`existingDirectConversationResult`). Nobody is invited against a block or their chat policy
/// (docs/chat.md, "Consent and relationships"): every pair of the roster is checked for blocks,
/// and each invitee's consent, before anything is stored.
enum CreateConversation {
    static func method(_ env: ChatEnvironment) -> XRPCMethod {
        XRPCMethod(ChatMethods.prefix + "createConversation", .procedure, maxBodySize: 4 << 20) { context in
            let call = try SignedCall(context, env: env)
            let (device, verified) = try call.verify()
            let body = call.request.body
            guard let conversationID = body["conversationId"]?.uuid, let kind = body["conversationKind"]?.text,
                  let transitionID = body["transitionId"]?.uuid, let next = ConversationCoordinates(body["next"]),
                  let manifest = body["manifest"], let snapshot = body["metadataSnapshot"],
                  let groupInfo = body["genesisGroupInfo"] else { throw ChatRefusal(.invalidRequest, "incomplete creation") }
            guard next.conversationID == conversationID, next.generation == 0, next.stateVersion == 0, next.epoch == 0,
                  next.lifecycle == .active else {
                throw ChatRefusal(.invalidRequest, "next must be generation 0, stateVersion 0, epoch 0 of this conversation, active")
            }
            let participants = try roster(manifest, kind: kind, transitionID: transitionID, request: call.request)
            let genesis = try GenesisGroupInfo(groupInfo, did: call.caller, device: device.deviceID, publicKey: device.publicKey, env: env)
            guard next.groupID == genesis.group.groupID, next.groupContextHash == genesis.groupContextHash,
                  next.confirmationTag == genesis.confirmationTag else {
                throw ChatRefusal(.invalidGenesisGroupInfo, "next must carry the GroupInfo's group id, GroupContext hash and confirmation tag")
            }
            try MetadataSnapshotCheck.check(snapshot, at: next, version: 1, origin: transitionID)
            // A blob is uploaded into a conversation that exists: a new one has no avatar yet (a metadata transition sets it).
            guard snapshot["avatarBinding"] == nil else {
                throw ChatRefusal(.invalidMetadataSnapshot, "a new conversation has no avatar; set it with a metadata transition")
            }
            try MetadataSnapshotCheck.checkAuthor(snapshot, request: call.request, publicKey: device.publicKey, originSeq: 1)
            let dids = participants.map(\.did)
            let directPair = kind == "direct" ? dids.sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) }.joined(separator: " ") : nil
            let roster = dids.compactMap { try? DID($0) }
            let consent = ChatConsent(roster: roster, inviter: context.caller, invitees: roster.filter { $0 != context.caller },
                                      group: kind == "group")

            return try env.admit(consent, context) { try call.execute(verified, device: device) { tx in
                let conversation = ChatConversation(kind: kind, coordinates: next, cipherSuite: genesis.group.cipherSuite.rawValue,
                                                    publicState: genesis.group.serialize(), metadataSnapshot: ChatJSON.render(snapshot),
                                                    lastSeq: 0)
                let entry = ChatEntry(conversationID: conversationID, seq: 1, entryID: .random(), kind: "creationEntry",
                                      signedRequest: ChatJSON.render(call.request.wrapper), serverFields: nil,
                                      requestDigest: call.request.requestDigest, receivedAt: tx.now)
                let leaf = ChatLeaf(did: call.caller, deviceID: device.deviceID, leafIndex: genesis.leafIndex, origin: "genesis",
                                    joinKeyPackageRef: nil, intervalID: transitionID)
                if let existing = try tx.create(conversation, directPair: directPair, participants: participants, creatorLeaf: leaf, entry: entry) {
                    guard let other = try tx.conversation(existing) else { throw XRPCError.internalError }
                    return ChatJSON.render(.object(["result": .tagged("existingDirectConversationResult", [
                        "conversationKind": .text("direct"), "conversationId": .uuid(existing), "coordinates": other.coordinates.value,
                    ])]))
                }
                try tx.recordMetadataNonce(conversationID, generation: 0, epoch: 0, nonce: snapshot["nonce"]?.bytes ?? [])
                tx.emit(.tagged("conversationChangedEvent", ["conversationId": .uuid(conversationID)]),
                        to: .participants(conversation: conversationID))
                return ChatJSON.object(["result": .raw(ChatJSON.object([
                    "$type": .value(.text(ChatSchema.typePrefix + "conversationCreatedResult")),
                    "coordinates": .value(next.value), "entry": .raw(ChatViews.entry(entry, tagged: false)),
                ]))])
            } }
        }
    }

    /// The creation roster (defs `creationManifest`): the creator once, active admin without
    /// provenance, and the actor leaf the creator's device's genesis leaf; every other participant
    /// pending with this transition's provenance, a member of a group or the one admin invitee of
    /// a direct conversation.
    static func roster(_ manifest: ChatValue, kind: String, transitionID: ChatUUID, request: SignedRequest) throws -> [ChatParticipant] {
        func refuse(_ reason: String) -> ChatRefusal { ChatRefusal(.invalidRequest, "manifest: \(reason)") }
        guard let actorLeaf = manifest["actorLeaf"], actorLeaf["userDid"]?.text == request.actorDID,
              actorLeaf["deviceId"]?.uuid == request.actorDeviceID, actorLeaf["leafOrigin"]?.text == "genesis",
              actorLeaf["joinKeyPackageRef"] == nil else { throw refuse("actorLeaf must be the signing device's genesis leaf") }
        let provenance = ChatValue.object([
            "invitationTransitionId": .uuid(transitionID), "invitedByDid": .text(request.actorDID),
            "invitedByDeviceId": .uuid(request.actorDeviceID!),
        ])
        var creatorSeen = false
        var roster: [ChatParticipant] = []
        for item in manifest["participants"]?.array ?? [] {
            guard let did = item["userDid"]?.text, let role = item["role"]?.text, let status = item["status"]?.text else {
                throw refuse("incomplete participant")
            }
            if did == request.actorDID {
                guard role == "admin", status == "active", item["invitationProvenance"] == nil else {
                    throw refuse("the creator is an active admin without provenance")
                }
                creatorSeen = true
                roster.append(ChatParticipant(did: did, role: role, status: status, provenance: nil))
            } else {
                guard status == "pending", role == (kind == "direct" ? "admin" : "member"),
                      item["invitationProvenance"] == provenance else {
                    throw refuse("an invitee is pending, \(kind == "direct" ? "admin" : "member"), with this creation's provenance")
                }
                roster.append(ChatParticipant(did: did, role: role, status: status, provenance: ChatJSON.render(provenance)))
            }
        }
        guard creatorSeen else { throw refuse("the creator must be a participant") }
        if kind == "direct", roster.count != 2 { throw refuse("a direct conversation is the creator and one invitee") }
        return roster
    }
}

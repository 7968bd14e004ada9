import ATProto
import Basics
import ChatProtocol
import Foundation
import MLS
import Primitives

/// One device speaking the chat contract (CHAT.md): it enrolls with KeyPackages, creates and
/// accepts conversations, adds devices by fulfilling their recovery requests, joins from Welcomes,
/// sends and reads signed entries, and follows the event stream. Every mutation is a signed body
/// (`SignedRequest.sign`); every entry it reads is verified against the signing leaf's key before
/// it is used. Not thread-safe: one caller at a time.
public final class ChatClient {
    public let device: ChatDeviceKey
    public let api: ChatAPI
    public let suite: CipherSuite
    /// The authentication generation the service gave this device (1 once enrolled).
    public private(set) var authGeneration: UInt64 = 0
    /// KeyPackages uploaded and not yet used, by ref.
    var keyPackages: [[UInt8]: KeyPackageBundle] = [:]
    /// The conversations this device holds a leaf in.
    public internal(set) var conversations: [ChatUUID: ChatMembership] = [:]

    /// What the device keeps of a conversation it belongs to.
    public struct ChatMembership: Sendable {
        public var group: Group
        public var kind: String
        /// The entries read so far.
        public var lastSeq: UInt64
        /// The seq from which this device may read (its interval's start).
        public var joinedAt: UInt64
        /// The signed metadata plaintext, re-encrypted on every epoch change, and its version, origin and author proof.
        var metadata: [UInt8]
        var metadataVersion: UInt64
        var metadataOrigin: ChatUUID
        var authorProof: ChatValue
        public var title: String
        /// Messages read from the log and not yet handed out by `read`.
        var unread: [Message] = []
    }

    /// A decrypted application message.
    public struct Message: Sendable, Equatable {
        public let seq: UInt64
        public let senderDID: String
        public let senderDevice: ChatUUID
        public let text: String
    }

    public init(device: ChatDeviceKey, api: ChatAPI, suite: CipherSuite = .mls256XWingChaCha20Poly1305SHA256Ed25519) {
        self.device = device
        self.api = api
        self.suite = suite
    }

    // MARK: Signing

    /// The identity fields every signed body carries, with the kind's domain and `$type`.
    public func body(_ kind: SignedMutationKind, _ fields: [String: ChatValue]) -> ChatValue {
        var members = fields
        members["signatureDomain"] = .text(kind.domain)
        members["actorDid"] = .text(device.did.rawValue)
        if kind == .deviceEnrollment {
            members["deviceId"] = .uuid(device.deviceID)
            members["expectedAuthGeneration"] = .integer(0)
        } else {
            members["actorDeviceId"] = .uuid(device.deviceID)
            members["authGeneration"] = .integer(authGeneration)
        }
        members["keyId"] = .text(device.keyID)
        members["signedAt"] = .text(CanonicalTimestamp(Date()).description)
        if kind != .applicationSend && kind != .typing && members["idempotencyKey"] == nil { members["idempotencyKey"] = .uuid(.random()) }
        return .tagged(kind.rawValue, members)
    }

    /// Signs `fields` as a `kind` body and calls `method` with it.
    @discardableResult
    public func signed(_ method: String, _ kind: SignedMutationKind, _ fields: [String: ChatValue]) throws -> ChatValue {
        let request = SignedRequest.sign(body(kind, fields), kind: kind, key: device.key)
        api.capture?.signed(request, publicKey: device.publicKey)
        return try api.signed(method, request)
    }

    /// Queries name the calling device.
    public func query(_ method: String, _ parameters: [(String, String)] = []) throws -> ChatValue {
        try api.query(method, [("actorDeviceId", device.deviceID.description)] + parameters)
    }

    // MARK: Devices

    /// `count` fresh KeyPackages for this device: credential `did#deviceId`, the device key, a
    /// lifetime the contract accepts (now − 1 h to now + 30 days), ordered by ref.
    func makeKeyPackages(_ count: Int) throws -> [ChatValue] {
        let now = UInt64(Date().timeIntervalSince1970)
        var artifacts: [(ref: [UInt8], value: ChatValue)] = []
        for _ in 0..<count {
            let bundle = try KeyPackageBundle.generate(suite: suite, credential: device.credential, signingKey: device.signingKey,
                                                       lifetime: Lifetime(notBefore: now - 3600, notAfter: now + 2_592_000))
            let wrapper = MLSMessage(body: .keyPackage(bundle.keyPackage)).encoded()
            keyPackages[bundle.ref] = bundle
            artifacts.append((bundle.ref, .object([
                "framing": .text("mlsMessage"), "contentType": .text("keyPackage"), "bytes": .bytes(wrapper),
                "sha256": .bytes(HashAlgorithm.sha256.hash(wrapper)), "keyPackageRef": .bytes(bundle.ref),
            ])))
        }
        return artifacts.sorted { $0.ref.lexicographicallyPrecedes($1.ref) }.map(\.value)
    }

    static let capability = ChatValue.object([
        "protocolVersion": .text("1"), "mlsVersion": .text("1.0"), "cipherSuite": .text("MLS_256_XWING_CHACHA20POLY1305_SHA256_Ed25519"),
        "credentialType": .text("basic"), "addByValue": .text("supported"), "updatePath": .text("supported"),
        "removeByValue": .text("supported"), "ratchetTreeGroupInfo": .text("supported"),
        "externalPubGroupInfo": .text("presentButExternalCommitsForbidden"), "applicationFrameProfile": .text("dagCborApplication1"),
        "controlProfile": .text("publicGroup1"), "attachmentProfile": .text("aes256GcmBlob1"),
        "metadataProfile": .text("exporterAes256Gcm1"), "typingProfile": .text("signedClearEphemeral1"),
    ])

    /// Enrolls this device with `packages` KeyPackages; returns its `#deviceView`.
    @discardableResult
    public func enroll(name: String = "catbird-mls", packages: Int = 4) throws -> ChatValue {
        let output = try signed("enrollDevice", .deviceEnrollment, [
            "deviceName": .text(name), "signaturePublicKey": .bytes(device.publicKey), "capability": Self.capability,
            "keyPackages": .array(try makeKeyPackages(packages)),
        ])
        authGeneration = output["device"]?["authGeneration"]?.integer ?? 1
        return output["device"] ?? .object([:])
    }

    /// Uploads `count` more KeyPackages.
    @discardableResult
    public func replenish(_ count: Int) throws -> ChatValue {
        try signed("replenishKeyPackages", .keyPackageReplenishment, [
            "signaturePublicKey": .bytes(device.publicKey), "keyPackages": .array(try makeKeyPackages(count)),
        ])["device"] ?? .object([:])
    }

    /// Revokes one of this account's devices (this one included) at its current generation.
    @discardableResult
    public func revoke(_ target: ChatUUID, generation: UInt64) throws -> ChatValue {
        try signed("revokeDevice", .deviceRevocation, ["targetDeviceId": .uuid(target), "targetAuthGeneration": .integer(generation)])
    }

    /// Adopts the generation the service reports (after `getOwnDevices`, for a device key loaded from disk).
    public func resume(authGeneration: UInt64) { self.authGeneration = authGeneration }

    // MARK: Conversations

    /// A conversation's current `#conversationState`.
    public func state(_ conversation: ChatUUID) throws -> ChatValue {
        guard let state = try query("getConversationState", [("conversationId", conversation.description)])["state"] else {
            throw MLSClientError.invalidServerData("no state")
        }
        return state
    }

    public func coordinates(_ conversation: ChatUUID) throws -> ConversationCoordinates {
        guard let coordinates = ConversationCoordinates(try state(conversation)["coordinates"]) else {
            throw MLSClientError.invalidServerData("no coordinates")
        }
        return coordinates
    }

    /// Creates a conversation holding this device's leaf and inviting `invitees` (a group, or with
    /// `direct` the one other participant).
    @discardableResult
    public func create(inviting invitees: [String], direct: Bool = false, title: String = "") throws -> (id: ChatUUID, result: ChatValue) {
        let creation = try prepareCreation(inviting: invitees, direct: direct, title: title)
        let id = creation.id, group = creation.group, transition = creation.transition
        let plaintext = creation.plaintext, authorProof = creation.authorProof
        api.capture?.signed(creation.request, publicKey: device.publicKey)
        let result = try api.signed("createConversation", creation.request)["result"] ?? .object([:])
        if result.type == ChatSchema.typePrefix + "conversationCreatedResult" {
            conversations[id] = ChatMembership(group: group, kind: direct ? "direct" : "group", lastSeq: 1, joinedAt: 1,
                                               metadata: plaintext, metadataVersion: 1, metadataOrigin: transition,
                                               authorProof: authorProof, title: title)
            return (id, result)
        }
        return (result["conversationId"]?.uuid ?? id, result)
    }

    /// A signed createConversation request inviting `invitees`, to send as it is (a test's flood):
    /// the device keeps nothing of the group it makes.
    public func creationRequest(inviting invitees: [String], direct: Bool = false, title: String = "") throws -> SignedRequest {
        try prepareCreation(inviting: invitees, direct: direct, title: title).request
    }

    private struct Creation {
        let id: ChatUUID
        let transition: ChatUUID
        let group: Group
        let plaintext: [UInt8]
        let authorProof: ChatValue
        let request: SignedRequest
    }

    /// The epoch-0 group with this device's leaf, its metadata, and the signed creation body.
    private func prepareCreation(inviting invitees: [String], direct: Bool, title: String) throws -> Creation {
        let id = ChatUUID.random(), transition = ChatUUID.random()
        let now = UInt64(Date().timeIntervalSince1970)
        let group = try Group.create(suite: suite, credential: device.credential, signingKey: device.signingKey,
                                     lifetime: Lifetime(notBefore: now - 3600, notAfter: now + 2_592_000))
        let groupInfo = try group.makeGroupInfo()
        let next = ConversationCoordinates(conversationID: id, generation: 0, stateVersion: 0, groupID: group.groupID, epoch: 0,
                                           groupContextHash: HashAlgorithm.sha256.hash(group.groupContext.encoded()),
                                           confirmationTag: groupInfo.confirmationTag, lifecycle: .active)
        let provenance = ChatValue.object(["invitationTransitionId": .uuid(transition), "invitedByDid": .text(device.did.rawValue),
                                           "invitedByDeviceId": .uuid(device.deviceID)])
        var participants = [(device.did.rawValue, ChatValue.object(["userDid": .text(device.did.rawValue), "role": .text("admin"),
                                                                     "status": .text("active")]))]
        for did in invitees {
            participants.append((did, .object(["userDid": .text(did), "role": .text(direct ? "admin" : "member"),
                                               "status": .text("pending"), "invitationProvenance": provenance])))
        }
        participants.sort { Array($0.0.utf8).lexicographicallyPrecedes(Array($1.0.utf8)) }
        let authorProof = ChatValue.object([
            "authorDid": .text(device.did.rawValue), "authorDeviceId": .uuid(device.deviceID), "authorKeyId": .text(device.keyID),
            "signaturePublicKey": .bytes(device.publicKey), "authGenerationAtOrigin": .integer(authGeneration),
            "originTransitionId": .uuid(transition), "originSeq": .integer(1), "roleAtOrigin": .text("admin"),
            "deviceStatusAtOrigin": .text("active"),
        ])
        let plaintext = ChatMetadata.plaintext(title: title, version: 1, origin: transition, device: device)
        let snapshot = try ChatMetadata.seal(plaintext, version: 1, origin: transition, authorProof: authorProof, coordinates: next, group: group)
        let groupInfoBytes = MLSMessage(body: .groupInfo(groupInfo)).encoded()
        let request = SignedRequest.sign(body(.creation, [
            "conversationId": .uuid(id), "conversationKind": .text(direct ? "direct" : "group"), "transitionId": .uuid(transition),
            "absence": .bool(true), "next": next.value,
            "manifest": .object(["participants": .array(participants.map(\.1)),
                                 "actorLeaf": .object(["userDid": .text(device.did.rawValue), "deviceId": .uuid(device.deviceID),
                                                       "leafOrigin": .text("genesis")])]),
            "genesisGroupInfo": .object(["framing": .text("mlsMessage"), "contentType": .text("groupInfo"), "bytes": .bytes(groupInfoBytes),
                                         "sha256": .bytes(HashAlgorithm.sha256.hash(groupInfoBytes))]),
            "metadataSnapshot": snapshot,
        ]), kind: .creation, key: device.key)
        return Creation(id: id, transition: transition, group: group, plaintext: plaintext, authorProof: authorProof, request: request)
    }

    /// Accepts an invitation: the service reserves one of this device's KeyPackages for an add-kind
    /// recovery that a current member then fulfils. Returns the `#leafRecoveryView`.
    @discardableResult
    public func accept(_ conversation: ChatUUID) throws -> ChatValue {
        let state = try self.state(conversation)
        guard let prior = ConversationCoordinates(state["coordinates"]),
              let me = state["participants"]?.array?.first(where: { $0["userDid"]?.text == device.did.rawValue }),
              let provenance = me["invitationProvenance"] else { throw MLSClientError.notAMember(conversation.description) }
        var next = prior
        next.stateVersion += 1
        let output = try signed("acceptConversation", .participantAcceptance, [
            "transitionId": .uuid(.random()), "recoveryRequestId": .uuid(.random()), "prior": prior.value, "next": next.value,
            "invitationProvenance": provenance,
        ])
        return output["recovery"] ?? .object([:])
    }

    /// Asks for a leaf in a conversation this account takes part in (a second device of a member).
    @discardableResult
    public func requestLeaf(_ conversation: ChatUUID) throws -> ChatValue {
        try signed("requestLeafRecovery", .leafRecoveryRequest, [
            "recoveryRequestId": .uuid(.random()), "prior": try coordinates(conversation).value, "recoveryKind": .text("add"),
        ])["recovery"] ?? .object([:])
    }

    /// Fulfils another device's open recovery request (a `#leafRecoveryView`): an Add of its reserved
    /// KeyPackage, committed with the contract's AAD, and one Welcome for it. Returns the output.
    @discardableResult
    public func fulfil(_ recovery: ChatValue) throws -> ChatValue {
        guard let conversation = recovery["conversationId"]?.uuid, let requestID = recovery["recoveryRequestId"]?.uuid,
              let wrapper = recovery["reservation"]?["keyPackage"]?["bytes"]?.bytes,
              let ref = recovery["reservation"]?["keyPackageRef"]?.bytes,
              let did = recovery["requesterDid"]?.text, let requester = recovery["requesterDeviceId"]?.uuid else {
            throw MLSClientError.invalidServerData("incomplete recovery request")
        }
        try sync(conversation)
        guard var membership = conversations[conversation] else { throw MLSClientError.notAMember(conversation.description) }
        let prior = try coordinates(conversation)
        guard case .keyPackage(let keyPackage) = try MLSMessage(decoding: wrapper).body else {
            throw MLSClientError.invalidServerData("the reserved KeyPackage is not one")
        }
        let transition = ChatUUID.random()
        let aad = MLSAuthenticatedData.commitAAD(transitionID: transition, prior: prior)
        let output = try membership.group.commit(proposals: [.add(keyPackage)], includePending: false, includePath: true,
                                                 authenticatedData: MLSAuthenticatedData.bytes(domain: MLSAuthenticatedData.commitDomain, aad: aad))
        let next = nextCoordinates(prior, group: output.group, tag: output.groupInfo.confirmationTag)
        guard let welcome = output.welcome?.encoded() else { throw MLSClientError.invalidServerData("no Welcome") }
        let commit = output.commit.encoded()
        let snapshot = try ChatMetadata.seal(membership.metadata, version: membership.metadataVersion, origin: membership.metadataOrigin,
                                             authorProof: membership.authorProof, coordinates: next, group: output.group)
        let result = try signed("submitTransition", .leafRecoveryFulfillment, [
            "recoveryRequestId": .uuid(requestID), "transitionId": .uuid(transition), "prior": prior.value, "next": next.value, "aad": aad,
            "manifest": .object([
                "participantChanges": .array([]),
                "leafChanges": .array([.tagged("addLeafByRecovery", ["userDid": .text(did), "deviceId": .uuid(requester),
                                                                     "recoveryRequestId": .uuid(requestID), "keyPackageRef": .bytes(ref)])]),
                "welcomeBundle": .object([
                    "welcomeId": .uuid(.random()), "framing": .text("mlsMessage"), "contentType": .text("welcome"),
                    "opaqueWelcome": .bytes(welcome), "sha256": .bytes(HashAlgorithm.sha256.hash(welcome)),
                    "deliveries": .array([.object(["recipientDid": .text(did), "recipientDeviceId": .uuid(requester),
                                                   "provenance": .object(["recoveryRequestId": .uuid(requestID), "keyPackageRef": .bytes(ref)])])]),
                ]),
                "leafRecoveryRequestId": .uuid(requestID),
            ]),
            "commit": Self.commitArtifact(commit), "metadataSnapshot": snapshot,
        ])
        membership.group = output.group
        membership.lastSeq = result["entry"]?["seq"]?.integer ?? membership.lastSeq
        conversations[conversation] = membership
        return result
    }

    /// A commit with no membership change (the committer's update path: new keys for the group).
    @discardableResult
    public func rotate(_ conversation: ChatUUID) throws -> ChatValue {
        try sync(conversation)
        guard var membership = conversations[conversation] else { throw MLSClientError.notAMember(conversation.description) }
        let prior = try coordinates(conversation)
        let transition = ChatUUID.random()
        let aad = MLSAuthenticatedData.commitAAD(transitionID: transition, prior: prior)
        let output = try membership.group.commit(includePending: false, includePath: true,
                                                 authenticatedData: MLSAuthenticatedData.bytes(domain: MLSAuthenticatedData.commitDomain, aad: aad))
        let next = nextCoordinates(prior, group: output.group, tag: output.groupInfo.confirmationTag)
        let snapshot = try ChatMetadata.seal(membership.metadata, version: membership.metadataVersion, origin: membership.metadataOrigin,
                                             authorProof: membership.authorProof, coordinates: next, group: output.group)
        let result = try signed("submitTransition", .commitTransition, [
            "transitionId": .uuid(transition), "prior": prior.value, "next": next.value, "aad": aad,
            "manifest": .object(["participantChanges": .array([]), "leafChanges": .array([])]),
            "commit": Self.commitArtifact(output.commit.encoded()), "metadataSnapshot": snapshot,
        ])
        membership.group = output.group
        membership.lastSeq = result["entry"]?["seq"]?.integer ?? membership.lastSeq
        conversations[conversation] = membership
        return result
    }

    public static func commitArtifact(_ bytes: [UInt8]) -> ChatValue {
        .object(["framing": .text("mlsMessage"), "contentType": .text("publicMessageCommit"), "bytes": .bytes(bytes),
                 "sha256": .bytes(HashAlgorithm.sha256.hash(bytes))])
    }

    public func nextCoordinates(_ prior: ConversationCoordinates, group: Group, tag: [UInt8]) -> ConversationCoordinates {
        var next = prior
        next.stateVersion += 1
        next.epoch = group.epoch
        next.groupContextHash = HashAlgorithm.sha256.hash(group.groupContext.encoded())
        next.confirmationTag = tag
        return next
    }

    // MARK: Welcomes

    /// Joins from a `#welcomeView` addressed to this device and acknowledges it.
    @discardableResult
    public func join(_ welcome: ChatValue) throws -> ChatUUID {
        guard let conversation = welcome["conversationId"]?.uuid, let bytes = welcome["opaqueWelcome"]?.bytes,
              let ref = welcome["provenance"]?["keyPackageRef"]?.bytes, let seq = welcome["transitionSeq"]?.integer,
              let id = welcome["welcomeId"]?.uuid, let coordinates = welcome["coordinates"] else {
            throw MLSClientError.invalidServerData("incomplete Welcome")
        }
        guard let bundle = keyPackages[ref] else { throw MLSClientError.noMatchingKeyPackage }
        let group = try Group.join(welcome: try MLSMessage(decoding: bytes), keyPackage: bundle)
        keyPackages[ref] = nil
        let state = try self.state(conversation)
        guard let snapshot = state["metadataSnapshot"] else { throw MLSClientError.invalidServerData("no metadata") }
        let opened = try? ChatMetadata.open(snapshot, group: group)
        conversations[conversation] = ChatMembership(
            group: group, kind: state["conversationKind"]?.text ?? "group", lastSeq: seq, joinedAt: seq,
            metadata: opened?.plaintext ?? [], metadataVersion: snapshot["metadataVersion"]?.integer ?? 1,
            metadataOrigin: snapshot["originTransitionId"]?.uuid ?? conversation, authorProof: snapshot["authorProof"] ?? .object([:]),
            title: opened?.title ?? "")
        try signed("acknowledgeWelcome", .welcomeAcknowledgement, [
            "welcomeId": .uuid(id), "transitionSeq": .integer(seq), "coordinates": coordinates,
        ])
        return conversation
    }

    // MARK: Messages

    /// Sends `text` to a conversation this device holds a leaf in; returns the stored entry.
    @discardableResult
    public func send(_ conversation: ChatUUID, text: String) throws -> ChatValue {
        try sync(conversation)
        let request = try seal(text, in: conversation, at: try coordinates(conversation))
        api.capture?.signed(request, publicKey: device.publicKey)
        let entry = try api.signed("sendMessage", request)["entry"] ?? .object([:])
        if let seq = entry["seq"]?.integer, var membership = conversations[conversation] {
            membership.lastSeq = max(membership.lastSeq, seq)
            conversations[conversation] = membership
        }
        return entry
    }

    /// The signed sendMessage request of `text` at `prior`, not sent: the message is encrypted (its
    /// ratchet generation spent) with the contract's frame and AAD.
    public func seal(_ text: String, in conversation: ChatUUID, at prior: ConversationCoordinates) throws -> SignedRequest {
        guard var membership = conversations[conversation] else { throw MLSClientError.notAMember(conversation.description) }
        let messageID = ChatUUID.random()
        let aad = MLSAuthenticatedData.applicationAAD(messageID: messageID, prior: prior)
        let frame = ChatValue.object([
            "protocol": .text("blue.catbird.chat.application"), "version": .integer(1), "messageId": .bytes(messageID.bytes),
            "context": prior.aadPriorContext, "body": .tagged("messageFrameVariant", ["message": .object(["text": .text(text)])]),
        ])
        let message = try membership.group.encrypt(DAGCBOR.encode(frame.dagCBOR(.signing)),
                                                   authenticatedData: MLSAuthenticatedData.bytes(domain: MLSAuthenticatedData.applicationDomain, aad: aad))
        conversations[conversation] = membership
        let bytes = message.encoded()
        return SignedRequest.sign(body(.applicationSend, [
            "messageId": .uuid(messageID), "prior": prior.value, "aad": aad,
            "applicationMessage": .object(["framing": .text("mlsMessage"), "contentType": .text("privateMessageApplication"),
                                           "bytes": .bytes(bytes), "sha256": .bytes(HashAlgorithm.sha256.hash(bytes))]),
            "blobBindings": .array([]),
        ]), kind: .applicationSend, key: device.key)
    }

    // MARK: Typing

    /// Publishes a typing indicator at `coordinates` (the conversation's current ones, read first
    /// unless given); returns the service's `#typingEvent` (which lasts 8 s).
    @discardableResult
    public func publishTyping(_ conversation: ChatUUID, at coordinates: ConversationCoordinates? = nil,
                              isTyping: Bool = true) throws -> ChatValue {
        try signed("publishTyping", .typing, [
            "typingId": .uuid(.random()), "coordinates": try (coordinates ?? self.coordinates(conversation)).value,
            "isTyping": .bool(isTyping),
        ])["typing"] ?? .object([:])
    }

    /// The messages of other devices received since the last call, reading the log first.
    public func read(_ conversation: ChatUUID) throws -> [Message] {
        try sync(conversation)
        defer { conversations[conversation]?.unread = [] }
        return conversations[conversation]?.unread ?? []
    }

    /// Reads the entries after the last one read: every entry's signature is verified against its
    /// signer's leaf key (which is the device's key) before use; commits are processed, messages
    /// decrypted and kept for `read`.
    public func sync(_ conversation: ChatUUID) throws {
        guard var membership = conversations[conversation] else { throw MLSClientError.notAMember(conversation.description) }
        while true {
            let page = try query("getEntries", [("conversationId", conversation.description), ("afterSeq", String(membership.lastSeq)),
                                                 ("limit", "100")])
            for entry in page["entries"]?.array ?? [] {
                if let message = try apply(entry, to: &membership) { membership.unread.append(message) }
                membership.lastSeq = entry["seq"]?.integer ?? membership.lastSeq
            }
            guard page["hasMore"]?.bool == true else { break }
        }
        conversations[conversation] = membership
    }

    /// Verifies one entry's signature and applies it.
    func apply(_ entry: ChatValue, to membership: inout ChatMembership) throws -> Message? {
        guard let wrapper = entry["signedRequest"], let seq = entry["seq"]?.integer else {
            throw MLSClientError.invalidServerData("incomplete entry")
        }
        let request = try SignedRequest(wrapper: wrapper)
        let fromMe = request.actorDID == device.did.rawValue && request.actorDeviceID == device.deviceID
        // The signer's key: its leaf's (a member) or, for its own entries, this device's.
        let identity = Array("\(request.actorDID)#\(request.actorDeviceID?.description ?? "")".utf8)
        var key = fromMe ? device.publicKey : membership.group.members.first { $0.credential == .basic(identity: identity) }?.signatureKey
        if key == nil, let wrapper = entry["recovery"]?["reservation"]?["keyPackage"]?["bytes"]?.bytes,
           case .keyPackage(let package)? = try? MLSMessage(decoding: wrapper).body, package.leafNode.credential == .basic(identity: identity) {
            // An acceptance is signed by a device without a leaf yet: its key is the one its reserved
            // KeyPackage's leaf signs with (a device's requests and leaves share one key).
            key = package.leafNode.signatureKey
        }
        guard let key else {
            if seq <= membership.joinedAt { return nil }
            throw MLSClientError.invalidServerData("entry \(seq) is signed by a device without a leaf")
        }
        do { _ = try request.verified(publicKey: key) } catch {
            throw MLSClientError.invalidServerData("entry \(seq): the signature does not verify")
        }
        guard !fromMe, seq > membership.joinedAt else { return nil }
        switch request.kind {
        case .commitTransition, .leafRecoveryFulfillment:
            guard let bytes = request.body["commit"]?["bytes"]?.bytes else { return nil }
            _ = try membership.group.process(try MLSMessage(decoding: bytes))
            return nil
        case .applicationSend:
            guard let bytes = request.body["applicationMessage"]?["bytes"]?.bytes else { return nil }
            let (plaintext, _) = try membership.group.decrypt(try MLSMessage(decoding: bytes))
            let frame = try DAGCBOR.decode(plaintext)
            guard case .text(let text)? = frame["body"]?["message"]?["text"] else { return nil }
            return Message(seq: seq, senderDID: request.actorDID, senderDevice: request.actorDeviceID!, text: text)
        default:
            return nil
        }
    }

    // MARK: Inventory and events

    /// The device's inventory, paged to the end: conversations, pending Welcomes, recovery inbox,
    /// and the session whose cursor a subscription starts from.
    public struct Inventory: Sendable {
        public var sessionID: String
        public var cursor: String
        public var conversations: [ChatValue]
        public var welcomes: [ChatValue]
        public var recoveries: [ChatValue]
    }

    public func inventory(pageSize: Int = 50) throws -> Inventory {
        var page = try query("getConversations", [("limit", String(pageSize))])
        guard let session = page["inventorySessionId"]?.text, let cursor = page["snapshotEventCursor"]?.text else {
            throw MLSClientError.invalidServerData("no inventory session")
        }
        var inventory = Inventory(sessionID: session, cursor: cursor, conversations: page["items"]?.array ?? [], welcomes: [], recoveries: [])
        while let next = page["nextPageCursor"]?.text {
            page = try query("getConversations", [("limit", String(pageSize)), ("pageCursor", next)])
            inventory.conversations += page["items"]?.array ?? []
        }
        for (method, keyPath) in [("getPendingWelcomes", \Inventory.welcomes), ("getLeafRecoveryInbox", \Inventory.recoveries)] {
            var cursor: String?
            repeat {
                var parameters = [("inventorySessionId", session), ("limit", String(pageSize))]
                if let cursor { parameters.append(("pageCursor", cursor)) }
                let page = try query(method, parameters)
                inventory[keyPath: keyPath] += page["items"]?.array ?? []
                cursor = page["nextPageCursor"]?.text
            } while cursor != nil
        }
        return inventory
    }

    /// A ticket for the stream from the inventory's snapshot.
    public func ticket(_ inventory: Inventory) throws -> String {
        let output = try api.procedure("getSubscriptionTicket", .object([
            "actorDeviceId": .text(device.deviceID.description), "inventorySessionId": .text(inventory.sessionID),
            "eventCursor": .text(inventory.cursor),
        ]))
        guard let ticket = output["ticket"]?.text else { throw MLSClientError.invalidServerData("no ticket") }
        return ticket
    }

    /// The event stream from the inventory's snapshot.
    public func subscribe(_ inventory: Inventory, extraHeaders: [(String, String)] = []) throws -> ChatEventStream {
        try ChatEventStream(baseURL: api.client.configuration.baseURL, ticket: try ticket(inventory), cursor: inventory.cursor,
                            extraHeaders: extraHeaders, capture: api.capture)
    }
}

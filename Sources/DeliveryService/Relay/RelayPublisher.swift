import Basics
import DeliveryStore
import Foundation
import Lexicon
import MLS
import MQTT
import Primitives

/// What a PUBLISH on a Relay topic does (docs/mqtt.md, "Publishing"): the same checks, store and
/// order as the XRPC methods it stands for. Runs on the relay workers, one connection's publishes in
/// the order they arrived.
struct RelayPublisher: Sendable {
    let env: MethodEnvironment
    let rateLimits: RateLimits
    let metrics: ServiceMetrics?
    let pending: RelayPending

    /// KeyPackages in one `relay/k` PUBLISH, as publishKeyPackages takes.
    static let maxKeyPackagesPerPublish = PublishKeyPackages.maxBatch

    /// An MQTT publish's msgId: the hex SHA-256 of its MLSMessage bytes, so that a retransmission
    /// (DUP) of the same bytes is stored once (issue 19).
    static func messageID(_ bytes: [UInt8]) -> String { Hex.encode(HashAlgorithm.sha256.hash(bytes)) }

    /// An application message for `relay/g/{group_id}/m`, checked as sendMessage checks its header,
    /// ready for a batch; nil when the payload is something else (a commit, a proposal, garbage).
    static func applicationMessage(_ payload: [UInt8], convoID: String, sender: DID) -> NewMessage? {
        guard MLSInput.isPrivateMessage(payload), let message = try? MLSMessage(decoding: payload),
              case .privateMessage(let privateMessage) = message.body, privateMessage.contentType == .application else { return nil }
        let epoch = Int64(clamping: privateMessage.epoch)
        guard (try? SendMessage.checkHeader(payload, convoID: convoID, epoch: epoch)) != nil else { return nil }
        return NewMessage(convoID: convoID, msgID: messageID(payload), epoch: epoch, senderDID: sender, content: .ciphertext(payload))
    }

    // MARK: Application messages, in batches

    /// Application messages (each from `applicationMessage`) in publish order, in one transaction:
    /// sendMessage's rules (membership, current epoch, msgId dedup, dense seq), one verdict each.
    func publishApplicationMessages(_ messages: [NewMessage], identity: RelayIdentity) -> [RelayVerdict] {
        var verdicts = [RelayVerdict?](repeating: nil, count: messages.count)
        var batch: [BatchedMessage] = []
        var places: [Int] = []
        for (index, message) in messages.enumerated() {
            if let refusal = limited(identity, .send) {
                verdicts[index] = refusal
                continue
            }
            batch.append(BatchedMessage(message))
            places.append(index)
        }
        if !batch.isEmpty {
            for (place, outcome) in zip(places, env.store.appendMessages(batch)) {
                switch outcome.result {
                case .success: verdicts[place] = .accepted
                case .failure(let error): verdicts[place] = RelayVerdict(error)
                }
            }
        }
        return verdicts.map { $0 ?? .refused(.unspecifiedError, "InternalServerError: internal error") }
    }

    // MARK: Everything else

    func publish(_ message: ApplicationMessage, identity: RelayIdentity) -> RelayVerdict {
        guard let topic = RelayTopic(message.topic) else {
            return .refused(.topicNameInvalid, "InvalidRequest: not a Relay topic (relay/k/, relay/w/, relay/s/, relay/g/.../m or /i)")
        }
        do {
            switch topic {
            case .keyPackages(let clientID): return try publishKeyPackages(message.payload, clientID: clientID, identity: identity)
            case .welcome: return try holdWelcome(message.payload, identity: identity)
            case .groupMessages(let convoID): return try publishToGroup(message.payload, convoID: convoID, identity: identity)
            case .groupInfo(let convoID): return try publishGroupInfo(message.payload, convoID: convoID, identity: identity)
            case .user: return .notAuthorized("relay/u/ topics are kept by the service")
            case .sync(let clientID): return Self.checkSync(message.payload, clientID: clientID, identity: identity)
            }
        } catch {
            return RelayVerdict(error)
        }
    }

    /// Bytes of a sync nonce on `relay/s/{client_id}`.
    static let syncNonceBytes = 1...64

    /// `relay/s/{client_id}`: only the connection's own client_id, a nonce of 1–64 bytes. Accepted,
    /// the connection adds the barrier to its Session (docs/mqtt.md, "Sync"); nothing is stored.
    static func checkSync(_ payload: [UInt8], clientID: String, identity: RelayIdentity) -> RelayVerdict {
        guard clientID == identity.clientID else { return .notAuthorized("relay/s/\(clientID) belongs to another connection") }
        guard syncNonceBytes.contains(payload.count) else {
            return .payloadInvalid("relay/s carries a nonce of \(syncNonceBytes.lowerBound) to \(syncNonceBytes.upperBound) bytes")
        }
        return .accepted
    }

    /// 0x97 when the DID's bucket of `kind` is empty, else nil (a token taken).
    func limited(_ identity: RelayIdentity, _ kind: RateLimitClass) -> RelayVerdict? {
        guard case .limited(let retryAfter) = rateLimits.checkDID(identity.did.rawValue, class: kind) else { return nil }
        metrics?.recordRateLimited(scope: kind.rawValue)
        return .refused(.quotaExceeded, "RateLimitExceeded: too many requests, retry in \(retryAfter) s")
    }

    /// `relay/k/{client_id}`: the owner's KeyPackages (a CBOR array of KeyPackage MLSMessages), each
    /// validated as publishKeyPackages does (its credential the DID, or `did#device`), stored for that
    /// client, all or none.
    private func publishKeyPackages(_ payload: [UInt8], clientID: String, identity: RelayIdentity) throws -> RelayVerdict {
        let owner = clientID == identity.clientID ? identity.did.rawValue : try env.store.relayClientOwner(clientID)
        guard owner == identity.did.rawValue else {
            return .notAuthorized("relay/k/\(clientID) belongs to another client")
        }
        if let refusal = limited(identity, .keyPackages) { return refusal }
        let items: [[UInt8]]
        do {
            items = try CBORArray.decodeByteStrings(payload, maxCount: Self.maxKeyPackagesPerPublish, maxItemBytes: env.limits.maxKeyPackageBytes)
        } catch {
            return .payloadInvalid("relay/k carries a CBOR array of KeyPackage MLSMessages (\(error))")
        }
        guard !items.isEmpty else { return .payloadInvalid("relay/k carries at least one KeyPackage") }
        var packages: [NewKeyPackage] = []
        for (index, item) in items.enumerated() {
            guard let suite = Self.keyPackageSuite(item) else { return .payloadInvalid("item \(index) is not a KeyPackage") }
            do {
                packages.append(try PublishKeyPackage.validate(item, cipherSuite: CipherSuiteName.name(suite), expires: nil, lastResort: nil,
                                                               caller: identity.did, env: env))
            } catch {
                return .refused(.unspecifiedError, "\(error.name.rawValue): KeyPackage \(index): \(error.message)")
            }
        }
        try env.store.publishRelayKeyPackages(packages, clientID: clientID)
        return .accepted
    }

    static func keyPackageSuite(_ bytes: [UInt8]) -> UInt16? {
        if let message = try? MLSMessage(decoding: bytes) {
            guard case .keyPackage(let keyPackage) = message.body else { return nil }
            return keyPackage.cipherSuite
        }
        return (try? KeyPackage(decoding: bytes))?.cipherSuite
    }

    /// `relay/w/{client_id}`: a Welcome, held until the commit that adds the client's KeyPackage
    /// arrives on the group's `/m` from the same DID (`RelayPending`); part of an add, it counts
    /// against the DID's `RATE_LIMIT_MEMBERSHIP` as the commit does.
    private func holdWelcome(_ payload: [UInt8], identity: RelayIdentity) throws -> RelayVerdict {
        guard let message = try? MLSMessage(decoding: payload), case .welcome(let welcome) = message.body else {
            return .payloadInvalid("relay/w carries a Welcome MLSMessage")
        }
        if let refusal = limited(identity, .membership) { return refusal }
        pending.holdWelcome(payload, refs: welcome.secrets.map(\.newMember), from: identity.did)
        return .accepted
    }

    /// `relay/g/{group_id}/i`: a GroupInfo of the current epoch is stored as updateGroupInfo stores it
    /// (verified against the public state); one of the next epoch waits for its commit; an epoch-0
    /// GroupInfo of an unknown group creates it (createConvo's rules), a later one waits for the
    /// commit that leads to it.
    private func publishGroupInfo(_ payload: [UInt8], convoID: String, identity: RelayIdentity) throws -> RelayVerdict {
        guard let message = try? MLSMessage(decoding: payload), case .groupInfo(let groupInfo) = message.body else {
            return .payloadInvalid("relay/g/.../i carries a GroupInfo MLSMessage")
        }
        guard Hex.encode(groupInfo.groupContext.groupID) == convoID else {
            return .refused(.unspecifiedError, "InvalidGroupInfo: the GroupInfo is for another group than the topic's")
        }
        if let refusal = limited(identity, .membership) { return refusal }
        let epoch = Int64(clamping: groupInfo.groupContext.epoch)
        let held = RelayPending.HeldGroupInfo(convoID: convoID, epoch: epoch, bytes: payload, at: Date())
        guard let convo = try existingConvo(convoID) else {
            guard epoch == 0 else {
                pending.holdGroupInfo(held, from: identity.did)
                return .accepted
            }
            try create(convoID: convoID, groupInfo: payload, suite: groupInfo.groupContext.cipherSuite, commit: nil, identity: identity)
            return .accepted
        }
        guard try env.store.isMember(convoID: convoID, did: identity.did) else { return .notMember }
        if epoch == convo.epoch + 1 {
            pending.holdGroupInfo(held, from: identity.did)
            return .accepted
        }
        guard epoch == convo.epoch else { throw DeliveryStoreError.epochMismatch(current: convo.epoch) }
        let group: PublicGroup
        do { group = try PublicGroup(serialized: convo.publicState) } catch { throw XRPCError.internalError }
        do { try group.verify(groupInfo: groupInfo) } catch {
            throw XRPCError(400, .invalidGroupInfo, mlsFailureDescription(error))
        }
        try env.store.updateGroupInfo(convoID: convoID, epoch: convo.epoch, groupInfo: payload)
        return .accepted
    }

    /// `relay/g/{group_id}/m` for anything but an application message: commits (as commitGroupChange,
    /// or processExternalCommit for an external commit), a self-Remove proposal (as leaveConvo), or
    /// for an unknown group the initial commit of a held GroupInfo (as createConvo with its commit).
    private func publishToGroup(_ payload: [UInt8], convoID: String, identity: RelayIdentity) throws -> RelayVerdict {
        guard let message = try? MLSMessage(decoding: payload) else {
            return .payloadInvalid("relay/g/.../m carries PrivateMessage or PublicMessage MLSMessages")
        }
        let groupID: [UInt8]
        let epoch: UInt64
        let contentType: ContentType
        switch message.body {
        case .privateMessage(let sealed): (groupID, epoch, contentType) = (sealed.groupID, sealed.epoch, sealed.contentType)
        case .publicMessage(let plain): (groupID, epoch, contentType) = (plain.content.groupID, plain.content.epoch, plain.content.contentType)
        default: return .payloadInvalid("relay/g/.../m carries PrivateMessage or PublicMessage MLSMessages")
        }
        guard Hex.encode(groupID) == convoID else {
            return .refused(.unspecifiedError, "InvalidMessage: the message is for another group than the topic's")
        }
        switch contentType {
        case .application:
            if case .publicMessage = message.body {
                return .refused(.unspecifiedError, "InvalidMessage: application messages must be PrivateMessage")
            }
            guard let newMessage = Self.applicationMessage(payload, convoID: convoID, sender: identity.did) else {
                return .payloadInvalid("not an application PrivateMessage")
            }
            return publishApplicationMessages([newMessage], identity: identity)[0]
        case .proposal:
            if let refusal = limited(identity, .membership) { return refusal }
            _ = try LeaveConvo.leave(convoID: convoID, proposal: payload, caller: identity.did, env: env)
            return .accepted
        case .commit:
            if let refusal = limited(identity, .membership) { return refusal }
            return try commit(payload, message: message, convoID: convoID, epoch: Int64(clamping: epoch), identity: identity)
        }
    }

    private func commit(_ payload: [UInt8], message: MLSMessage, convoID: String, epoch: Int64, identity: RelayIdentity) throws -> RelayVerdict {
        let did = identity.did
        let msgID = Self.messageID(payload)
        guard let convo = try existingConvo(convoID) else {
            guard let held = pending.anyGroupInfo(from: did, convoID: convoID) else { return .notMember }
            guard let groupInfo = try? MLSMessage(decoding: held.bytes), case .groupInfo(let info) = groupInfo.body else {
                throw XRPCError.internalError
            }
            try create(convoID: convoID, groupInfo: held.bytes, suite: info.groupContext.cipherSuite, commit: payload, identity: identity)
            pending.dropGroupInfo(held, from: did)
            return .accepted
        }
        let heldGroupInfo = pending.groupInfo(from: did, convoID: convoID, epoch: epoch + 1)
        let welcome = pending.welcome(from: did, addressing: Self.addedRefs(message, suite: convo.cipherSuite))
        let pipeline = CommitPipeline(env: env)
        let request = CommitPipeline.Request(convoID: convoID, commit: payload, groupInfo: heldGroupInfo?.bytes,
                                             welcome: welcome?.bytes, caller: did)
        let isExternal = if case .publicMessage(let plain) = message.body, plain.content.sender == .newMemberCommit { true } else { false }
        do {
            var departures: [UInt32: DepartureReason] = [:]
            let validated: CommitPipeline.Validated
            if isExternal {
                // As processExternalCommit: a current member replacing its own leaf.
                guard try env.store.isMember(convoID: convoID, did: did) else {
                    throw XRPCError.forbidden(.unauthorized, "only a current member may rejoin by external commit")
                }
                validated = try pipeline.validate(request)
                guard validated.removedDIDs.allSatisfy({ $0 == did.rawValue }), validated.addedDIDs.isEmpty else {
                    throw XRPCError.forbidden(.unauthorized, "an external commit may only replace the caller's own leaf")
                }
            } else {
                let role = try CommitAuthorization.role(env, convoID: convoID, did: did)
                validated = MLSInput.isPrivateMessage(payload)
                    ? try SealedCommitPipeline(pipeline: pipeline).validate(request) : try pipeline.validate(request)
                try CommitAuthorization.checkRemovals(validated, callerDID: did.rawValue, isAdmin: role == .admin)
                departures = CommitAuthorization.departures(validated)
            }
            var application = pipeline.application(validated, request: request, departures: departures)
            application.msgID = msgID
            _ = try env.store.transaction { try $0.applyCommit(application) }
            metrics?.epochsAdvanced.increment()
        } catch {
            // A retransmission of a commit already stored is acknowledged, never stored twice.
            if let storeError = error as? DeliveryStoreError, storeError.isEpochRefusal,
               try env.store.hasMessage(convoID: convoID, msgID: msgID) {
                return .accepted
            }
            throw error
        }
        if let heldGroupInfo { pending.dropGroupInfo(heldGroupInfo, from: did) }
        if let welcome { pending.dropWelcome(welcome, from: did) }
        // What a removed member held for this conversation leads nowhere now.
        pending.dropGroupInfos(convoID: convoID, throughEpoch: epoch + 1)
        return .accepted
    }

    /// The conversation, or nil when there is none.
    private func existingConvo(_ convoID: String) throws -> ConvoState? {
        do {
            return try env.store.loadConvo(convoID)
        } catch {
            if case .convoNotFound = error { return nil }
            throw error
        }
    }

    /// The KeyPackageRefs a PublicMessage commit adds by value; nil for a sealed commit (encrypted).
    static func addedRefs(_ message: MLSMessage, suite: UInt16) -> Set<[UInt8]>? {
        guard case .publicMessage(let plain) = message.body, case .commit(let commit) = plain.content.content,
              let cipherSuite = CipherSuite(rawValue: suite) else { return nil }
        var refs: Set<[UInt8]> = []
        for item in commit.proposals {
            if case .proposal(.add(let keyPackage)) = item { refs.insert(keyPackage.reference(suite: cipherSuite)) }
        }
        return refs
    }

    /// createConvo for a group created over MQTT: the GroupInfo (epoch 0 alone, or with its initial
    /// commit), the held Welcome naming the other members, the handshake policy from the commit's form.
    private func create(convoID: String, groupInfo: [UInt8], suite: UInt16, commit: [UInt8]?, identity: RelayIdentity) throws {
        var welcome: RelayPending.HeldWelcome?
        var hashes: [KeyPackageHash]?
        let sealed = commit.map(MLSInput.isPrivateMessage) ?? false
        if let commit, !sealed, let message = try? MLSMessage(decoding: commit) {
            let refs = Self.addedRefs(message, suite: suite) ?? []
            if !refs.isEmpty { welcome = pending.welcome(from: identity.did, addressing: refs) }
        } else {
            welcome = pending.welcome(from: identity.did, addressing: nil)
        }
        if let welcome, commit == nil || sealed {
            // Without a readable commit, the Welcome names the members: createConvo's keyPackageHashes.
            let owners = try env.store.keyPackages(refs: welcome.refs)
            hashes = owners.map { KeyPackageHash(did: $0.ownerDID, hash: Hex.encode($0.ref)) }
        }
        let input = CreateConvoInput(groupId: convoID, cipherSuite: CipherSuiteName.name(suite), groupInfo: groupInfo, commit: commit,
                                     welcomeMessage: welcome?.bytes, keyPackageHashes: hashes, handshake: sealed ? "sealed" : nil)
        var creation = try CreateConvo.creation(input, caller: identity.did, env: env)
        // As every MQTT publish: the msgId is the SHA-256 of the bytes (No Local, retransmissions).
        creation.initialCommitMsgID = commit.map(Self.messageID)
        let created: Bool
        do {
            _ = try env.store.createConvo(creation)
            created = true
        } catch {
            guard case .convoAlreadyExists = error else { throw error }
            created = false
        }
        if !created {
            // A retransmission of the creating publish is acknowledged, never stored twice.
            let convo = try env.store.loadConvo(convoID)
            let same = if let commit {
                try env.store.hasMessage(convoID: convoID, msgID: Self.messageID(commit))
            } else {
                convo.creatorDID == identity.did.rawValue && convo.groupInfo == groupInfo
            }
            guard same else { throw DeliveryStoreError.convoAlreadyExists }
            return
        }
        if let welcome { pending.dropWelcome(welcome, from: identity.did) }
    }
}

extension DeliveryStoreError {
    /// The commit's epoch is no longer the conversation's (it lost the race, or came again).
    var isEpochRefusal: Bool {
        switch self {
        case .commitConflict, .epochMismatch: true
        default: false
        }
    }
}

import Basics
import Foundation
import Lexicon
import MLS
import MQTTClient

/// The conversation client over MQTT: the Relay protocol (docs/mqtt.md) instead of XRPC, on the
/// same local state (`MLSClientStore`) and MLS `Group`s as `MLSConversationClient`. Each operation
/// connects with this directory's Session (Clean Start = 0), first takes in what the Session holds
/// (Welcomes, group messages: applied and stored before they are acknowledged), then publishes, and
/// moves the local group to a new epoch only once the service accepted the commit (PUBACK 0x00).
public actor MLSRelayClient {
    public nonisolated let store: MLSClientStore
    public nonisolated let identity: MLSClientIdentity
    let configuration: MLSRelayConfiguration
    let signingKey: SignaturePrivateKey
    let suite: CipherSuite
    let progress: @Sendable (String) -> Void

    static let connectNSID = "blue.catbird.mls.mqttConnect"

    public init(store: MLSClientStore, identity: MLSClientIdentity, configuration: MLSRelayConfiguration,
                progress: @escaping @Sendable (String) -> Void = { _ in }) throws(MLSClientError) {
        self.store = store
        self.identity = identity
        self.configuration = configuration
        signingKey = try identity.signingKey()
        suite = try identity.suite
        self.progress = progress
    }

    public var did: String { identity.did }

    /// This directory's Relay client_id.
    public func clientID() throws(MLSClientError) -> String { try store.relayClientState().clientID }

    func mls<T>(_ body: () throws(GroupError) -> T) throws(MLSClientError) -> T {
        do { return try body() } catch { throw .mls(error) }
    }

    /// Connects the Session (a fresh token for every CONNECT) and subscribes to its Welcome topic.
    func open() async throws(MLSClientError) -> MLSRelayTransport {
        guard let tokens = try identity.tokenProvider(serviceDID: configuration.serviceDID) else {
            throw .invalidArgument("this identity cannot mint tokens")
        }
        let token: String
        do { token = try await tokens(Self.connectNSID) } catch { throw .invalidArgument("cannot mint a token: \(error)") }
        let clientID = try clientID()
        let transport = try MLSRelayTransport(configuration: configuration, did: did, clientID: clientID, token: token)
        try transport.subscribe("relay/w/\(clientID)")
        return transport
    }

    /// Runs `body` on a connected Session, after taking in what it holds; closes it after.
    func session<T>(_ body: (MLSRelayTransport) throws(MLSClientError) -> T) async throws(MLSClientError) -> T {
        let transport = try await open()
        defer { transport.close() }
        try takeIn(transport)
        return try body(transport)
    }

    // MARK: Taking in what the Session holds

    /// Applies everything the Session delivers until the service answers a sync (everything
    /// committed before it): Welcomes join their groups (and subscribe to them), group messages are
    /// applied to the stored group. Each is acknowledged once its effect is stored.
    func takeIn(_ transport: MLSRelayTransport) throws(MLSClientError) {
        try transport.sync { message throws(MLSClientError) in
            let levels = message.topic.split(separator: "/", omittingEmptySubsequences: false)
            if levels.count == 3, levels[1] == "w" {
                try welcomed(message.payload, transport: transport)
            } else if levels.count == 4, levels[1] == "g", levels[3] == "m" {
                try received(message.payload, convoId: String(levels[2]))
            }
            return true
        }
    }

    private func received(_ bytes: [UInt8], convoId: String) throws(MLSClientError) {
        guard store.hasGroup(convoId: convoId) else { return }
        var record = try store.loadRecord(convoId: convoId)
        guard record.active else { return }
        var group = try store.loadGroup(convoId: convoId)
        guard record.takeIn(digest: Hex.encode(group.cipherSuite.hash(bytes))) else { return }
        let entry = try IncomingMessage.apply(bytes, to: &group, seq: nil, sender: nil, createdAt: nil, label: "a message of \(convoId)")
        if !group.isActive { record.active = false }
        try store.saveGroup(group, convoId: convoId)
        try store.saveRecord(record)
        try store.appendTranscript(entry.map { [$0] } ?? [], convoId: convoId)
    }

    /// A Welcome on relay/w: joins the group it is for, if one of this directory's KeyPackages is
    /// addressed, and subscribes to its messages.
    private func welcomed(_ bytes: [UInt8], transport: MLSRelayTransport) throws(MLSClientError) {
        guard case .welcome(let welcome)? = try? MLSMessage(decoding: bytes).body else {
            throw .invalidServerData("relay/w delivered something that is not a Welcome")
        }
        guard let bundle = try store.keyPackage(for: welcome, signingKey: signingKey) else { return }
        // A sealed conversation's members frame commits as PrivateMessages; over MQTT the policy is
        // not published, so this member accepts both and sends PublicMessages.
        let group = try mls { () throws(GroupError) in try Group.join(welcome: welcome, keyPackage: bundle) }
        let convoId = Hex.encode(group.groupID)
        try transport.subscribe("relay/g/\(convoId)/m")
        try store.saveGroup(group, convoId: convoId)
        var record = ConvoRecord(convoId: convoId)
        record.shownEntries = try store.transcript(convoId: convoId).count
        try store.saveRecord(record)
        store.deleteKeyPackage(ref: bundle.ref)
        try store.appendTranscript([event(epoch: group.epoch, "joined")], convoId: convoId)
    }

    // MARK: Key packages

    /// Generates `count` KeyPackages and publishes them on relay/k/{client_id}, all or none.
    public func publishKeyPackages(count: Int, lifetimeDays: Int = 30) async throws(MLSClientError) -> Int {
        guard count > 0, count <= 100 else { throw .invalidArgument("count must be 1...100 over MQTT") }
        let now = UInt64(Date().timeIntervalSince1970)
        let lifetime = Lifetime(notBefore: now - 3600, notAfter: now + UInt64(lifetimeDays) * 86_400)
        var bundles: [KeyPackageBundle] = []
        for _ in 0..<count {
            let bundle = try mls { () throws(GroupError) in
                try KeyPackageBundle.generate(suite: suite, credential: identity.credential, signingKey: signingKey, lifetime: lifetime)
            }
            try store.saveKeyPackage(bundle)
            bundles.append(bundle)
        }
        let payload = CBORArray.encode(byteStrings: bundles.map { MLSMessage(body: .keyPackage($0.keyPackage)).encoded() })
        let clientID = try clientID()
        do {
            try await session { transport throws(MLSClientError) in try transport.publish("relay/k/\(clientID)", payload) }
        } catch {
            for bundle in bundles { store.deleteKeyPackage(ref: bundle.ref) }
            throw error
        }
        return count
    }

    struct FoundKeyPackage {
        var did: String
        var clientID: String
        var keyPackage: KeyPackage
    }

    /// One valid KeyPackage per DID, from the retained relay/k of one of its clients (found in the
    /// DID's relay/u directory), whose credential names that DID.
    func keyPackages(for dids: [String], transport: MLSRelayTransport) throws(MLSClientError) -> [FoundKeyPackage] {
        var found: [FoundKeyPackage] = []
        let now = UInt64(Date().timeIntervalSince1970)
        var missing: [String] = []
        for did in dids {
            var chosen: FoundKeyPackage?
            let clients = (try transport.retained("relay/u/\(did)"))
                .flatMap { try? CBORArray.decodeTextStrings($0, maxCount: 1000, maxItemBytes: 64) } ?? []
            for clientID in clients where chosen == nil {
                guard let bundle = try transport.retained("relay/k/\(clientID)"),
                      let items = try? CBORArray.decodeByteStrings(bundle, maxCount: 1000, maxItemBytes: 1 << 16) else { continue }
                for item in items {
                    guard let keyPackage = try? KeyPackage.decodePublished(item).keyPackage,
                          MLSConversationClient.did(of: keyPackage.leafNode.credential) == did,
                          (try? keyPackage.validate(suite: suite, now: now, maxLifetime: 400 * 86_400, skew: 300)) != nil else { continue }
                    chosen = FoundKeyPackage(did: did, clientID: clientID, keyPackage: keyPackage)
                    break
                }
            }
            if let chosen { found.append(chosen) } else { missing.append(did) }
        }
        guard missing.isEmpty else { throw .noKeyPackage(missing) }
        return found
    }

    // MARK: Creating and changing groups

    /// Creates a group in Relay's order: Welcomes on each invitee's relay/w, the GroupInfo on /i,
    /// a subscription to /m, the commit on /m (an epoch-0 GroupInfo alone when inviting nobody).
    /// Returns the conversation id.
    public func createConvo(name: String? = nil, inviting dids: [String] = [], sealed: Bool = false) async throws(MLSClientError) -> String {
        try await session { transport throws(MLSClientError) in
            let configuration = MLSConversationClient.configuration(handshake: sealed ? MLSConversationClient.sealedHandshake : nil)
            var group = try mls { () throws(GroupError) in
                try Group.create(suite: suite, credential: identity.credential, signingKey: signingKey, configuration: configuration)
            }
            let convoId = Hex.encode(group.groupID)
            if dids.isEmpty {
                let info = try mls { () throws(GroupError) in try group.makeGroupInfo() }
                try transport.subscribe("relay/g/\(convoId)/m")
                try transport.publish("relay/g/\(convoId)/i", MLSMessage(body: .groupInfo(info)).encoded())
            } else {
                let packages = try keyPackages(for: dids, transport: transport)
                // Without a path, so that the service can verify the commit against the one-member epoch 0.
                let output = try mls { () throws(GroupError) in try group.add(keyPackages: packages.map(\.keyPackage), includePath: false) }
                guard let welcome = output.welcome else { throw .invalidArgument("the commit added nobody") }
                for package in packages { try transport.publish("relay/w/\(package.clientID)", welcome.encoded()) }
                try transport.publish("relay/g/\(convoId)/i", MLSMessage(body: .groupInfo(output.groupInfo)).encoded())
                try transport.subscribe("relay/g/\(convoId)/m")
                progress("creating the conversation")
                try transport.publish("relay/g/\(convoId)/m", output.commit.encoded())
                group = output.group
            }
            try store.saveGroup(group, convoId: convoId)
            try store.saveRecord(ConvoRecord(convoId: convoId, name: name))
            try store.appendTranscript([event(epoch: group.epoch, "created the conversation" + (dids.isEmpty ? "" : " with \(dids.joined(separator: ", "))"))],
                                       convoId: convoId)
            return convoId
        }
    }

    /// Joins from a Welcome the Session holds (taken in as it arrives); the group's messages follow.
    public func join(convoId: String) async throws(MLSClientError) -> Group {
        try await session { _ throws(MLSClientError) in
            guard store.hasGroup(convoId: convoId) else {
                throw .invalidArgument("no Welcome for \(convoId) has arrived on this client's relay/w topic")
            }
            return try store.loadGroup(convoId: convoId)
        }
    }

    /// Adds `dids`: Welcomes first, then the commit, then the new epoch's GroupInfo (Relay §8.6).
    public func invite(convoId: String, dids: [String]) async throws(MLSClientError) -> UInt64 {
        guard !dids.isEmpty else { throw .invalidArgument("nobody to invite") }
        return try await commit(convoId, event: "added \(dids.joined(separator: ", "))") { group, transport throws(MLSClientError) in
            let present = Set(group.members.compactMap { MLSConversationClient.did(of: $0.credential) })
            let already = dids.filter(present.contains)
            guard already.isEmpty else { throw .invalidArgument("already a member: \(already.joined(separator: ", "))") }
            let packages = try keyPackages(for: dids, transport: transport)
            let output = try mls { () throws(GroupError) in try group.add(keyPackages: packages.map(\.keyPackage)) }
            guard let welcome = output.welcome else { throw .invalidArgument("the commit added nobody") }
            for package in packages { try transport.publish("relay/w/\(package.clientID)", welcome.encoded()) }
            return output
        }
    }

    /// Removes every leaf of `did`.
    public func remove(convoId: String, did target: String) async throws(MLSClientError) -> UInt64 {
        try await commit(convoId, event: "removed \(target)") { group, _ throws(MLSClientError) in
            let leaves = group.members.filter { MLSConversationClient.did(of: $0.credential) == target }.map(\.leafIndex)
            guard !leaves.isEmpty else { throw .invalidArgument("\(target) is not a member of \(convoId)") }
            return try mls { () throws(GroupError) in try group.remove(leaves: leaves) }
        }
    }

    /// A self-update commit.
    public func selfUpdate(convoId: String) async throws(MLSClientError) -> UInt64 {
        try await commit(convoId, event: "updated its keys") { group, _ throws(MLSClientError) in
            try mls { () throws(GroupError) in try group.update() }
        }
    }

    /// Makes a commit on the current group and publishes the new epoch's GroupInfo on /i, then the
    /// commit on /m; once accepted, adopts the new epoch. (Relay publishes the GroupInfo after the
    /// commit; before it, the service holds it and checks it with the commit, which a sealed
    /// PrivateMessage commit needs: docs/sealed-commits.md.) A commit that lost its epoch to another
    /// is made again once, after taking in the winner.
    func commit(_ convoId: String, event text: String,
                _ make: (Group, MLSRelayTransport) throws(MLSClientError) -> CommitOutput) async throws(MLSClientError) -> UInt64 {
        try await session { transport throws(MLSClientError) in
            for attempt in 0..<2 {
                guard try store.loadRecord(convoId: convoId).active else { throw .notAMember(convoId) }
                let output = try make(try store.loadGroup(convoId: convoId), transport)
                do throws(MLSClientError) {
                    try transport.publish("relay/g/\(convoId)/i", MLSMessage(body: .groupInfo(output.groupInfo)).encoded())
                    try transport.publish("relay/g/\(convoId)/m", output.commit.encoded())
                } catch .relay(let what) where attempt == 0 && Self.lostTheEpoch(what) {
                    progress("another commit won the epoch; catching up and retrying")
                    try takeIn(transport)
                    continue
                } catch .relay(let what) where Self.notAMember(what) {
                    throw .notAMember(convoId)
                }
                try store.saveGroup(output.group, convoId: convoId)
                try store.appendTranscript([event(epoch: output.group.epoch, text)], convoId: convoId)
                return output.group.epoch
            }
            throw .relay("the commit lost its epoch twice")
        }
    }

    static func lostTheEpoch(_ what: String) -> Bool { what.contains("CommitConflict") || what.contains("EpochMismatch") }
    static func notAMember(_ what: String) -> Bool { what.contains("NotMember") || what.contains("ConvoNotFound") }

    // MARK: Messages

    /// Encrypts `text` and publishes it on /m, after taking in what the Session holds.
    public func send(convoId: String, text: String) async throws(MLSClientError) {
        try await session { transport throws(MLSClientError) in
            for attempt in 0..<2 {
                guard try store.loadRecord(convoId: convoId).active else { throw .notAMember(convoId) }
                var group = try store.loadGroup(convoId: convoId)
                let message = try mls { () throws(GroupError) in try group.encrypt(Array(text.utf8)) }
                try store.saveGroup(group, convoId: convoId)
                do throws(MLSClientError) {
                    try transport.publish("relay/g/\(convoId)/m", message.encoded())
                } catch .relay(let what) where attempt == 0 && Self.lostTheEpoch(what) {
                    try takeIn(transport)
                    continue
                } catch .relay(let what) where Self.notAMember(what) {
                    throw .notAMember(convoId)
                }
                try store.appendTranscript([ChatEntry(kind: .message, seq: nil, epoch: Int64(clamping: group.epoch), sender: did,
                                                      text: text, own: true)], convoId: convoId)
                return
            }
        }
    }

    /// Takes in what the Session holds, then returns the transcript entries not shown before
    /// (other members' only).
    public func unread(convoId: String) async throws(MLSClientError) -> [ChatEntry] {
        try await session { _ throws(MLSClientError) in }
        guard store.hasGroup(convoId: convoId) || (try? store.loadRecord(convoId: convoId)) != nil else {
            throw .unknownConvo(convoId)
        }
        return try store.takeUnshown(convoId: convoId)
    }

    /// A self-Remove proposal on /m; another member's commit removes this member.
    public func leave(convoId: String) async throws(MLSClientError) {
        try await session { transport throws(MLSClientError) in
            var group = try store.loadGroup(convoId: convoId)
            let proposal = try mls { () throws(GroupError) in try group.proposeSelfRemove() }
            try transport.publish("relay/g/\(convoId)/m", proposal.encoded())
            var record = try store.loadRecord(convoId: convoId)
            record.active = false
            try store.saveRecord(record)
            try store.appendTranscript([event(epoch: group.epoch, "left")], convoId: convoId)
            store.deleteGroup(convoId: convoId)
            transport.unsubscribe(["relay/g/\(convoId)/m"])
        }
    }

    func event(epoch: UInt64, _ text: String) -> ChatEntry {
        ChatEntry(kind: .event, seq: nil, epoch: Int64(clamping: epoch), sender: identity.did, text: text, own: true)
    }
}

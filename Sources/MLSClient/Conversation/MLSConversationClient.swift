import Basics
import Foundation
import Lexicon
import MLS
import Primitives

/// Conversations on top of `MLSAPIClient` and the MLS `Group`: each operation builds the MLS
/// message, has the delivery service accept it, and only then moves the local group to the new
/// epoch and saves it. State lives in an `MLSClientStore` directory.
public actor MLSConversationClient {
    public nonisolated let api: MLSAPIClient
    public nonisolated let store: MLSClientStore
    public nonisolated let identity: MLSClientIdentity
    let signingKey: SignaturePrivateKey
    let suite: CipherSuite
    /// Called with a short line on long work (the CLI prints it to stderr).
    let progress: @Sendable (String) -> Void

    public init(api: MLSAPIClient, store: MLSClientStore, identity: MLSClientIdentity,
                progress: @escaping @Sendable (String) -> Void = { _ in }) throws(MLSClientError) {
        self.api = api
        self.store = store
        self.identity = identity
        signingKey = try identity.signingKey()
        suite = try identity.suite
        self.progress = progress
    }

    public var did: String { identity.did }
    var suiteName: String { suite.name }

    func call<T>(_ body: () async throws(MLSAPIError) -> T) async throws(MLSClientError) -> T {
        do { return try await body() } catch { throw .api(error) }
    }

    func mls<T>(_ body: () throws(GroupError) -> T) throws(MLSClientError) -> T {
        do { return try body() } catch { throw .mls(error) }
    }

    // MARK: Key packages

    /// Generates `count` KeyPackages valid for `lifetimeDays`, keeps their private keys, and
    /// publishes them in batches of 100. Packages the service refused are dropped locally.
    public func publishKeyPackages(count: Int, lifetimeDays: Int = 30) async throws(MLSClientError) -> PublishKeyPackagesOutput {
        guard count > 0, count <= 1000 else { throw .invalidArgument("count must be 1...1000") }
        let now = UInt64(Date().timeIntervalSince1970)
        // Lifetime starts an hour back so small clock differences do not make it "not yet valid".
        let lifetime = Lifetime(notBefore: now - 3600, notAfter: now + UInt64(lifetimeDays) * 86_400)
        var total = PublishKeyPackagesOutput(succeeded: 0, failed: 0, errors: nil)
        var offset = 0
        while offset < count {
            let size = min(100, count - offset)
            var bundles: [KeyPackageBundle] = []
            for _ in 0..<size {
                let bundle = try mls { () throws(GroupError) in
                    try KeyPackageBundle.generate(suite: suite, credential: identity.credential, signingKey: signingKey, lifetime: lifetime)
                }
                // Saved before upload: a lost response must not lose the private keys.
                try store.saveKeyPackage(bundle)
                bundles.append(bundle)
            }
            progress("publishing key packages \(offset + 1)–\(offset + size) of \(count)")
            let input = PublishKeyPackagesInput(keyPackages: bundles.map {
                .init(keyPackage: MLSMessage(body: .keyPackage($0.keyPackage)).encoded(), cipherSuite: suiteName)
            })
            let output = try await call { () async throws(MLSAPIError) in try await api.publishKeyPackages(input) }
            for failure in output.errors ?? [] where bundles.indices.contains(failure.index) {
                store.deleteKeyPackage(ref: bundles[failure.index].ref)
            }
            total.succeeded += output.succeeded
            total.failed += output.failed
            if let errors = output.errors {
                total.errors = (total.errors ?? []) + errors.map { .init(index: $0.index + offset, error: $0.error, message: $0.message) }
            }
            offset += size
        }
        return total
    }

    /// Generates a last-resort KeyPackage (RFC 9750 §5.1, marked by the `last_resort` extension),
    /// keeps its private keys, and publishes it: the service hands it out only when this user has no
    /// other package left, never consumes it, and drops this user's previous one of the suite. Its
    /// private keys stay after a join, for the next group that adds it.
    public func publishLastResortKeyPackage(lifetimeDays: Int = 30) async throws(MLSClientError) -> PublishKeyPackageOutput {
        let now = UInt64(Date().timeIntervalSince1970)
        let lifetime = Lifetime(notBefore: now - 3600, notAfter: now + UInt64(lifetimeDays) * 86_400)
        let bundle = try mls { () throws(GroupError) in
            try KeyPackageBundle.generate(suite: suite, credential: identity.credential, signingKey: signingKey, lifetime: lifetime,
                                          extensions: [Extension(extensionType: .lastResort, extensionData: [])])
        }
        try store.saveKeyPackage(bundle)
        let input = PublishKeyPackageInput(keyPackage: MLSMessage(body: .keyPackage(bundle.keyPackage)).encoded(),
                                           cipherSuite: suiteName, lastResort: true)
        return try await call { () async throws(MLSAPIError) in try await api.publishKeyPackage(input) }
    }

    // MARK: Creating and inviting

    /// Creates a group and its conversation; with `inviting`, the first commit adds those DIDs
    /// (each must have published a KeyPackage). `sealed` makes a conversation with sealed handshakes
    /// (docs/sealed-commits.md): this member's commits and proposals, the first one included, are
    /// PrivateMessages, as the Catbird app sends them, and the service checks each commit through
    /// its GroupInfo.
    public func createConvo(name: String? = nil, description: String? = nil, inviting dids: [String] = [],
                            sealed: Bool = false) async throws(MLSClientError) -> ConvoView {
        let handshake = sealed ? Self.sealedHandshake : nil
        let group = try mls { () throws(GroupError) in
            try Group.create(suite: suite, credential: identity.credential, signingKey: signingKey,
                             configuration: Self.configuration(handshake: handshake))
        }
        let output: CommitOutput
        var hashes: [KeyPackageHash]?
        if dids.isEmpty {
            // The service wants a GroupInfo whose confirmation tag comes from a commit: start at epoch 1.
            output = try mls { () throws(GroupError) in try group.update() }
        } else {
            let packages = try await keyPackages(for: dids)
            hashes = packages.map { KeyPackageHash(did: $0.did, hash: Hex.encode($0.ref)) }
            // Without a path, so that the service can verify the commit against the one-member epoch 0
            // (docs/validation.md): the joiners' secrets still come from the fresh init secret.
            output = try mls { () throws(GroupError) in try group.add(keyPackages: packages.map(\.keyPackage), includePath: false) }
        }
        let metadata = name == nil && description == nil ? nil : ConvoMetadata(name: name, description: description)
        let input = CreateConvoInput(
            groupId: Hex.encode(group.groupID), cipherSuite: suiteName,
            groupInfo: MLSMessage(body: .groupInfo(output.groupInfo)).encoded(),
            commit: dids.isEmpty ? nil : output.commit.encoded(), welcomeMessage: output.welcome?.encoded(),
            keyPackageHashes: hashes, metadata: metadata, handshake: handshake)
        progress("creating the conversation")
        let view = try await call { () async throws(MLSAPIError) in try await api.createConvo(input) }
        try store.saveGroup(output.group, convoId: view.id)
        try store.saveRecord(ConvoRecord(convoId: view.id, name: name))
        try store.appendTranscript([event(epoch: output.group.epoch, "created the conversation" + (dids.isEmpty ? "" : " with \(dids.joined(separator: ", "))"))],
                                   convoId: view.id)
        return view
    }

    /// Adds `dids` to the conversation in one commit, with a Welcome for them.
    public func invite(convoId: String, dids: [String]) async throws(MLSClientError) -> AddMembersOutput {
        guard !dids.isEmpty else { throw .invalidArgument("nobody to invite") }
        return try await committing(convoId) { () async throws(MLSClientError) in
            let group = try store.loadGroup(convoId: convoId)
            let present = Set(group.members.compactMap { Self.did(of: $0.credential) })
            let already = dids.filter(present.contains)
            guard already.isEmpty else { throw .invalidArgument("already a member: \(already.joined(separator: ", "))") }
            let packages = try await keyPackages(for: dids)
            let output = try mls { () throws(GroupError) in try group.add(keyPackages: packages.map(\.keyPackage)) }
            guard let welcome = output.welcome else { throw .invalidArgument("the commit added nobody") }
            let input = AddMembersInput(
                convoId: convoId, commit: output.commit.encoded(), welcomeMessage: welcome.encoded(),
                groupInfo: MLSMessage(body: .groupInfo(output.groupInfo)).encoded(),
                keyPackageHashes: packages.map { KeyPackageHash(did: $0.did, hash: Hex.encode($0.ref)) })
            progress("adding \(dids.count) member(s)")
            let result = try await call { () async throws(MLSAPIError) in try await api.addMembers(input) }
            try adopt(output.group, convoId: convoId, event: "added \(dids.joined(separator: ", "))")
            return result
        }
    }

    /// Removes every leaf of `did` (an admin operation on the service).
    public func remove(convoId: String, did target: String) async throws(MLSClientError) -> RemoveMemberOutput {
        try await committing(convoId) { () async throws(MLSClientError) in
            let group = try store.loadGroup(convoId: convoId)
            let leaves = group.members.filter { Self.did(of: $0.credential) == target }.map(\.leafIndex)
            guard !leaves.isEmpty else { throw .invalidArgument("\(target) is not a member of \(convoId)") }
            let output = try mls { () throws(GroupError) in try group.remove(leaves: leaves) }
            let input = RemoveMemberInput(convoId: convoId, targetDid: target, commit: output.commit.encoded(),
                                          groupInfo: MLSMessage(body: .groupInfo(output.groupInfo)).encoded())
            let result = try await call { () async throws(MLSAPIError) in try await api.removeMember(input) }
            try adopt(output.group, convoId: convoId, event: "removed \(target)")
            return result
        }
    }

    /// Commits a self-update (RFC 9420 §12.4.2: an empty commit with an UpdatePath, so this member's
    /// leaf and path get fresh keys) through commitGroupChange.
    public func selfUpdate(convoId: String) async throws(MLSClientError) -> CommitGroupChangeOutput {
        try await committing(convoId) { () async throws(MLSClientError) in
            let group = try store.loadGroup(convoId: convoId)
            let output = try mls { () throws(GroupError) in try group.update() }
            let input = CommitGroupChangeInput(convoId: convoId, commit: output.commit.encoded(),
                                               groupInfo: MLSMessage(body: .groupInfo(output.groupInfo)).encoded())
            let result = try await call { () async throws(MLSAPIError) in try await api.commitGroupChange(input) }
            try adopt(output.group, convoId: convoId, event: "updated its keys")
            return result
        }
    }

    /// MLS-Exporter(label, context, length) of the local group state (RFC 9420 §8.5), with its epoch:
    /// what members compare to show they share the epoch's secrets. Reads nothing from the service.
    public func exportSecret(convoId: String, label: String, context: [UInt8],
                             length: Int) throws(MLSClientError) -> (epoch: UInt64, secret: [UInt8]) {
        let group = try store.loadGroup(convoId: convoId)
        let secret = try mls { () throws(GroupError) in try group.exportSecret(label: label, context: context, length: length) }
        return (group.epoch, secret)
    }

    /// Runs a commit after catching up; on a lost race (409) catches up again and retries once.
    func committing<T>(_ convoId: String, _ body: () async throws(MLSClientError) -> T) async throws(MLSClientError) -> T {
        _ = try await read(convoId: convoId)
        do {
            return try await body()
        } catch .api(let error) where error.status == 409 {
            progress("another commit won the epoch; catching up and retrying")
            _ = try await read(convoId: convoId)
            return try await body()
        }
    }

    func adopt(_ group: Group, convoId: String, event text: String) throws(MLSClientError) {
        try store.saveGroup(group, convoId: convoId)
        try store.appendTranscript([event(epoch: group.epoch, text)], convoId: convoId)
    }

    struct FetchedKeyPackage {
        var did: String
        var keyPackage: KeyPackage
        var ref: [UInt8]
    }

    /// One validated KeyPackage per DID, whose credential names that DID.
    func keyPackages(for dids: [String]) async throws(MLSClientError) -> [FetchedKeyPackage] {
        let output = try await call { () async throws(MLSAPIError) in try await api.getKeyPackages(dids: dids, cipherSuite: suiteName) }
        var found: [String: FetchedKeyPackage] = [:]
        let now = UInt64(Date().timeIntervalSince1970)
        for ref in output.keyPackages where found[ref.did] == nil && dids.contains(ref.did) {
            // Published as an MLSMessage(KeyPackage) or, by OpenMLS clients, as a bare KeyPackage.
            guard let keyPackage = try? KeyPackage.decodePublished(ref.keyPackage.bytes).keyPackage else {
                throw .invalidServerData("key package of \(ref.did) is not a KeyPackage")
            }
            guard Self.did(of: keyPackage.leafNode.credential) == ref.did else {
                throw .invalidServerData("key package offered for \(ref.did) names another identity")
            }
            do { try keyPackage.validate(suite: suite, now: now, maxLifetime: 400 * 86_400, skew: 300) } catch {
                throw .invalidServerData("key package of \(ref.did) is invalid: \(error)")
            }
            found[ref.did] = FetchedKeyPackage(did: ref.did, keyPackage: keyPackage, ref: keyPackage.reference(suite: suite))
        }
        let missing = dids.filter { found[$0] == nil }
        guard missing.isEmpty else { throw .noKeyPackage(missing) }
        return dids.compactMap { found[$0] }
    }

    /// createConvo's `handshake` for a conversation with sealed handshakes.
    static let sealedHandshake = "sealed"

    /// The group configuration for a conversation's handshake policy: in a sealed one this member
    /// sends its commits and proposals as PrivateMessages and accepts both forms from others (the
    /// service takes both there; an external commit is always a PublicMessage, RFC 9420 §12.4.3.2);
    /// in a public one, the default (PublicMessages out, both accepted).
    static func configuration(handshake: String?) -> GroupConfiguration {
        handshake == sealedHandshake ? GroupConfiguration(wireFormatPolicy: .mixedCiphertext) : .default
    }

    /// The DID a BasicCredential names.
    static func did(of credential: Credential) -> String? {
        guard case .basic(let identity) = credential else { return nil }
        return String(validating: identity, as: UTF8.self)
    }

    func event(epoch: UInt64, _ text: String) -> ChatEntry {
        ChatEntry(kind: .event, seq: nil, epoch: Int64(clamping: epoch), sender: identity.did, text: text, own: true)
    }
}

import Primitives

/// How a member handles its group beyond what RFC 9420 fixes.
public struct GroupConfiguration: Sendable {
    /// How far ahead and how many skipped keys a receiver's ratchets keep (RFC 9420 §9.2).
    public var ratchetWindow: RatchetWindow
    /// How many past epochs' resumption_psk are kept for resumption PSK proposals (RFC 9420 §8.6).
    public var resumptionPSKHistory: Int
    /// Padding of PrivateMessages this member sends (RFC 9420 §6.3.1).
    public var padding: PrivateMessagePadding
    /// Whether this member's proposals and commits are PublicMessages or PrivateMessages, and which
    /// other members' it accepts (RFC 9420 §6; OpenMLS's wire format policies).
    public var wireFormatPolicy: WireFormatPolicy

    public init(ratchetWindow: RatchetWindow = .default, resumptionPSKHistory: Int = 32, padding: PrivateMessagePadding = .none,
                wireFormatPolicy: WireFormatPolicy = .mixedPlaintext) {
        self.ratchetWindow = ratchetWindow
        self.resumptionPSKHistory = max(1, resumptionPSKHistory)
        self.padding = padding
        self.wireFormatPolicy = wireFormatPolicy
    }

    public static let `default` = GroupConfiguration()
}

/// A member's view of a group (RFC 9420 §8–12): the public state plus the epoch's secrets, the
/// secret tree, this member's tree keys and signature key. A value: every operation that moves to
/// another epoch leaves the old value intact, so a refused commit never half-applies.
/// `description` names no key material.
public struct Group: Sendable, CustomStringConvertible {
    public internal(set) var state: GroupState
    /// This member's leaf index.
    public internal(set) var ownLeaf: UInt32
    public internal(set) var configuration: GroupConfiguration
    /// False once a commit removed this member.
    public internal(set) var isActive = true
    var epochSecrets: EpochSecrets
    var secretTree: SecretTree
    var privateTree: TreePrivateState
    let signingKey: SignaturePrivateKey
    /// External PSKs by psk_id (RFC 9420 §8.4).
    var externalPSKs: [[UInt8]: [UInt8]]
    /// resumption_psk of this and recent epochs, newest last.
    var resumptionPSKs: [(epoch: UInt64, psk: [UInt8])]
    /// The next generation of each (leaf, handshake?) ratchet in use, so a restored state never reuses a key.
    var ratchetWatermarks: [RatchetMark: UInt32] = [:]
    /// psk_secret of this epoch, kept so persistence can re-derive the epoch from joiner_secret.
    var pskSecret: [UInt8]?

    struct RatchetMark: Hashable, Sendable {
        let leaf: UInt32
        let handshake: Bool
    }

    init(state: GroupState, ownLeaf: UInt32, configuration: GroupConfiguration, epochSecrets: EpochSecrets,
         pskSecret: [UInt8]?, privateTree: TreePrivateState, signingKey: SignaturePrivateKey,
         externalPSKs: [[UInt8]: [UInt8]], resumptionPSKs: [(epoch: UInt64, psk: [UInt8])]) throws(GroupError) {
        self.state = state
        self.ownLeaf = ownLeaf
        self.configuration = configuration
        self.epochSecrets = epochSecrets
        self.pskSecret = pskSecret
        self.privateTree = privateTree
        self.signingKey = signingKey
        self.externalPSKs = externalPSKs
        self.resumptionPSKs = resumptionPSKs
        do {
            secretTree = try epochSecrets.secretTree(leafCount: state.tree.leafCount, window: configuration.ratchetWindow)
        } catch {
            throw .schedule(error)
        }
        rememberResumptionPSK()
    }

    public var description: String { "Group(epoch: \(epoch), leaf: \(ownLeaf), members: \(state.tree.memberCount))" }

    public var groupID: [UInt8] { state.context.groupID }
    public var epoch: UInt64 { state.context.epoch }
    public var cipherSuite: CipherSuite { state.suite }
    public var groupContext: GroupContext { state.context }
    public var tree: PublicRatchetTree { state.tree }
    public var members: [GroupMember] { state.tree.groupMembers }
    /// RFC 9420 §8.7: the epoch authenticator, which members may compare out of band.
    public var epochAuthenticator: [UInt8] { epochSecrets.epochAuthenticator }
    /// Standalone proposals received this epoch, not yet committed.
    public var pendingProposals: [CachedProposal] { state.proposals }
    /// The public state of this epoch, for a PublicGroup or a server.
    public var publicGroup: PublicGroup { PublicGroup(state: state) }

    /// MLS-Exporter (RFC 9420 §8.5).
    public func exportSecret(label: String, context: [UInt8], length: Int) throws(GroupError) -> [UInt8] {
        do { return try epochSecrets.exporter(label: label, context: context, length: length) } catch { throw .crypto(error) }
    }

    /// Adds or replaces an external PSK this member can use (RFC 9420 §8.4).
    public mutating func addExternalPSK(id: [UInt8], secret: [UInt8]) { externalPSKs[id] = secret }

    /// The capabilities this implementation offers: every suite it knows, basic credentials.
    public static func defaultCapabilities(suite: CipherSuite) -> Capabilities {
        Capabilities(cipherSuites: [suite.rawValue], credentials: [.basic])
    }

    func checkActive() throws(GroupError) {
        guard isActive else { throw .notAMember }
    }

    mutating func rememberResumptionPSK() {
        let current = epoch
        resumptionPSKs.removeAll { $0.epoch == current }
        resumptionPSKs.append((epoch, epochSecrets.resumptionPSK))
        if resumptionPSKs.count > configuration.resumptionPSKHistory {
            resumptionPSKs.removeFirst(resumptionPSKs.count - configuration.resumptionPSKHistory)
        }
    }

    /// psk_secret for the PSKs a commit or Welcome names (RFC 9420 §8.4); nil when there are none.
    func pskSecret(for ids: [PreSharedKeyID]) throws(GroupError) -> [UInt8]? {
        guard !ids.isEmpty else { return nil }
        var named: [(id: PreSharedKeyID, psk: [UInt8])] = []
        for id in ids {
            guard let secret = lookupPSK(id) else { throw .missingPSK(id) }
            named.append((id, secret))
        }
        do { return try PSKSecret.compute(suite: state.suite, namedPSKs: named) } catch { throw .crypto(error) }
    }

    func lookupPSK(_ id: PreSharedKeyID) -> [UInt8]? {
        switch id.kind {
        case .external(let pskID):
            return externalPSKs[pskID]
        case .resumption(_, let groupID, let epoch):
            guard groupID == state.context.groupID else { return nil }
            return resumptionPSKs.last { $0.epoch == epoch }?.psk
        }
    }
}

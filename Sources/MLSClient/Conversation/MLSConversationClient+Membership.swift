import Basics
import Foundation
import Lexicon
import MLS

/// Joining, leaving and rejoining.
extension MLSConversationClient {
    /// Joins from the Welcome waiting on the service, confirms it, and reads what followed.
    public func join(convoId: String) async throws(MLSClientError) -> Group {
        let output = try await call { () async throws(MLSAPIError) in try await api.getWelcome(convoId: convoId) }
        let welcome: Welcome
        do {
            guard case .welcome(let decoded) = try MLSMessage(decoding: output.welcome.bytes).body else {
                throw MLSClientError.invalidServerData("getWelcome did not return a Welcome")
            }
            welcome = decoded
        } catch let error as MLSClientError {
            throw error
        } catch {
            throw .invalidServerData("Welcome: \(error)")
        }
        guard let bundle = try store.keyPackage(for: welcome, signingKey: signingKey) else {
            _ = try? await api.confirmWelcome(ConfirmWelcomeInput(convoId: convoId, success: false,
                                                                  errorDetails: "no matching key package"))
            throw .noMatchingKeyPackage
        }
        // The conversation's handshake policy decides how this member frames its own commits.
        let view = try? await api.getConvo(convoId: convoId)
        let group: Group
        do {
            group = try Group.join(welcome: welcome, keyPackage: bundle, configuration: Self.configuration(handshake: view?.handshake))
        } catch {
            _ = try? await api.confirmWelcome(ConfirmWelcomeInput(convoId: convoId, success: false,
                                                                  errorDetails: String(describing: error).prefix(1000).description))
            throw .mls(error)
        }
        guard Hex.encode(group.groupID) == convoId else { throw .invalidServerData("the Welcome is for another group") }
        try store.saveGroup(group, convoId: convoId)
        var record = ConvoRecord(convoId: convoId, name: view?.metadata?.name)
        record.shownEntries = try store.transcript(convoId: convoId).count
        try store.saveRecord(record)
        // A one-time package is spent; a last-resort one may be added to the next group too.
        if bundle.keyPackage.lastResortMark != true { store.deleteKeyPackage(ref: bundle.ref) }
        try store.appendTranscript([event(epoch: group.epoch, "joined")], convoId: convoId)
        _ = try await call { () async throws(MLSAPIError) in
            try await api.confirmWelcome(ConfirmWelcomeInput(convoId: convoId, success: true))
        }
        _ = try await read(convoId: convoId)
        return try store.loadGroup(convoId: convoId)
    }

    /// Sends a self-Remove proposal; another member's next commit removes this member. Local
    /// state is dropped at once: this client reads nothing more.
    public func leave(convoId: String) async throws(MLSClientError) -> LeaveConvoOutput {
        _ = try await read(convoId: convoId)
        var group = try store.loadGroup(convoId: convoId)
        let proposal = try mls { () throws(GroupError) in try group.proposeSelfRemove() }
        let output = try await call { () async throws(MLSAPIError) in
            try await api.leaveConvo(LeaveConvoInput(convoId: convoId, proposal: proposal.encoded()))
        }
        var record = try store.loadRecord(convoId: convoId)
        record.active = false
        try store.saveRecord(record)
        try store.appendTranscript([event(epoch: group.epoch, "left")], convoId: convoId)
        store.deleteGroup(convoId: convoId)
        return output
    }

    /// Rejoins by external commit from the service's GroupInfo (RFC 9420 §12.4.3.2), replacing this
    /// member's old leaf if it still has one: for a client that lost or corrupted its state.
    public func rejoin(convoId: String) async throws(MLSClientError) -> ProcessExternalCommitOutput {
        let info = try await call { () async throws(MLSAPIError) in try await api.getGroupInfo(convoId: convoId) }
        guard case .groupInfo(let groupInfo)? = try? MLSMessage(decoding: info.groupInfo.bytes).body else {
            throw .invalidServerData("getGroupInfo did not return a GroupInfo")
        }
        let observer = try mls { () throws(GroupError) in try PublicGroup(groupInfo: groupInfo) }
        let oldLeaf = observer.tree.groupMembers.first { Self.did(of: $0.credential) == identity.did }?.leafIndex
        let view = try await call { () async throws(MLSAPIError) in try await api.getConvo(convoId: convoId) }
        // The external commit itself is a PublicMessage whatever the policy (RFC 9420 §12.4.3.2).
        let joined = try mls { () throws(GroupError) in
            try Group.joinByExternalCommit(groupInfo: groupInfo, credential: identity.credential, signingKey: signingKey,
                                           removing: oldLeaf, configuration: Self.configuration(handshake: view.handshake))
        }
        let newInfo = try mls { () throws(GroupError) in try joined.group.makeGroupInfo() }
        let input = ProcessExternalCommitInput(convoId: convoId, externalCommit: joined.commit.encoded(),
                                               groupInfo: MLSMessage(body: .groupInfo(newInfo)).encoded())
        progress("rejoining by external commit")
        let output = try await call { () async throws(MLSAPIError) in try await api.processExternalCommit(input) }
        var record = try store.loadRecord(convoId: convoId)
        record.active = true
        try store.saveGroup(joined.group, convoId: convoId)
        try store.saveRecord(record)
        try store.appendTranscript([event(epoch: joined.group.epoch, "rejoined by external commit")], convoId: convoId)
        return output
    }

    /// The caller's conversations on the service, with what this client knows of each.
    public func convos() async throws(MLSClientError) -> [(view: ConvoView, local: ConvoRecord?)] {
        let views = try await call { () async throws(MLSAPIError) in try await api.allConvos() }
        let records = Dictionary(store.records().map { ($0.convoId, $0) }, uniquingKeysWith: { first, _ in first })
        return views.map { ($0, records[$0.id]) }
    }
}

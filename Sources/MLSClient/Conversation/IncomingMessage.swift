import MLS

/// What a message from the group does to the local state, whichever transport brought it (XRPC's
/// getMessages, or MQTT's relay/g/.../m): a transcript entry, or nil when it is skipped.
enum IncomingMessage {
    /// Applies `bytes` to `group`: messages from epochs before the group's (this member's own
    /// commits, history before it joined) are skipped; one from a later epoch means commits were
    /// missed. A commit that cannot be applied is an error; an application message that cannot be
    /// decrypted is noted and skipped. `sender`: the service's word for who sent it, else the MLS
    /// sender's credential.
    static func apply(_ bytes: [UInt8], to group: inout Group, seq: Int64?, sender: String?, createdAt: String?,
                      label: String) throws(MLSClientError) -> ChatEntry? {
        let message: MLSMessage
        do { message = try MLSMessage(decoding: bytes) } catch { throw .invalidServerData("\(label) is not an MLSMessage") }
        let epoch: UInt64
        let isCommit: Bool
        switch message.body {
        case .publicMessage(let publicMessage):
            epoch = publicMessage.content.epoch
            isCommit = publicMessage.content.contentType == .commit
        case .privateMessage(let privateMessage):
            epoch = privateMessage.epoch
            isCommit = privateMessage.contentType == .commit
        default: return nil
        }
        if epoch < group.epoch { return nil }
        if epoch > group.epoch { throw .missedEpoch(have: group.epoch, got: epoch) }
        let before = group
        let processed: ProcessedMessage
        do {
            processed = try group.process(message)
        } catch {
            if isCommit { throw .mls(error) }
            return ChatEntry(kind: .event, seq: seq, epoch: Int64(clamping: epoch), sender: sender ?? "?",
                             text: "undecryptable message: \(error)", createdAt: createdAt)
        }
        switch processed {
        case .application(let data, let leaf, _):
            let from = sender ?? did(at: leaf, in: before) ?? "?"
            return ChatEntry(kind: .message, seq: seq, epoch: Int64(clamping: epoch), sender: from,
                             text: String(decoding: data, as: UTF8.self), createdAt: createdAt)
        case .commit(let summary):
            var changes: [String] = []
            let added = summary.added.compactMap { MLSConversationClient.did(of: $0.keyPackage.leafNode.credential) }
            let removed = summary.removed.compactMap { MLSConversationClient.did(of: $0.leafNode.credential) }
            if summary.isExternal { changes.append("rejoined") }
            if !added.isEmpty { changes.append("added " + added.joined(separator: ", ")) }
            if !removed.isEmpty, !summary.isExternal { changes.append("removed " + removed.joined(separator: ", ")) }
            if !group.isActive { changes.append("removed you") }
            if changes.isEmpty { changes.append("updated the group") }
            let from = sender ?? did(at: summary.committerLeaf, in: group.isActive ? group : before) ?? "?"
            return ChatEntry(kind: .event, seq: seq, epoch: Int64(clamping: summary.epoch), sender: from,
                             text: changes.joined(separator: "; "), createdAt: createdAt)
        case .proposal:
            return nil
        }
    }

    static func did(at leaf: UInt32, in group: Group) -> String? {
        group.members.first { $0.leafIndex == leaf }.flatMap { MLSConversationClient.did(of: $0.credential) }
    }
}

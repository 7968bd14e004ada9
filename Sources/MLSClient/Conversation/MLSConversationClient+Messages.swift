import Foundation
import Lexicon
import MLS

/// Sending and reading.
extension MLSConversationClient {
    /// Encrypts `text` for the group and sends it; catches up first so the epoch is current, and
    /// retries once after catching up if a commit slipped in between.
    public func send(convoId: String, text: String) async throws(MLSClientError) -> SendMessageOutput {
        _ = try await read(convoId: convoId)
        do {
            return try await sendOnce(convoId: convoId, text: text)
        } catch .api(let error) where error.status == 409 || error.xrpcError == "EpochMismatch" {
            _ = try await read(convoId: convoId)
            return try await sendOnce(convoId: convoId, text: text)
        }
    }

    func sendOnce(convoId: String, text: String) async throws(MLSClientError) -> SendMessageOutput {
        var group = try store.loadGroup(convoId: convoId)
        let message = try mls { () throws(GroupError) in try group.encrypt(Array(text.utf8)) }
        // The ratchet moved: save before sending so no key is ever used twice.
        try store.saveGroup(group, convoId: convoId)
        let msgId = UUID().uuidString.lowercased()
        var record = try store.loadRecord(convoId: convoId)
        record.sentMessageIds.append(msgId)
        try store.saveRecord(record)
        let input = SendMessageInput(convoId: convoId, msgId: msgId, ciphertext: message.encoded(), epoch: Int64(clamping: group.epoch))
        let output = try await call { () async throws(MLSAPIError) in try await api.sendMessage(input) }
        try store.appendTranscript([ChatEntry(kind: .message, seq: output.seq, epoch: output.epoch, sender: identity.did,
                                              text: text, createdAt: output.receivedAt, own: true)], convoId: convoId)
        return output
    }

    /// Fetches everything after the last processed seq, in seq order: applies commits, decrypts
    /// application messages, appends both to the transcript, and returns the new entries.
    /// Messages from epochs before this member's current one (its own commits, history before it
    /// joined) are skipped.
    public func read(convoId: String) async throws(MLSClientError) -> [ChatEntry] {
        var record = try store.loadRecord(convoId: convoId)
        guard record.active else { throw .notAMember(convoId) }
        var group = try store.loadGroup(convoId: convoId)
        var fresh: [ChatEntry] = []
        var iterator = api.messagePages(convoId: convoId, sinceSeq: record.lastSeq, limit: 100).makeAsyncIterator()
        while true {
            let page: [MessageView]?
            do {
                page = try await iterator.next()
            } catch let error where error.xrpcError == "NotMember" {
                record.active = false
                try store.saveRecord(record)
                throw .notAMember(convoId)
            } catch {
                throw .api(error)
            }
            guard let page, !page.isEmpty else { break }
            var entries: [ChatEntry] = []
            var failure: MLSClientError?
            for view in page {
                do {
                    if let entry = try apply(view, to: &group, record: record) { entries.append(entry) }
                } catch {
                    failure = error
                    break
                }
                record.lastSeq = view.seq
                if !group.isActive {
                    record.active = false
                    break
                }
            }
            try store.saveGroup(group, convoId: convoId)
            try store.saveRecord(record)
            try store.appendTranscript(entries, convoId: convoId)
            fresh += entries
            if let failure { throw failure }
            if !record.active { break }
        }
        return fresh
    }

    /// One message: nil when it is skipped (own, old epoch, no ciphertext).
    func apply(_ view: MessageView, to group: inout Group, record: ConvoRecord) throws(MLSClientError) -> ChatEntry? {
        if record.sentMessageIds.contains(view.id) { return nil }
        guard let bytes = view.ciphertext?.bytes else { return nil }
        return try IncomingMessage.apply(bytes, to: &group, seq: view.seq, sender: view.sender, createdAt: view.createdAt,
                                         label: "message \(view.seq)")
    }

    /// Reads, then returns the transcript entries not handed out before, other members' only
    /// (this client's own were reported when it made them). Messages taken in while catching up
    /// before a send or a commit show up here too.
    public func unread(convoId: String) async throws(MLSClientError) -> [ChatEntry] {
        _ = try await read(convoId: convoId)
        return try store.takeUnshown(convoId: convoId)
    }

    /// The local transcript of a conversation.
    public func transcript(convoId: String) throws(MLSClientError) -> [ChatEntry] {
        try store.transcript(convoId: convoId)
    }
}

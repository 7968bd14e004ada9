import ATProto
import DeliveryStore
import JSON
import Lexicon

/// One event of a conversation's log, encoded once for every subscriber: the JSON object without
/// its `cursor`, which `frame(cursor:)` adds per subscriber.
struct PreparedEvent: Sendable {
    static let typePrefix = "blue.catbird.mls.subscribeConvoEvents#"

    let convoID: String
    let seq: Int64
    /// `{"$type": …, …}` without the cursor.
    let body: String
    /// For membershipChangeEvent: whose membership changed, and how.
    let membership: MembershipChange?
    /// For messageEvent: the stored message (what MQTT subscribers of the group receive), when read.
    let row: MessageRow?

    /// The frame sent to one subscriber.
    func frame(cursor: String) -> String {
        "{\"cursor\":\"" + cursor + "\"," + body.dropFirst()
    }

    /// Whether this event ends `did`'s membership of the conversation.
    func ends(membershipOf did: String) -> Bool {
        guard let membership, membership.did == did else { return false }
        return membership.action == .left || membership.action == .removed
    }

    /// - Parameter message: the message a messageEvent points at, included in the body when given.
    /// - Parameter row: the message itself, kept for MQTT delivery.
    init(_ event: ConvoEvent, message: MessageRow?, row: MessageRow? = nil) throws {
        convoID = event.convoID
        seq = event.seq
        self.row = row ?? message
        let payload = Array(event.payload.utf8)
        switch event.kind {
        case .messageEvent:
            let pointer = try StrictJSON.decode(ConvoEvent.MessagePayload.self, from: payload)
            body = try Self.json(MessageEventBody(
                convoId: event.convoID, eventSeq: event.seq, seq: pointer.seq, msgId: pointer.msgId, epoch: pointer.epoch,
                sender: pointer.sender, messageType: pointer.messageType, message: message.map(MessageView.init)))
            membership = nil
        case .membershipChangeEvent:
            let change = try StrictJSON.decode(MembershipChange.self, from: payload)
            body = try Self.json(MembershipEventBody(convoId: event.convoID, eventSeq: event.seq, did: change.did,
                                                     action: change.action.rawValue, epoch: change.epoch))
            membership = change
        case .epochAdvanced:
            let epoch = try StrictJSON.decode(ConvoEvent.EpochPayload.self, from: payload)
            body = try Self.json(EpochEventBody(convoId: event.convoID, eventSeq: event.seq, epoch: epoch.epoch,
                                                commitSeq: epoch.commitSeq))
            membership = nil
        }
    }

    /// An infoEvent (not from the log).
    static func info(_ info: String, convoID: String?, message: String) -> String {
        (try? json(InfoEventBody(info: info, convoId: convoID, message: message))) ?? "{}"
    }

    private static func json(_ value: some Encodable) throws -> String {
        String(decoding: try XRPCJSON.encode(value), as: UTF8.self)
    }

    private struct MessageEventBody: Encodable {
        let type = PreparedEvent.typePrefix + "messageEvent"
        var convoId: String
        var eventSeq: Int64
        var seq: Int64
        var msgId: String
        var epoch: Int64
        var sender: String
        var messageType: String
        var message: MessageView?

        enum CodingKeys: String, CodingKey {
            case type = "$type", convoId, eventSeq, seq, msgId, epoch, sender, messageType, message
        }
    }

    private struct MembershipEventBody: Encodable {
        let type = PreparedEvent.typePrefix + "membershipChangeEvent"
        var convoId: String
        var eventSeq: Int64
        var did: String
        var action: String
        var epoch: Int64

        enum CodingKeys: String, CodingKey { case type = "$type", convoId, eventSeq, did, action, epoch }
    }

    private struct EpochEventBody: Encodable {
        let type = PreparedEvent.typePrefix + "epochAdvanced"
        var convoId: String
        var eventSeq: Int64
        var epoch: Int64
        var commitSeq: Int64?

        enum CodingKeys: String, CodingKey { case type = "$type", convoId, eventSeq, epoch, commitSeq }
    }

    private struct InfoEventBody: Encodable {
        let type = PreparedEvent.typePrefix + "infoEvent"
        var info: String
        var convoId: String?
        var message: String

        enum CodingKeys: String, CodingKey { case type = "$type", info, convoId, message }
    }
}

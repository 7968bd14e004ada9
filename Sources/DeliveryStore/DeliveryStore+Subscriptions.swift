import Basics
import Foundation
import Store

/// A conversation a subscriber follows, with the newest event_seq it had when read.
public struct SubscribedConvo: Sendable, Equatable {
    public var convoID: String
    public var lastEventSeq: Int64

    public init(convoID: String, lastEventSeq: Int64) {
        self.convoID = convoID
        self.lastEventSeq = lastEventSeq
    }
}

/// The reads behind event subscriptions: which conversations a DID follows and where its own
/// membership events sit in their logs.
extension DeliveryStore {
    /// The conversations `did` is a current member of, with their newest event_seq.
    public func currentConvos(of did: DID) throws(DeliveryStoreError) -> [SubscribedConvo] {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                try transaction.connection.query("""
                    SELECT c.convo_id, c.last_event_seq FROM convos c
                    WHERE c.convo_id IN (SELECT convo_id FROM members WHERE did = $1 AND left_at IS NULL)
                    ORDER BY c.convo_id
                    """, [did]).map { row in
                    SubscribedConvo(convoID: try row.string("convo_id"), lastEventSeq: try row.int64("last_event_seq"))
                }
            }
        }
    }

    /// Conversations `did` had a leaf in and has none in now.
    public func formerConvos(of did: DID) throws(DeliveryStoreError) -> [String] {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                try transaction.connection.query("""
                    SELECT convo_id FROM members WHERE did = $1
                    GROUP BY convo_id HAVING bool_and(left_at IS NOT NULL) ORDER BY convo_id
                    """, [did]).map { try $0.string("convo_id") }
            }
        }
    }

    /// The newest event_seq of the conversation (0 before any event), nil if it does not exist.
    public func lastEventSeq(convoID: String) throws(DeliveryStoreError) -> Int64? {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                try transaction.connection.query("SELECT last_event_seq FROM convos WHERE convo_id = $1", [convoID])
                    .first.map { try $0.int64("last_event_seq") }
            }
        }
    }

    /// The event_seq of the newest membershipChangeEvent about `did` in the conversation with one
    /// of `actions`, if the log still holds one.
    public func lastMembershipEventSeq(convoID: String, did: String,
                                       actions: [MembershipChange.Action]) throws(DeliveryStoreError) -> Int64? {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                try transaction.connection.query("""
                    SELECT max(event_seq) AS seq FROM events
                    WHERE convo_id = $1 AND type = 'membershipChangeEvent' AND payload->>'did' = $2
                      AND payload->>'action' = ANY($3::text[])
                    """, [convoID, did, PGArray(actions.map(\.rawValue))]).first?.optionalInt64("seq")
            }
        }
    }
}

extension DeliveryStore {
    /// Which of `dids` are current members of the conversation.
    public func currentMembers(convoID: String, among dids: [String]) throws(DeliveryStoreError) -> [String] {
        guard !dids.isEmpty else { return [] }
        return try run { transaction throws(DeliveryStoreError) in
            try guarded {
                try transaction.connection.query("""
                    SELECT DISTINCT did FROM members WHERE convo_id = $1 AND left_at IS NULL AND did = ANY($2::text[])
                    """, [convoID, PGArray(dids)]).map { try $0.string("did") }
            }
        }
    }
}

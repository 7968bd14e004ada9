import Basics
import Foundation
import Store

/// The hot reads, each one statement (one snapshot, the membership check included) and, with the
/// request's token, its replay record: one round trip for both.
extension DeliveryStore {
    /// Runs `statement`; with `replay`, first remembers the token in the same round trip (a
    /// pipeline: BEGIN, the replay record, the read, COMMIT). The record commits synchronously as
    /// `PostgresReplayStore`'s do: a used token stays used after a crash or a failover. A replayed token throws `tokenReplayed` and the rows are dropped unread.
    /// `recorded` is called once the token's use is committed, before any domain error is thrown.
    func read(_ statement: PGStatement, replay: ReplayRecord?, recorded: () -> Void) throws(DeliveryStoreError) -> [PGRow] {
        guard let replay else { return try guarded { try database.query(statement.sql, statement.parameters) } }
        let results = try guarded {
            try database.pipelinedTransaction([
                // Index probes only, as in appendMessages, but custom plans: a page's plan depends on
                // its LIMIT and sinceSeq, which a generic plan does not know.
                PGStatement("SELECT set_config('enable_seqscan', 'off', true)"),
                PGStatement(ReplayRecord.insertSQL, [replay.iss, replay.jti, replay.until]),
                statement,
            ])
        }
        recorded()
        guard !results[1].isEmpty else { throw .tokenReplayed }
        return results[2]
    }

    /// The conversations `did` is a current member of, most recently active first (last message,
    /// else creation), with their current members. `cursor` continues after a previous page;
    /// `invalidCursor` for one this store did not produce.
    public func listConvos(for did: DID, limit: Int = 50, cursor: String? = nil, replay: ReplayRecord? = nil,
                           recorded: () -> Void = {}) throws(DeliveryStoreError) -> ConvoPage {
        guard limit >= 1, limit <= 1000 else { throw .invalidArgument("limit 1…1000") }
        let after = try cursor.map { text throws(DeliveryStoreError) in try ConvoCursor(parsing: text) }
        // One row per (conversation, current member); the extra conversation only says whether
        // another page follows.
        let rows = try read(PGStatement("""
                WITH page AS (
                    SELECT c.convo_id, c.cipher_suite, c.epoch, c.creator_did, c.name, c.description, c.created_at,
                           c.last_message_at, c.last_seq, c.handshake, coalesce(c.last_message_at, c.created_at) AS activity
                    FROM convos c
                    WHERE EXISTS (SELECT 1 FROM members m WHERE m.convo_id = c.convo_id AND m.did = $1 AND m.left_at IS NULL)
                      AND ($2::bigint IS NULL OR (coalesce(c.last_message_at, c.created_at), c.convo_id)
                                                 < (timestamptz 'epoch' + $2 * interval '1 microsecond', $3::text))
                    ORDER BY activity DESC, c.convo_id DESC
                    LIMIT $4
                )
                SELECT p.convo_id, p.cipher_suite, p.epoch, p.creator_did, p.name, p.description, p.created_at,
                       p.last_message_at, p.last_seq, p.handshake, (EXTRACT(EPOCH FROM p.activity) * 1000000)::bigint AS activity_micros,
                       m.leaf_index, m.did, m.credential_identity, m.credential, m.is_admin, m.joined_at, m.joined_epoch,
                       m.left_at, m.left_epoch, m.left_reason
                FROM page p LEFT JOIN members m ON m.convo_id = p.convo_id AND m.left_at IS NULL
                ORDER BY p.activity DESC, p.convo_id DESC, m.leaf_index
                """, [did, after?.activityMicros, after?.convoID, Int64(limit + 1)]), replay: replay, recorded: recorded)
        return try guarded {
            var listings: [ConvoListing] = []
            var lastActivity: Int64 = 0
            var more = false
            for row in rows {
                let convoID = try row.string("convo_id")
                if listings.last?.convo.convoID != convoID {
                    guard listings.count < limit else {
                        more = true
                        break
                    }
                    listings.append(ConvoListing(convo: try ConvoHeader(row: row), members: []))
                    lastActivity = try row.int64("activity_micros")
                }
                if try !row.isNull("leaf_index") { listings[listings.count - 1].members.append(try MemberRow(row: row)) }
            }
            let next = more ? ConvoCursor(activityMicros: lastActivity, convoID: listings[listings.count - 1].convo.convoID).encoded : nil
            return ConvoPage(convos: listings, cursor: next)
        }
    }

    /// `messages(convoID:_:)` for a caller who must be a current member: `convoNotFound`, then
    /// `notMember`, then the page, all from one snapshot.
    public func messages(convoID: String, member did: DID, _ query: MessageQuery, replay: ReplayRecord? = nil,
                         recorded: () -> Void = {}) throws(DeliveryStoreError) -> MessagePage {
        guard query.limit >= 1, query.limit <= 1000 else { throw .invalidArgument("limit 1…1000") }
        let rows = try read(PGStatement("""
                WITH c AS (SELECT last_seq FROM convos WHERE convo_id = $1),
                     m AS (SELECT EXISTS (SELECT 1 FROM members
                                          WHERE convo_id = $1 AND did = $7 AND left_at IS NULL) AS member)
                SELECT c.last_seq, m.member, x.*
                FROM c CROSS JOIN m
                LEFT JOIN LATERAL (
                    SELECT \(MessageRow.columns) FROM messages
                    WHERE m.member AND convo_id = $1 AND seq > $2
                      AND ($3::bigint IS NULL OR epoch >= $3) AND ($4::bigint IS NULL OR epoch <= $4)
                      AND ($5::text IS NULL OR message_type = $5)
                    ORDER BY seq LIMIT $6
                ) x ON true
                ORDER BY x.seq
                """, [convoID, query.sinceSeq, query.fromEpoch, query.toEpoch, query.kind?.rawValue, Int64(query.limit), did]),
            replay: replay, recorded: recorded)
        return try guarded {
            guard let first = rows.first else { throw DeliveryStoreError.convoNotFound }
            guard try first.bool("member") else { throw DeliveryStoreError.notMember }
            let messages = try rows.filter { try !$0.isNull("seq") }.map(MessageRow.init(row:))
            return MessagePage(messages: messages, lastSeq: try first.int64("last_seq"))
        }
    }
}

extension ConvoHeader {
    init(row: PGRow) throws {
        self.init(convoID: try row.string("convo_id"), cipherSuite: try row.cipherSuite("cipher_suite"),
                  epoch: try row.int64("epoch"), creatorDID: try row.string("creator_did"),
                  name: try row.optionalString("name"), description: try row.optionalString("description"),
                  createdAt: try row.date("created_at"), lastMessageAt: try row.optionalDate("last_message_at"),
                  lastSeq: try row.int64("last_seq"), handshake: try row.handshake("handshake"))
    }
}

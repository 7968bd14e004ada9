import Basics
import DeliveryStore
import Foundation
import Store
import TestSupport
import XCTest

final class MigrationTests: XCTestCase {
    /// Applies the repository's migrations into a throwaway database, twice.
    func test_migrations_applyToAFreshDatabase_andTheSecondRunIsANoOp() throws {
        let fresh = try TestDatabase(.database, prefix: "dsmig", poolSize: 1)
        defer { fresh.drop() }
        let database = fresh.database

        let migrator = Migrator(directory: TestDatabase.migrations)
        let first = try migrator.migrate(database)
        XCTAssertTrue(first.contains("0002_delivery_service.sql"), "\(first)")
        let tables = try database.query("""
            SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename
            """).map { try $0.string("tablename") }
        for table in ["commits", "convos", "events", "idempotency", "key_packages", "members", "messages",
                      "pending_proposals", "welcomes"] {
            XCTAssertTrue(tables.contains(table), "missing table \(table) in \(tables)")
        }
        XCTAssertEqual(try migrator.migrate(database), [], "the second run applies nothing")
        let recorded = try database.query("SELECT count(*) AS n FROM schema_migrations")[0].int("n")
        XCTAssertEqual(recorded, first.count)
    }

    /// 0010: Welcomes stored before, one copy per recipient, become one `welcome_messages` row per
    /// conversation, epoch and content, shared by the rows that held it; getWelcome serves the same bytes.
    func test_welcomeMessagesMigration_sharesTheCopiesStoredBefore() throws {
        let fresh = try TestDatabase(.database, prefix: "dsmig", poolSize: 1)
        defer { fresh.drop() }
        let database = fresh.database
        try migrate(fresh, before: "0010")
        try database.execute("""
            INSERT INTO convos (convo_id, group_id, cipher_suite, epoch, public_state, creator_did)
            VALUES ('0a', '\\x0a', 1, 2, '\\x00', 'did:plc:alice')
            """)
        for (recipient, welcome, epoch) in [("did:plc:bob", "\\x5701", 1), ("did:plc:carolcarolcarolcarolcaro", "\\x5701", 1), ("did:plc:dave", "\\x5702", 2)] {
            try database.execute("INSERT INTO welcomes (convo_id, recipient_did, welcome, epoch) VALUES ('0a', $1, $2::bytea, $3)",
                                 [recipient, welcome, Int64(epoch)])
        }

        XCTAssertEqual(try Migrator(directory: TestDatabase.migrations).migrate(database).first, "0010_welcome_messages.sql")
        let stored = try database.query("SELECT count(*) AS n FROM welcome_messages")[0].int("n")
        XCTAssertEqual(stored, 2)
        let rows = try database.query("""
            SELECT w.recipient_did, m.welcome, w.welcome_id FROM welcomes w
            JOIN welcome_messages m ON m.convo_id = w.convo_id AND m.id = w.welcome_id ORDER BY w.recipient_did
            """)
        XCTAssertEqual(try rows.map { try $0.string("recipient_did") }, ["did:plc:bob", "did:plc:carolcarolcarolcarolcaro", "did:plc:dave"])
        XCTAssertEqual(try rows.map { try $0.bytes("welcome") }, [[0x57, 0x01], [0x57, 0x01], [0x57, 0x02]])
        XCTAssertEqual(try rows[0].int64("welcome_id"), try rows[1].int64("welcome_id"))
        XCTAssertNotEqual(try rows[0].int64("welcome_id"), try rows[2].int64("welcome_id"))
        try database.execute("""
            INSERT INTO members (convo_id, leaf_index, joined_epoch, did, credential_identity, credential)
            VALUES ('0a', 2, 1, 'did:plc:carolcarolcarolcarolcaro', 'did:plc:carolcarolcarolcarolcaro', '\\x00')
            """)
        let store = DeliveryStore(database: database)
        XCTAssertEqual(try store.welcome(convoID: "0a", recipient: try DID("did:plc:carolcarolcarolcarolcaro")).welcome, [0x57, 0x01], "served as before")
    }

    /// 0015: a message becomes its own messageEvent. Each messageEvent row moves onto its message
    /// (event_seq), one whose message was purged goes, and the log reads as before.
    func test_messageEventsMigration_movesEachEventOntoItsMessage_andTheLogReadsAsBefore() throws {
        let fresh = try TestDatabase(.database, prefix: "dsmig", poolSize: 1)
        defer { fresh.drop() }
        let database = fresh.database
        try migrate(fresh, before: "0015")
        try database.execute("""
            INSERT INTO convos (convo_id, group_id, cipher_suite, epoch, public_state, creator_did, last_seq, last_event_seq)
            VALUES ('0b', '\\x0b', 1, 1, '\\x00', 'did:plc:alicealicealicealicealic', 4, 6)
            """)
        try database.execute("""
            INSERT INTO members (convo_id, leaf_index, joined_epoch, did, credential_identity, credential)
            VALUES ('0b', 0, 0, 'did:plc:alicealicealicealicealic', 'did:plc:alicealicealicealicealic', '\\x00')
            """)
        // Seq 2's message was purged (its event stays), seq 4's event was purged (its message stays).
        for (seq, msgID, kind) in [(1, "m1", "app"), (3, "commit-0", "commit"), (4, "m4", "app")] {
            try database.execute("""
                INSERT INTO messages (convo_id, seq, msg_id, epoch, message_type, sender_did, ciphertext, size)
                VALUES ('0b', $1, $2, $3, $4, 'did:plc:alicealicealicealicealic', '\\x01', 1)
                """, [Int64(seq), msgID, Int64(seq == 4 ? 1 : 0), kind])
        }
        let payloads = [
            2: #"{"seq": 1, "epoch": 0, "msgId": "m1", "sender": "did:plc:alicealicealicealicealic", "messageType": "app"}"#,
            3: #"{"seq": 2, "epoch": 0, "msgId": "m2", "sender": "did:plc:alicealicealicealicealic", "messageType": "app"}"#,
            4: #"{"seq": 3, "epoch": 0, "msgId": "commit-0", "sender": "did:plc:alicealicealicealicealic", "messageType": "commit"}"#,
        ]
        try database.execute("""
            INSERT INTO events (convo_id, event_seq, type, payload) VALUES
                ('0b', 1, 'membershipChangeEvent', '{"did": "did:plc:alicealicealicealicealic", "epoch": 0, "action": "joined"}'),
                ('0b', 2, 'messageEvent', $1), ('0b', 3, 'messageEvent', $2), ('0b', 4, 'messageEvent', $3),
                ('0b', 5, 'epochAdvanced', '{"epoch": 1, "commitSeq": 3}')
            """, [payloads[2], payloads[3], payloads[4]])

        XCTAssertEqual(try Migrator(directory: TestDatabase.migrations).migrate(database).first,
                       "0015_message_events_in_messages.sql")
        XCTAssertEqual(try database.query("SELECT count(*) AS n FROM events WHERE type = 'messageEvent'")[0].int("n"), 0)
        let moved = try database.query("SELECT seq, event_seq FROM messages ORDER BY seq")
        XCTAssertEqual(try moved.map { try $0.int64("seq") }, [1, 3, 4])
        XCTAssertEqual(try moved.map { try $0.optionalInt64("event_seq") }, [2, 4, nil])

        let store = DeliveryStore(database: database)
        let log = try store.events(convoID: "0b")
        XCTAssertEqual(log.map(\.seq), [1, 2, 4, 5])
        XCTAssertEqual(log.map(\.kind), [.membershipChangeEvent, .messageEvent, .messageEvent, .epochAdvanced])
        XCTAssertEqual(log[1].payload, payloads[2], "the payload jsonb printed before")
        XCTAssertEqual(log[2].payload, payloads[4])
        // A new message takes the counter's next event seq.
        let sent = try store.appendMessage(NewMessage(convoID: "0b", msgID: "m5", epoch: 1, senderDID: try DID("did:plc:alicealicealicealicealic"),
                                                      content: .ciphertext([1])))
        XCTAssertEqual(sent.seq, 5)
        XCTAssertEqual(try store.events(convoID: "0b", afterSeq: 5).map(\.seq), [7])
        XCTAssertEqual(try store.eventsWithMessages(convoID: "0b", afterSeq: 0, limit: 10).map { $0.message?.msgID },
                       [nil, "m1", "commit-0", nil, "m5"])
    }

    /// Every conversation-scoped key starts with convo_id, so the tables can be distributed by it.
    func test_conversationScopedKeys_startWithConvoID() throws {
        let fixture = try StoreFixture(poolSize: 1)
        defer { fixture.drop() }
        let rows = try fixture.database.query("""
            SELECT t.relname AS tbl, i.relname AS idx,
                   (SELECT a.attname FROM pg_attribute a WHERE a.attrelid = t.oid AND a.attnum = x.indkey[0]) AS first_col
            FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
            JOIN pg_namespace n ON n.oid = t.relnamespace
            WHERE n.nspname = $1 AND x.indisunique
              AND t.relname IN ('convos', 'members', 'messages', 'commits', 'welcomes', 'pending_proposals', 'events')
            """, [fixture.schema])
        XCTAssertGreaterThanOrEqual(rows.count, 8)
        for row in rows {
            let index = try row.string("idx")
            XCTAssertEqual(try row.string("first_col"), "convo_id", index)
        }
    }

    /// Applies the repository's migrations numbered below `version` to `fresh`, as a database
    /// deployed before `version` would hold them.
    private func migrate(_ fresh: TestDatabase, before version: String) throws {
        let before = FileManager.default.temporaryDirectory.appendingPathComponent("migrations-before-\(version)-\(fresh.name)")
        try FileManager.default.createDirectory(at: before, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: before) }
        for file in try FileManager.default.contentsOfDirectory(atPath: TestDatabase.migrations.path) where file < version {
            try FileManager.default.copyItem(at: TestDatabase.migrations.appendingPathComponent(file), to: before.appendingPathComponent(file))
        }
        try Migrator(directory: before).migrate(fresh.database)
    }
}

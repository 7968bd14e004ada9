import Basics
import Foundation
import Store

extension DeliveryTransaction {
    /// Records `did`'s storage, replacing any earlier registration. The caller validates the
    /// values; the table's checks (provider, endpoint length, config size) are the backstop.
    public func registerStorage(did: DID, provider: StorageProvider) throws(DeliveryStoreError) -> StorageRegistration {
        try guarded {
            let rows = try connection.query("""
                INSERT INTO user_storage (did, provider, endpoint, config, registered_at)
                VALUES ($1, $2, $3, $4::jsonb, clock_timestamp())
                ON CONFLICT (did) DO UPDATE SET provider = EXCLUDED.provider, endpoint = EXCLUDED.endpoint,
                    config = EXCLUDED.config, registered_at = EXCLUDED.registered_at
                RETURNING \(StorageRegistration.columns)
                """, [did, provider.type.rawValue, provider.endpoint, try StorageProvider.configJSON(provider.config)])
            guard let row = rows.first else { throw StoreError.decoding("no row from the storage upsert") }
            return try StorageRegistration(row: row)
        }
    }

    /// `did`'s registration, or nil.
    public func storage(did: DID) throws(DeliveryStoreError) -> StorageRegistration? {
        try guarded {
            let rows = try connection.query("SELECT \(StorageRegistration.columns) FROM user_storage WHERE did = $1", [did])
            return try rows.first.map(StorageRegistration.init(row:))
        }
    }

    /// The conversation's current members other than `senderDID`, one entry per DID (however many
    /// leaves it holds), ordered by DID, each with its storage registration if any.
    public func recipients(convoID: String, excluding senderDID: DID) throws(DeliveryStoreError) -> [MessageRecipient] {
        try guarded {
            let rows = try connection.query("""
                SELECT m.did, s.provider, s.endpoint, s.config::text AS config
                FROM (SELECT DISTINCT did FROM members WHERE convo_id = $1 AND left_at IS NULL AND did <> $2) m
                LEFT JOIN user_storage s ON s.did = m.did
                ORDER BY m.did
                """, [convoID, senderDID])
            return try rows.map { row in
                let storage = try row.optionalString("provider").map { _ in try StorageProvider(row: row) }
                return MessageRecipient(did: try row.string("did"), storage: storage)
            }
        }
    }
}

extension StorageRegistration {
    static let columns = "did, provider, endpoint, config::text AS config, registered_at"

    init(row: PGRow) throws {
        self.init(did: try row.string("did"), provider: try StorageProvider(row: row),
                  registeredAt: try row.date("registered_at"))
    }
}

extension StorageProvider {
    init(row: PGRow) throws {
        guard let type = StorageProviderType(rawValue: try row.string("provider")) else {
            throw StoreError.decoding("unknown storage provider")
        }
        guard let config = try? JSONDecoder().decode([String: String].self, from: Data(try row.string("config").utf8)) else {
            throw StoreError.decoding("storage config is not an object of strings")
        }
        self.init(type: type, endpoint: try row.optionalString("endpoint"), config: config)
    }

    static func configJSON(_ config: [String: String]) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return String(decoding: try encoder.encode(config), as: UTF8.self)
    }
}

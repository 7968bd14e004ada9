import Basics
import Foundation
import Store

/// A response to replay for a repeated idempotency key: the HTTP status and the encoded body.
public struct StoredResponse: Sendable, Hashable {
    public var status: Int
    public var body: [UInt8]

    public init(status: Int, body: [UInt8]) {
        self.status = status
        self.body = body
    }
}

/// The outcome of `idempotent`: the body ran now, or an earlier response was found.
public enum IdempotentOutcome: Sendable, Equatable {
    case fresh(StoredResponse)
    case replayed(StoredResponse)

    public var response: StoredResponse {
        switch self {
        case .fresh(let response), .replayed(let response): response
        }
    }

    public var isReplay: Bool {
        if case .replayed = self { return true }
        return false
    }
}

extension DeliveryStore {
    /// Runs `body` at most once per (caller, method, key) within the idempotency lifetime.
    ///
    /// In one transaction: the key is claimed by inserting its row (a concurrent duplicate waits
    /// on the primary key until this transaction ends); if it was already stored, the stored
    /// response is returned and `body` does not run; otherwise `body` runs on the same
    /// transaction and its response is stored with its effect, so both commit or neither does.
    /// A body that throws stores nothing, so the request can be retried; its error is rethrown
    /// as it is (Store errors become `DeliveryStoreError.database`).
    public func idempotent(
        caller: DID, method: String, key: String, _ body: (DeliveryTransaction) throws -> StoredResponse
    ) throws -> IdempotentOutcome {
        try transaction { transaction in
            if let stored = try transaction.claimIdempotencyKey(caller: caller, method: method, key: key) {
                return .replayed(stored)
            }
            let response = try body(transaction)
            try transaction.storeIdempotentResponse(caller: caller, method: method, key: key, response)
            return .fresh(response)
        }
    }

    /// Deletes idempotency records older than the configured lifetime; returns how many.
    @discardableResult
    public func deleteExpiredIdempotencyRecords() throws(DeliveryStoreError) -> Int {
        try run { transaction throws(DeliveryStoreError) in
            try guarded {
                try transaction.connection.execute("""
                    DELETE FROM idempotency WHERE created_at < clock_timestamp() - $1 * interval '1 second'
                    """, [transaction.configuration.idempotencyLifetime])
            }
        }
    }
}

extension DeliveryTransaction {
    /// Claims the key for this transaction, or returns the response stored under it. A record
    /// past the lifetime is claimed afresh.
    func claimIdempotencyKey(caller: DID, method: String, key: String) throws -> StoredResponse? {
        let claimed = try connection.query("""
            INSERT INTO idempotency AS i (caller_did, method, key) VALUES ($1, $2, $3)
            ON CONFLICT (caller_did, method, key) DO UPDATE
                SET response_status = NULL, response_body = NULL, created_at = clock_timestamp()
                WHERE i.created_at < clock_timestamp() - $4 * interval '1 second'
            RETURNING 1 AS claimed
            """, [caller, method, key, configuration.idempotencyLifetime])
        guard claimed.isEmpty else { return nil }
        let rows = try connection.query("""
            SELECT response_status, response_body FROM idempotency WHERE caller_did = $1 AND method = $2 AND key = $3
            """, [caller, method, key])
        guard let row = rows.first, let status = try row.optionalInt("response_status") else {
            throw StoreError.decoding("idempotency record without a response")
        }
        return StoredResponse(status: status, body: try row.optionalBytes("response_body") ?? [])
    }

    func storeIdempotentResponse(caller: DID, method: String, key: String, _ response: StoredResponse) throws {
        try connection.execute("""
            UPDATE idempotency SET response_status = $4, response_body = $5
            WHERE caller_did = $1 AND method = $2 AND key = $3
            """, [caller, method, key, Int32(clamping: response.status), response.body])
    }
}

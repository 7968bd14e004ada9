import Foundation
import Primitives
import Store

/// The database side of tickets, shared by every node: the ids already used (until they expire)
/// and the HMAC key when the environment does not fix one.
final class SubscriptionTicketStore: Sendable {
    private let database: Database

    init(database: Database) {
        self.database = database
    }

    /// Records the ticket as used; false if it was used before. One statement, atomic across
    /// nodes, committed synchronously like the replay store, so a used ticket stays used after a
    /// crash or a failover.
    func consume(_ ticket: SubscriptionTicket) throws -> Bool {
        let inserted = try database.execute("""
            INSERT INTO subscription_tickets (ticket_id, expires_at) VALUES ($1, $2)
            ON CONFLICT (ticket_id) DO NOTHING
            """, [ticket.id, ticket.expiresAt])
        return inserted == 1
    }

    /// Forgets tickets that can no longer pass the expiry check; returns how many.
    @discardableResult
    func deleteExpired(now: Date) throws -> Int {
        try database.execute("DELETE FROM subscription_tickets WHERE expires_at < $1", [now])
    }

    /// The shared secret `name`: created with 32 random bytes by the first node, read by all.
    func sharedSecret(_ name: String) throws -> [UInt8] {
        try database.execute("INSERT INTO service_secrets (name, secret) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING",
                             [name, SecureRandom.bytes(32)])
        guard let row = try database.query("SELECT secret FROM service_secrets WHERE name = $1", [name]).first else {
            throw StoreError.decoding("service secret \(name) missing")
        }
        return try row.bytes("secret")
    }
}

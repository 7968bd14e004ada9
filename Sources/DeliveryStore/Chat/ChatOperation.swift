import ChatProtocol
import Foundation
import Store

/// A signed operation the service completed (or refused for good), by its client-chosen id.
public struct ChatOperation: Sendable {
    public var requestDigest: [UInt8]
    public var signature: [UInt8]
    /// The HTTP status and body it was answered with.
    public var status: Int
    public var response: [UInt8]

    public init(requestDigest: [UInt8], signature: [UInt8], status: Int, response: [UInt8]) {
        self.requestDigest = requestDigest
        self.signature = signature
        self.status = status
        self.response = response
    }
}

extension ChatTransaction {
    /// The operation `id` of this kind by this actor, if one was recorded.
    public func operation(actor: String, kind: String, id: ChatUUID) throws -> ChatOperation? {
        try connection.query("""
            SELECT request_digest, signature, status, response FROM chat_operations WHERE actor_did = $1 AND kind = $2 AND operation_id = $3
            """, [actor, kind, id]).first.map { row in
            ChatOperation(requestDigest: try row.bytes("request_digest"), signature: try row.bytes("signature"),
                          status: try row.int("status"), response: try row.bytes("response"))
        }
    }

    /// Records the answer to an operation; false if another transaction recorded it first (the
    /// caller then answers from that record).
    @discardableResult
    public func record(actor: String, kind: String, id: ChatUUID, _ operation: ChatOperation) throws -> Bool {
        try connection.execute("""
            INSERT INTO chat_operations (actor_did, kind, operation_id, request_digest, signature, status, response, created_at)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT DO NOTHING
            """, [actor, kind, id, operation.requestDigest, operation.signature, Int64(operation.status), operation.response, now]) == 1
    }
}

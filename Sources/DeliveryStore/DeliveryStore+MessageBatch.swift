import Foundation
import Store

/// An application message for `appendMessages`, with the token that authorised it.
public struct BatchedMessage: Sendable, Equatable {
    public var message: NewMessage
    /// Remembered in the batch's transaction; nil when the caller recorded the token itself.
    public var replay: ReplayRecord?

    public init(_ message: NewMessage, replay: ReplayRecord? = nil) {
        self.message = message
        self.replay = replay
    }
}

/// What `appendMessages` did with one message.
public struct BatchedAppend: Sendable, Equatable {
    public var result: Result<AppendedMessage, DeliveryStoreError>
    /// Whether the message's replay record is committed (or was found, for `tokenReplayed`): the
    /// token is used up whatever the result. False when its transaction rolled back.
    public var replayRecorded: Bool
}

extension DeliveryStore {
    /// Appends many messages, for one conversation or several, in one transaction that costs one
    /// round trip and one WAL flush: group commit for sendMessage.
    ///
    /// Each message gets exactly the answer `appendMessage` would give it (the same checks, in
    /// the same order, with the token's replay check first), and refusals are per message: a bad
    /// one does not hold back the rest. Seqs are dense per conversation, in the order of
    /// `messages`. Two messages with the same (convo, msgId) or the same token must not share a
    /// batch (`MessageBatcher` keeps them apart); such a batch is refused with `invalidArgument`.
    ///
    /// The transaction locks the conversations' rows (sorted, so batches never deadlock each
    /// other) in one statement and checks and writes in the next, whose snapshot is taken after
    /// the locks: membership and epoch are read as the last commit left them. If the batch as a
    /// whole fails for a reason no message check foresaw, each message is retried in a
    /// transaction of its own, so the failure stays with the messages it concerns.
    public func appendMessages(_ batch: [BatchedMessage]) -> [BatchedAppend] {
        var outcomes = [BatchedAppend?](repeating: nil, count: batch.count)
        var valid: [Int] = []
        for (index, item) in batch.enumerated() {
            if let problem = Self.argumentProblem(item.message) {
                outcomes[index] = BatchedAppend(result: .failure(.invalidArgument(problem)), replayRecorded: false)
            } else {
                valid.append(index)
            }
        }
        guard !valid.isEmpty else { return outcomes.map { $0! } }
        let items = valid.map { batch[$0] }
        let stored: [BatchedAppend]
        do {
            stored = try appendInForms(items)
        } catch .database(let error) where error.meansDatabaseUnreachable {
            // Alone, each message would fail the same way.
            stored = items.map { _ in BatchedAppend(result: .failure(.database(error)), replayRecorded: false) }
        } catch {
            stored = items.map(appendAlone)
        }
        for (index, outcome) in zip(valid, stored) { outcomes[index] = outcome }
        return outcomes.map { $0! }
    }

    /// The batch in its fresh form; after a repeated msgId or token, checked; after a sender's
    /// charge that did not fit as the batch read it unlocked (it is near its quota, or its usage
    /// moved meanwhile), locked: exact for every message (`MessageBatchSQL.Form`).
    private func appendInForms(_ items: [BatchedMessage]) throws(DeliveryStoreError) -> [BatchedAppend] {
        var form = MessageBatchSQL.Form.fresh
        while true {
            do {
                return try appendValidated(items, form: form)
            } catch {
                guard case .database(let failure) = error, let next = form.fallback(after: failure) else { throw error }
                form = next
            }
        }
    }

    /// One message in its own transaction: the batch's fallback.
    func appendAlone(_ item: BatchedMessage) -> BatchedAppend {
        do {
            let appended = try run { transaction throws(DeliveryStoreError) in
                if let replay = item.replay { try transaction.recordReplay(replay) }
                return try transaction.appendMessage(item.message)
            }
            return BatchedAppend(result: .success(appended), replayRecorded: item.replay != nil)
        } catch {
            return BatchedAppend(result: .failure(error), replayRecorded: false)
        }
    }

    /// The argument checks `appendMessage` makes before touching the database.
    static func argumentProblem(_ message: NewMessage) -> String? {
        if message.msgID.isEmpty { return "empty msgID" }
        let size: Int
        switch message.content {
        case .ciphertext(let bytes): size = bytes.count
        case .external(let sha256, let declared):
            guard sha256.count == 32 else { return "a SHA-256 hash is 32 bytes" }
            size = declared
        }
        let padded = message.paddedSize ?? 0
        guard size >= 0, size <= Int(Int32.max), padded >= 0, padded <= Int(Int32.max) else { return "size out of range" }
        return nil
    }

    private func appendValidated(_ items: [BatchedMessage], form: MessageBatchSQL.Form) throws(DeliveryStoreError) -> [BatchedAppend] {
        let messages = items.map(\.message)
        guard Set(messages.map { [$0.convoID, $0.msgID] }).count == items.count,
              Set(items.compactMap { $0.replay?.key }).count == items.compactMap(\.replay).count else {
            throw .invalidArgument("a batch holds a msgId or a token twice")
        }
        let convoIDs = Array(Set(messages.map(\.convoID))).sorted()
        let parameters: [(any PGBindable)?] = [
            PGArray(messages.map(\.convoID)), PGArray(messages.map(\.msgID)), PGArray(messages.map(\.epoch)),
            PGArray(messages.map(\.senderDID.rawValue)),
            PGArray(messages.map { message -> [UInt8]? in
                if case .ciphertext(let bytes) = message.content { return bytes } else { return nil }
            }),
            PGArray(messages.map { message -> [UInt8]? in
                if case .external(let sha256, _) = message.content { return sha256 } else { return nil }
            }),
            PGArray(messages.map { message -> Int32 in
                switch message.content {
                case .ciphertext(let bytes): Int32(bytes.count)
                case .external(_, let size): Int32(size)
                }
            }),
            PGArray(messages.map { $0.paddedSize.map { Int32($0) } }),
            PGArray(items.map { $0.replay?.iss }), PGArray(items.map { $0.replay?.jti }),
            PGArray(items.map { $0.replay?.until }),
            configuration.acceptsPreviousEpochMessages, configuration.messageQuotaBytes,
        ]
        let senders = PGArray(Array(Set(messages.map(\.senderDID.rawValue))).sorted())
        // Optimistic unless retrying: the senders' quota rows are charged at the statement's end
        // (MessageBatchSQL), or locked first.
        let quotaLocks = form == .locked
            ? [PGStatement(MessageQuotaSQL.ensureUsage, [senders]), PGStatement(MessageQuotaSQL.lockUsage, [senders])] : []
        let statements = [PGStatement(MessageBatchSQL.lockConvos, [PGArray(convoIDs)])]
            + quotaLocks + [PGStatement(form.sql(pushing: configuration.pushEnabled), parameters)]
        let announce = PGStatement(MessageBatchSQL.announce, [configuration.eventChannel, PGArray(convoIDs)])
        let committed = try guarded { try database.pipelinedTransaction(statements, afterCommit: [announce]) }
        if committed.afterCommitFailure != nil {
            // The messages are committed whatever happens here. Once more on any connection; if the
            // database is gone, the listeners lose their connection too, and re-read every log
            // they follow when they are back (EventHub).
            _ = try? database.query(announce.sql, announce.parameters)
        }
        let rows = committed.rows[statements.count - 1]
        guard rows.count == items.count else {
            throw .database(.decoding("the batch answered \(rows.count) rows for \(items.count) messages"))
        }
        return try guarded {
            try rows.map { row in
                let outcome = try BatchRowOutcome(row: row, quota: configuration.messageQuotaBytes)
                return BatchedAppend(result: outcome.result, replayRecorded: true)
            }
        }
    }
}

extension StoreError {
    fileprivate var meansDatabaseUnreachable: Bool {
        switch self {
        case .unavailable, .poolTimeout: true
        default: false
        }
    }
}

/// One row of the append's answer, in any of its forms (`MessageBatchSQL.Form`).
private struct BatchRowOutcome {
    let result: Result<AppendedMessage, DeliveryStoreError>

    init(row: PGRow, quota: Int64) throws {
        switch try row.string("status") {
        case "stored", "duplicate":
            result = .success(AppendedMessage(seq: try row.int64("seq"), receivedAt: try row.date("at"),
                                              epoch: try row.int64("epoch"), duplicate: try row.string("status") == "duplicate"))
        case "replayed": result = .failure(.tokenReplayed)
        case "convoNotFound": result = .failure(.convoNotFound)
        case "notMember": result = .failure(.notMember)
        case "messageIdConflict": result = .failure(.messageIDConflict)
        case "groupFrozen": result = .failure(.groupFrozen)
        case "epochMismatch": result = .failure(.epochMismatch(current: try row.int64("current_epoch")))
        case "quotaExceeded": result = .failure(.messageQuotaExceeded(used: try row.int64("used_before"), quota: quota))
        case let status: throw StoreError.decoding("unknown batch status \(status)")
        }
    }
}

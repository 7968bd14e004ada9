import ChatProtocol
import DeliveryStore
import Dispatch
import Foundation
import Synchronization

/// Typing indicators on this node (docs/chat.md, "Typing"): the rate rule per device and
/// conversation (`ChatTypingLimiter`), each event announced to every node on `chat_typing`
/// (`ChatTypingNotice`), whose event hub hands it to the recipients' subscriptions there, and the
/// answers to `typingId`s seen in their events' lifetime, so that a repeated request gets the same
/// answer and nothing is sent twice. Nothing here is written to a table.
final class ChatTyping: Sendable {
    struct Key: Hashable, Sendable {
        let did: String
        let device: ChatUUID
        let conversation: ChatUUID
    }

    private struct Answer {
        let requestDigest: [UInt8]
        let signature: [UInt8]
        let event: ChatTypingEvent
    }

    let settings: ChatTypingSettings
    private let store: DeliveryStore
    private let log: Log
    private let clock: @Sendable () -> Date
    private let limiter: Mutex<ChatTypingLimiter<Key, ChatTypingNotice>>
    private let answers = Mutex<[String: Answer]>([:])
    /// Typing ids remembered at most (each for its event's 8 s).
    static let maxAnswers = 100_000

    init(settings: ChatTypingSettings, store: DeliveryStore, log: Log, clock: @escaping @Sendable () -> Date) {
        self.settings = settings
        self.store = store
        self.log = log
        self.clock = clock
        limiter = Mutex(ChatTypingLimiter(interval: settings.interval, burst: settings.burst))
    }

    /// The event answered before for this typing id, if the request is the same; a different
    /// request with the id is `IdempotencyConflict`.
    func answered(_ request: SignedRequest, typingID: ChatUUID) throws -> ChatTypingEvent? {
        let now = CanonicalTimestamp(clock())
        guard let answer = answers.withLock({ $0["\(request.actorDID) \(typingID)"] }), answer.event.expiresAt > now else { return nil }
        guard answer.requestDigest == request.requestDigest, answer.signature == request.signature else {
            throw ChatRefusal(.idempotencyConflict, "this typingId was used for another request")
        }
        return answer.event
    }

    /// Counts a call of `key` against its burst: `RateLimited` past it.
    func admit(_ key: Key) throws {
        let now = clock()
        guard let wait = limiter.withLock({ $0.admit(key, now: now) }) else { return }
        throw ChatRefusal(.rateLimited, "too many typing indicators for this conversation; wait for the interval to end",
                          retryAfter: Int(wait.rounded(.up)))
    }

    /// Sends the event of an admitted call now, or folds it into the event the interval's end sends.
    func publish(_ key: Key, _ notice: ChatTypingNotice, request: SignedRequest) throws {
        let now = clock()
        answers.withLock { answers in
            if answers.count >= Self.maxAnswers {
                let current = CanonicalTimestamp(now)
                answers = answers.filter { $0.value.event.expiresAt > current }
                if answers.count >= Self.maxAnswers { answers.removeAll() }
            }
            answers["\(request.actorDID) \(notice.event.typingID)"] = Answer(requestDigest: request.requestDigest,
                                                                             signature: request.signature, event: notice.event)
        }
        switch limiter.withLock({ $0.publish(key, notice, now: now) }) {
        case .send:
            try announce(notice)
        case .fold(let at, let schedule):
            guard schedule else { return }
            DispatchQueue.global().asyncAfter(deadline: .now() + max(0, at.timeIntervalSince(now))) { [self] in
                guard let due = limiter.withLock({ $0.flush(key, now: clock()) }), due.event.expiresAt > CanonicalTimestamp(clock()) else { return }
                do { try announce(due) } catch { log.warning("a folded typing event could not be announced", [:]) }
            }
        }
    }

    /// NOTIFY on `chat_typing`: every node's event hub, this one's included, delivers it.
    private func announce(_ notice: ChatTypingNotice) throws {
        guard !notice.recipients.isEmpty else { return }
        _ = try store.chat { try $0.connection.execute("SELECT pg_notify($1, $2)", [ChatTypingNotice.channel, notice.payload]) }
    }
}

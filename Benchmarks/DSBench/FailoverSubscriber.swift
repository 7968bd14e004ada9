import Basics
import Foundation
import Synchronization

/// A subscribeConvoEvents socket of `ds-bench failover`, on one service node, following one
/// conversation as a client would: every messageEvent's eventSeq must follow the one before (no
/// gap, no repeat); when the socket closes, a new ticket and the last cursor resume it.
final class FailoverSubscriber: Sendable {
    struct Receipt: Sendable {
        let seq: Int64
        let ciphertext: [UInt8]
    }

    struct State: Sendable {
        /// Every messageEvent by msgId, in the order received.
        var received: [String: [Receipt]] = [:]
        var lastEventSeq: Int64?
        var cursor: String?
        var problems: [String] = []
        var reconnects = 0
    }

    let user: BenchUser
    let node: XRPCClient
    let port: Int
    let convoID: String
    private let state = Mutex(State())
    private let running = Atomic<Bool>(true)

    init(user: BenchUser, node: XRPCClient, convoID: String) throws {
        guard let port = node.baseURL.split(separator: ":").last.flatMap({ Int($0) }) else {
            throw BenchError.usage("server URLs must be http://127.0.0.1:PORT")
        }
        self.user = user
        self.node = node
        self.port = port
        self.convoID = convoID
    }

    var snapshot: State { state.withLock { $0 } }

    /// Opens the socket (retrying while the service answers 503) and reads it on a thread of its
    /// own until `stop`; returns once the first socket is open.
    func start() throws -> DispatchGroup {
        let first = Box(try open(cursor: nil))
        return Threads.start(1) { [self] _ in
            var socket = first.value
            var scratch = [UInt8](repeating: 0, count: 1 << 16)
            while running.load(ordering: .relaxed) {
                do {
                    try socket.receive(scratch: &scratch) { payload in self.handle(payload) }
                } catch {
                    socket.markFailed()
                }
                if socket.closeCode != nil {
                    socket.socket.close()
                    guard let reopened = reopen() else { return }
                    socket = reopened
                }
                usleep(2_000)
            }
            socket.socket.close()
        }
    }

    func stop() { running.store(false, ordering: .relaxed) }

    private func reopen() -> EventSubscriber? {
        let cursor = state.withLock { state in
            state.reconnects += 1
            return state.cursor
        }
        while running.load(ordering: .relaxed) {
            if let socket = try? open(cursor: cursor) { return socket }
            usleep(200_000)
        }
        return nil
    }

    /// A ticket from this subscriber's node, then the upgrade; both retried on 503 for up to 60 s.
    private func open(cursor: String?) throws -> EventSubscriber {
        let deadline = ProcessClock.now() + 60_000_000_000
        while true {
            do {
                let reply = try node.call(EventsBench.ticketNSID, as: user, json: ["convoId": convoID])
                guard let ticket = reply["ticket"] as? String else { throw BenchError.unexpected("getSubscriptionTicket gave no ticket") }
                return try EventSubscriber(port: port, ticket: ticket, cursor: cursor)
            } catch {
                guard ProcessClock.now() < deadline, BenchError.isUnavailable(error) else { throw error }
                usleep(200_000)
            }
        }
    }

    private func handle(_ payload: [UInt8]) {
        guard let event = (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any] else {
            state.withLock { $0.problems.append("a frame that is not a JSON object") }
            return
        }
        let type = event["$type"] as? String ?? ""
        state.withLock { state in
            if let cursor = event["cursor"] as? String { state.cursor = cursor }
            guard type.hasSuffix("#messageEvent") else {
                state.problems.append("unexpected \(type): \(String(decoding: payload.prefix(200), as: UTF8.self))")
                return
            }
            guard let eventSeq = (event["eventSeq"] as? NSNumber)?.int64Value, let seq = (event["seq"] as? NSNumber)?.int64Value,
                  let msgID = event["msgId"] as? String,
                  let message = event["message"] as? [String: Any], let ciphertext = message["ciphertext"] as? [String: Any],
                  let text = ciphertext["$bytes"] as? String, let bytes = Base64.decode(text) else {
                state.problems.append("a messageEvent without eventSeq, seq, msgId or inline ciphertext")
                return
            }
            if let last = state.lastEventSeq, eventSeq != last + 1 {
                state.problems.append(eventSeq <= last ? "eventSeq \(eventSeq) again after \(last)" : "eventSeq \(last + 1)…\(eventSeq - 1) never came")
            }
            state.lastEventSeq = max(state.lastEventSeq ?? eventSeq, eventSeq)
            state.received[msgID, default: []].append(Receipt(seq: seq, ciphertext: bytes))
        }
    }
}

/// Hands a value to the one thread that owns it from then on.
private final class Box<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

import Foundation
import HTTP
import MLS
import Synchronization

/// The sendMessage load of `ds-bench failover`: one thread per sender, each a member with its own
/// MLS group state, encrypting a fresh message (its own bytes and msgId) for every call and sending
/// it to the service nodes in turn. A 503 is retried with the same message and a fresh token (the
/// server deduplicates msgIds, so a retry of a message that did commit gets its first answer);
/// anything else ends that message. Every call's send and answer times and status are kept.
final class FailoverLoad: Sendable {
    static let nsid = SendMessageData.nsid

    struct Ack: Sendable {
        let msgID: String
        let seq: Int64
        let ciphertext: [UInt8]
    }

    struct Call: Sendable {
        let sentAt: UInt64
        let answeredAt: UInt64
        /// The HTTP status, or 0 when the call failed without one (refused, reset, timed out).
        let status: Int
        let retryAfter: Bool
    }

    struct Log: Sendable {
        var acks: [Ack] = []
        var calls: [Call] = []
        /// Messages given up on, each with why (an unexpected answer, or 503s past the deadline).
        var unacknowledged: [String] = []
    }

    let nodes: [XRPCClient]
    let convoID: String
    /// Seconds a message keeps being retried on 503 before it is given up.
    let retryDeadline: Double
    private let http: HTTPClient
    private let log = Mutex(Log())
    private let running = Atomic<Bool>(true)
    private let ids = MessageIDs()
    private let next = Atomic<Int>(0)

    init(nodes: [XRPCClient], convoID: String, requestTimeout: Double, retryDeadline: Double) {
        self.nodes = nodes
        self.convoID = convoID
        self.retryDeadline = retryDeadline
        http = HTTPClient(timeout: requestTimeout, maxBodySize: 1 << 20, allowPrivateAddresses: true)
    }

    var snapshot: Log { log.withLock { $0 } }

    /// Starts one thread per sender; the group is left once `stop` was called and each thread's
    /// message in hand is answered or given up.
    func start(senders: [(user: BenchUser, group: Group)]) -> DispatchGroup {
        let senders = senders.map { SenderState(user: $0.user, group: $0.group) }
        return Threads.start(senders.count) { [self] index in
            let sender = senders[index]
            var turn = index
            while running.load(ordering: .relaxed) {
                send(one: sender, turn: &turn)
            }
        }
    }

    func stop() { running.store(false, ordering: .relaxed) }

    /// Sends one message from `sender` now (the subscribers' warm-up); true when it was acknowledged.
    func sendOne(from user: BenchUser, group: inout Group) -> Bool {
        let sender = SenderState(user: user, group: group)
        var turn = 0
        let before = log.withLock { $0.acks.count }
        send(one: sender, turn: &turn)
        group = sender.group
        return log.withLock { $0.acks.count } > before
    }

    private func send(one sender: SenderState, turn: inout Int) {
        let index = next.add(1, ordering: .relaxed).newValue
        let msgID = ids.id(index)
        let plaintext = Array("failover message \(index) from \(sender.user.did.rawValue)".utf8)
        let ciphertext: [UInt8]
        let epoch: UInt64
        do {
            ciphertext = try sender.group.encrypt(plaintext).encoded()
            epoch = sender.group.epoch
        } catch {
            log.withLock { $0.unacknowledged.append("\(msgID): encrypt failed: \(error)") }
            stop()
            return
        }
        let body = Array(("{\"convoId\":\"\(convoID)\",\"epoch\":\(epoch),\"ciphertext\":{\"$bytes\":\""
            + WireFormat.base64(ciphertext) + "\"},\"msgId\":\"\(msgID)\"}").utf8)
        let deadline = ProcessClock.now() + UInt64(retryDeadline * 1e9)
        while true {
            let node = nodes[turn % nodes.count]
            turn += 1
            let sentAt = ProcessClock.now()
            let response: HTTPClientResponse
            do {
                let token = try sender.user.token(audience: node.audience, nsid: Self.nsid)
                response = try http.send(method: "POST", node.baseURL + "/xrpc/" + Self.nsid,
                                         headers: [("Authorization", "Bearer " + token), ("Content-Type", "application/json")],
                                         body: body)
            } catch {
                let answeredAt = ProcessClock.now()
                log.withLock {
                    $0.calls.append(Call(sentAt: sentAt, answeredAt: answeredAt, status: 0, retryAfter: false))
                    $0.unacknowledged.append("\(msgID): no answer from \(node.baseURL): \(error)")
                }
                return
            }
            let answeredAt = ProcessClock.now()
            let call = Call(sentAt: sentAt, answeredAt: answeredAt, status: response.status,
                            retryAfter: response.header("Retry-After") != nil)
            if (200..<300).contains(response.status) {
                let reply = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
                let seq = (reply?["seq"] as? NSNumber)?.int64Value
                log.withLock {
                    $0.calls.append(call)
                    if let seq {
                        $0.acks.append(Ack(msgID: msgID, seq: seq, ciphertext: ciphertext))
                    } else {
                        $0.unacknowledged.append("\(msgID): \(response.status) without a seq")
                    }
                }
                return
            }
            let pastDeadline = answeredAt > deadline
            log.withLock {
                $0.calls.append(call)
                if response.status != 503 {
                    $0.unacknowledged.append("\(msgID): \(response.status) \(String(decoding: response.body.prefix(200), as: UTF8.self))")
                } else if pastDeadline {
                    $0.unacknowledged.append("\(msgID): still 503 after \(retryDeadline) s")
                }
            }
            if response.status != 503 || pastDeadline { return }
            usleep(100_000)
        }
    }
}

/// A sender's MLS state, used by its one thread only.
private final class SenderState: @unchecked Sendable {
    let user: BenchUser
    var group: Group

    init(user: BenchUser, group: Group) {
        self.user = user
        self.group = group
    }
}

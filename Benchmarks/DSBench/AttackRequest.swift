import Foundation
import Synchronization

/// One request as the abuse bench's attacker sends it: its own connection from `source` (another
/// address of 127.0.0.0/8 than the known user's, so that the server's per-address limits see two
/// clients), `Connection: close`, the whole body written whatever the server answered meanwhile
/// (as an attacker would: a server that refuses from the head still has to drain or drop it), and
/// the answer read to its end.
struct AttackRequest {
    let port: Int
    let source: String

    struct Answer {
        /// 0: the connection ended (or the time ran out) before a status line.
        var status: Int
        /// The XRPC error name of a JSON error body.
        var error: String?
        var body: [UInt8]

        init(status: Int, error: String? = nil, body: [UInt8] = []) {
            self.status = status
            self.body = body
            self.error = error ?? ((try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any])?["error"] as? String
        }

        /// "400 InvalidWelcome", "200", "no answer".
        var label: String {
            status == 0 ? error ?? "no answer" : error.map { "\(status) \($0)" } ?? "\(status)"
        }

        var json: [String: Any] {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] ?? [:]
        }
    }

    /// An XRPC call: `POST` with a JSON body, or `GET` with `query` (already encoded).
    func xrpc(_ nsid: String, token: String?, query: String = "", json body: [UInt8]? = nil) -> Answer {
        let path = "/xrpc/" + nsid + (query.isEmpty ? "" : "?" + query)
        var head = (body == nil ? "GET " : "POST ") + path + " HTTP/1.1\r\nHost: bench\r\n"
        if let token { head += "Authorization: Bearer \(token)\r\n" }
        if let body { head += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n" }
        return send(head + "Connection: close\r\n\r\n", body: body ?? [])
    }

    func send(_ head: String, body: [UInt8] = [], timeout: Int = 30) -> Answer {
        guard let socket = try? LoopbackSocket.connect(port: port, from: source, timeout: timeout) else {
            return Answer(status: 0, error: "connect failed")
        }
        defer { socket.close() }
        do {
            try socket.sendAll(Array(head.utf8), retryingWhenFull: false)
            try socket.sendAll(body, retryingWhenFull: false)
        } catch {
            // Refused and closed mid-body: the answer may still be there to read.
        }
        return Self.readAnswer(socket)
    }

    /// Everything until the server closes (or the socket's timeout passes), as an answer.
    static func readAnswer(_ socket: LoopbackSocket) -> Answer {
        var received: [UInt8] = []
        var scratch = [UInt8](repeating: 0, count: 16 << 10)
        while received.count < 4 << 20, case .bytes(let count) = (try? socket.read(into: &scratch)) ?? .closed {
            received += scratch.prefix(count)
        }
        return parse(received)
    }

    /// The status line's code and, after the head, the body and its `"error"` name.
    static func parse(_ received: [UInt8]) -> Answer {
        let text = String(decoding: received.prefix(64), as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 "), let status = Int(text.dropFirst(9).prefix(3)) else {
            return Answer(status: 0)
        }
        let separator = Array("\r\n\r\n".utf8)
        let bodyStart = (0..<max(0, received.count - 3)).first { received[$0..<$0 + 4].elementsEqual(separator) }.map { $0 + 4 }
        return Answer(status: status, body: bodyStart.map { Array(received[$0...]) } ?? [])
    }
}

/// What the server answered an attack, counted by label.
final class Tally: Sendable {
    private let counts = Mutex<[String: Int]>([:])

    func add(_ label: String, count: Int = 1) {
        counts.withLock { $0[label, default: 0] += count }
    }

    var total: Int { counts.withLock { $0.values.reduce(0, +) } }

    func count(of label: String) -> Int { counts.withLock { $0[label] ?? 0 } }

    /// "812× 400 InvalidWelcome, 3× no answer", the most frequent first.
    var summary: String {
        let all = counts.withLock { $0 }
        guard !all.isEmpty else { return "nothing" }
        return all.sorted { ($0.value, $1.key) > ($1.value, $0.key) }.map { "\($0.value)× \($0.key)" }.joined(separator: ", ")
    }
}

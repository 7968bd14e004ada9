import Foundation
import HTTP
import Synchronization

/// Asks every node's `/xrpc/_health` every 0.2 s on a thread of its own, keeping each answer.
final class HealthWatch: Sendable {
    struct Answer: Sendable {
        let node: String
        let at: UInt64
        let status: Int
        let database: String?
        let retryAfter: Bool
    }

    let nodes: [XRPCClient]
    private let answers = Mutex<[Answer]>([])
    private let running = Atomic<Bool>(true)

    init(nodes: [XRPCClient]) { self.nodes = nodes }

    var snapshot: [Answer] { answers.withLock { $0 } }

    func start() -> DispatchGroup {
        let http = HTTPClient(timeout: 5, maxBodySize: 1 << 16, allowPrivateAddresses: true)
        return Threads.start(1) { [self] _ in
            while running.load(ordering: .relaxed) {
                for node in nodes {
                    let response = try? http.get(node.baseURL + "/xrpc/_health")
                    let reply = response.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.body))) as? [String: Any] }
                    let answer = Answer(node: node.baseURL, at: ProcessClock.now(), status: response?.status ?? 0,
                                        database: reply?["database"] as? String, retryAfter: response?.header("Retry-After") != nil)
                    answers.withLock { $0.append(answer) }
                }
                usleep(200_000)
            }
        }
    }

    func stop() { running.store(false, ordering: .relaxed) }
}

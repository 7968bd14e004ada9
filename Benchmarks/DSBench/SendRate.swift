import Foundation

/// `ds-bench send-rate`: the sendMessage calls per second one service node completes for `clients`
/// closed-loop clients over `seconds`, each a member of one conversation with its own MLS state,
/// each call a fresh message, token and connection (`FailoverLoad`'s senders). scripts/ha-test.sh
/// runs it against a node on the Patroni cluster, where every commit waits for the synchronous
/// standby, and against one on a single PostgreSQL, in the same run.
struct SendRate {
    let node: XRPCClient
    let plcDirectory: String
    let clients: Int
    let seconds: Double

    func run() throws -> (rate: Double, failed: Int) {
        let users = try (0..<clients).map { _ in try BenchUser() }
        for user in users { try PLCDirectory.publish(user, in: plcDirectory) }
        let data = SendMessageData(client: node, plcDirectory: plcDirectory, senders: clients, convos: 1, ciphertextSize: 256)
        let (convoID, groups) = try data.createConvo(creator: 0, users: users)
        let load = FailoverLoad(nodes: [node], convoID: convoID, requestTimeout: 30, retryDeadline: 0)
        let start = ProcessClock.now()
        let running = load.start(senders: Array(zip(users, groups)).map { ($0, $1) })
        usleep(UInt32(seconds * 1e6))
        let end = ProcessClock.now()
        load.stop()
        _ = running.wait(timeout: .now() + 60)
        let calls = load.snapshot.calls
        let completed = calls.filter { (200..<300).contains($0.status) && $0.answeredAt <= end }.count
        return (Double(completed) / (Double(end - start) / 1e9), calls.filter { !(200..<300).contains($0.status) }.count)
    }
}

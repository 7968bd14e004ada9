/// The life of one multiplexed connection to a host, as a value type (events in, actions out; no
/// sockets, no clock): connect when requests wait, back off after failures (0.5 s doubling to 30 s,
/// reset once a response arrives), ping an idle connection and give it up when the ping is not
/// answered, drain on GOAWAY.
struct HTTP2Lifecycle: Equatable {
    enum Phase: Equatable {
        /// No connection, and no reason to make one yet.
        case idle
        case connecting
        case open
        /// The server said GOAWAY: no new streams; the connection closes once its streams are done.
        case draining
        /// No connection until `until` (seconds), after a failure.
        case waiting(until: Double)
    }

    enum Action: Equatable {
        case connect
        case ping
        /// Close the connection (every stream still open on it is lost).
        case close
    }

    var pingInterval: Double
    var pingTimeout: Double
    static let maxBackoff = 30.0

    private(set) var phase = Phase.idle
    /// Failed connects and connections lost before any response since the last response.
    private(set) var failures = 0
    private(set) var lastHeard = 0.0
    private(set) var pingSent: Double?

    init(pingInterval: Double, pingTimeout: Double) {
        self.pingInterval = pingInterval
        self.pingTimeout = pingTimeout
    }

    func backoff(after failures: Int) -> Double {
        min(Self.maxBackoff, 0.5 * Double(1 << min(failures, 10)))
    }

    /// Time passed, or something changed: what to do now. `waiting` says whether requests wait for
    /// a stream; `streams` how many are open.
    mutating func tick(now: Double, waiting: Bool, streams: Int) -> [Action] {
        switch phase {
        case .idle:
            guard waiting else { return [] }
            phase = .connecting
            return [.connect]
        case .waiting(let until):
            guard waiting, now >= until else { return [] }
            phase = .connecting
            return [.connect]
        case .connecting:
            return []
        case .open, .draining:
            if let sent = pingSent, now - sent >= pingTimeout {
                // No answer to the ping: the connection is dead, whatever the socket says.
                return lost(now: now)
            }
            if phase == .draining, streams == 0 {
                phase = .idle
                return [.close] + tick(now: now, waiting: waiting, streams: 0)
            }
            if phase == .open, pingSent == nil, now - lastHeard >= pingInterval {
                pingSent = now
                return [.ping]
            }
            return []
        }
    }

    mutating func connected(now: Double) {
        guard phase == .connecting else { return }
        phase = .open
        lastHeard = now
        pingSent = nil
    }

    mutating func connectFailed(now: Double) {
        guard phase == .connecting else { return }
        phase = .waiting(until: now + backoff(after: failures))
        failures += 1
    }

    /// Bytes came from the server.
    mutating func heard(now: Double) { lastHeard = now }

    /// A response completed: the connection works.
    mutating func responded(now: Double) {
        lastHeard = now
        failures = 0
    }

    mutating func pingAcknowledged(now: Double) {
        pingSent = nil
        lastHeard = now
    }

    mutating func goAway() {
        if phase == .open { phase = .draining }
    }

    /// The connection broke (read or write failed, a protocol error, an unanswered ping).
    mutating func lost(now: Double) -> [Action] {
        guard phase == .open || phase == .draining else { return [] }
        pingSent = nil
        if failures == 0 {
            phase = .idle
        } else {
            phase = .waiting(until: now + backoff(after: failures))
        }
        failures += 1
        return [.close]
    }

    /// When `tick` next has something to do, if anything (`waiting`: requests wait for a stream;
    /// without them, the end of a backoff changes nothing).
    func nextDeadline(waiting: Bool) -> Double? {
        switch phase {
        case .idle, .connecting: nil
        case .waiting(let until): waiting ? until : nil
        case .open: pingSent.map { $0 + pingTimeout } ?? lastHeard + pingInterval
        case .draining: pingSent.map { $0 + pingTimeout }
        }
    }
}

import MQTT

/// One SUBSCRIBE as a Session works through it (MQTT 5.0 §3.8.4, §3.9.3), a value that the relay
/// workers advance a few filters at a time (`RelaySettings.filtersPerJob`), so a packet of many
/// filters holds a worker for a few queries per turn rather than for all of them. A filter repeated
/// in the packet is one subscription, with its last copy's options, examined once, and every copy
/// gets its answer.
struct RelaySubscribeWork: Sendable {
    let packetIdentifier: UInt16
    let requests: [SubscriptionRequest]
    /// The index of each distinct filter's last copy, in the order the filters first appear.
    private let distinct: [Int]
    private var answers: [String: ReasonCode] = [:]
    private var next = 0
    /// The DID's subscription budget ran out on this packet (seconds until it has a token again):
    /// its later filters are refused too.
    var rateLimited: Int?

    init(packetIdentifier: UInt16, requests: [SubscriptionRequest]) {
        self.packetIdentifier = packetIdentifier
        self.requests = requests
        var last: [String: Int] = [:]
        var order: [String] = []
        for (index, request) in requests.enumerated() where last.updateValue(index, forKey: request.topicFilter.value) == nil {
            order.append(request.topicFilter.value)
        }
        distinct = order.map { last[$0]! }
    }

    var isDone: Bool { next == distinct.count }

    /// The next distinct filter to examine, nil when all were.
    mutating func take() -> SubscriptionRequest? {
        guard next < distinct.count else { return nil }
        defer { next += 1 }
        return requests[distinct[next]]
    }

    mutating func answer(_ request: SubscriptionRequest, with code: ReasonCode) {
        answers[request.topicFilter.value] = code
    }

    /// The SUBACK's Reason Codes, one per filter of the packet in order.
    var codes: [ReasonCode] { requests.map { answers[$0.topicFilter.value] ?? .unspecifiedError } }
}

/// `blue.catbird.mls.getSubscriptionTicket` input: without `convoId`, all the caller's conversations.
public struct GetSubscriptionTicketInput: Codable, Sendable, Equatable {
    public var convoId: String?
    /// The device the socket is the live subscription of: it is not pushed while the socket is open.
    public var deviceId: String?

    public init(convoId: String? = nil, deviceId: String? = nil) {
        self.convoId = convoId
        self.deviceId = deviceId
    }
}

/// `blue.catbird.mls.getSubscriptionTicket` output.
public struct GetSubscriptionTicketOutput: Codable, Sendable, Equatable {
    public var ticket: String
    /// The subscribeConvoEvents WebSocket URL.
    public var endpoint: String
    public var expiresAt: String

    public init(ticket: String, endpoint: String, expiresAt: String) {
        self.ticket = ticket
        self.endpoint = endpoint
        self.expiresAt = expiresAt
    }
}

import Basics

/// Something `EventHub` offers a conversation's new events to: a subscribeConvoEvents socket or an
/// MQTT Session following group topics. Offers come from the hub's fan-out thread and must not block.
protocol EventFollower: AnyObject, Sendable {
    var did: DID { get }
    /// Follows the conversations its DID joins while it follows (subscribeConvoEvents without convoId).
    var followsJoins: Bool { get }
    /// The device it is the live subscription of (`did#pushDeviceID`), which is then not pushed for
    /// the conversations it follows (docs/push.md); nil when it names none.
    var pushDeviceID: String? { get }
    /// `events` continue the conversation's log as the hub read it (maybe none); `announced` is the
    /// newest event_seq the notification named.
    func offer(_ convoID: String, events: ArraySlice<PreparedEvent>, announced: Int64)
    /// Its DID joined `convoID` (only for `followsJoins`): follow it from just before `seq`.
    func joined(_ convoID: String, before seq: Int64)
}

extension EventFollower {
    var pushDeviceID: String? { nil }
}

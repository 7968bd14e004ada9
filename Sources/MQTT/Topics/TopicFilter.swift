/// A validated Topic Filter (MQTT 5.0 §4.7), possibly a Shared Subscription (§4.8.2). Only `init`
/// builds one.
public struct TopicFilter: Hashable, Sendable, CustomStringConvertible {
    /// The filter exactly as subscribed (compared character by character on UNSUBSCRIBE, §3.10.4).
    public let value: String
    /// For `$share/{ShareName}/{filter}`, the ShareName.
    public let shareName: String?
    /// The part that is matched against Topic Names: `value` without a `$share/{ShareName}/` prefix.
    public let matchFilter: String

    public init(_ value: String) throws(TopicError) {
        try TopicName.checkCommonRules(value)
        self.value = value
        if value.hasPrefix("$share/") {
            // MQTT 5.0 §4.8.2: a ShareName of at least one character without '/', '+' or '#', then '/'
            // and a Topic Filter.
            let rest = value.dropFirst("$share/".count)
            guard let slash = rest.firstIndex(of: "/") else { throw .invalidSharedSubscription }
            let share = rest[..<slash]
            let filter = rest[rest.index(after: slash)...]
            guard !share.isEmpty, !share.contains("+"), !share.contains("#"), !filter.isEmpty else {
                throw .invalidSharedSubscription
            }
            shareName = String(share)
            matchFilter = String(filter)
        } else {
            shareName = nil
            matchFilter = value
        }
        try Self.checkWildcards(matchFilter)
    }

    public var isShared: Bool { shareName != nil }

    /// A Wildcard Subscription (MQTT 5.0 §1.2): the filter has '+' or '#'.
    public var hasWildcards: Bool {
        matchFilter.utf8.contains { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "#") }
    }

    public var description: String { value }

    /// MQTT 5.0 §4.7.1.2 [MQTT-4.7.1-1]: '#' alone in its level, and in the last one; §4.7.1.3
    /// [MQTT-4.7.1-2]: '+' alone in its level. One pass over the bytes (a SUBSCRIBE may hold many
    /// filters, each checked on the connection's I/O thread).
    private static func checkWildcards(_ filter: String) throws(TopicError) {
        let slash = UInt8(ascii: "/")
        let utf8 = filter.utf8
        var previous = slash
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            let next = utf8.index(after: index)
            let following: UInt8? = next == utf8.endIndex ? nil : utf8[next]
            if byte == UInt8(ascii: "#"), previous != slash || following != nil { throw .misplacedMultiLevelWildcard }
            if byte == UInt8(ascii: "+"), previous != slash || (following != nil && following != slash) {
                throw .misplacedSingleLevelWildcard
            }
            previous = byte
            index = next
        }
    }

    /// Whether a message published to `name` reaches this filter (MQTT 5.0 §4.7): levels compared
    /// character for character without normalisation [MQTT-4.7.3-4], '+' matching one level, '#' the
    /// parent and any number of children.
    public func matches(_ name: TopicName) -> Bool {
        // MQTT 5.0 §4.7.2 [MQTT-4.7.2-1]: a filter starting with a wildcard never matches a '$' name.
        if name.isDollarTopic, let first = matchFilter.utf8.first,
           first == UInt8(ascii: "+") || first == UInt8(ascii: "#") {
            return false
        }
        var filterLevels = matchFilter.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)[...]
        var nameLevels = name.value.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)[...]
        while let level = filterLevels.popFirst() {
            if level.elementsEqual("#".utf8) { return true }
            guard let nameLevel = nameLevels.popFirst() else { return false }
            if level.elementsEqual("+".utf8) { continue }
            if !level.elementsEqual(nameLevel) { return false }
        }
        return nameLevels.isEmpty
    }
}
